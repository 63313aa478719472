/* hxload's open-loop schedule: a constant rate, a linear ramp or stages, as exact send times. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_opts.h"

/* requests due in the first <t> seconds of a stage of <T> seconds going
 * linearly from <r0> to <r1> per second */
static double stage_count(const struct lc_stage *s, double t)
{
	double T = (double)s->us / 1e6;

	return s->rate0 * t + (s->rate1 - s->rate0) * t * t / (2 * T);
}

/* the time into stage <s> at which <n> requests are due (n within it) */
static double stage_time(const struct lc_stage *s, double n)
{
	double T = (double)s->us / 1e6, a = (s->rate1 - s->rate0) / (2 * T), b = s->rate0;

	if (fabs(a) < 1e-12)
		return n / b;
	return (-b + sqrt(b * b + 4 * a * n)) / (2 * a);
}

uint64_t lc_due_at(const struct lc_opts *o, double n)
{
	uint64_t base = 0;

	for (int i = 0; i < o->nstages; i++) {
		const struct lc_stage *s = &o->stages[i];
		double in = stage_count(s, (double)s->us / 1e6);

		if (n < in) {
			double t = stage_time(s, n) * 1e6;

			return base + (uint64_t)(t < 0 ? 0 : t);
		}
		n -= in;
		base += s->us;
	}
	return UINT64_MAX;
}

/* requests due in the first <us> of the schedule */
static double count_until(const struct lc_opts *o, uint64_t us)
{
	double n = 0;

	for (int i = 0; i < o->nstages && us; i++) {
		const struct lc_stage *s = &o->stages[i];
		uint64_t in = us < s->us ? us : s->us;

		n += stage_count(s, (double)in / 1e6);
		us -= in;
	}
	return n;
}

double lc_rate_mean(const struct lc_opts *o)
{
	if (!o->nstages || !o->duration_us)
		return 0;
	return (count_until(o, o->warmup_us + o->duration_us) - count_until(o, o->warmup_us)) /
	       ((double)o->duration_us / 1e6);
}

int lc_duration(const char *s, size_t len, uint64_t *us)
{
	char *end;
	double v = strtod(s, &end), mul = 1e6;
	size_t rest = len - (size_t)(end - s);

	if (end == s || v < 0 || v > 1e7 || *s == '-' || *s == '+')
		return -1;
	if (rest == 2 && !strncmp(end, "ms", 2))
		mul = 1e3;
	else if (rest == 1 && *end == 'm')
		mul = 60e6;
	else if (rest == 1 && *end == 'h')
		mul = 3600e6;
	else if (rest && !(rest == 1 && *end == 's'))
		return -1;
	*us = (uint64_t)(v * mul);
	return 0;
}

/* a rate: a number, k for thousands */
static int rate(const char *s, size_t len, double *r)
{
	char *end;
	double v = strtod(s, &end);
	size_t rest = len - (size_t)(end - s);

	if (end == s || v < 0 || (rest && !(rest == 1 && *end == 'k')))
		return -1;
	*r = rest ? v * 1000 : v;
	return *r <= 1e9 ? 0 : -1;
}

int lc_stages_parse(struct lc_opts *o, const char *s, const char **err)
{
	*err = "expected D@RATE or D@FROM:TO, comma-separated (D: 500ms, 10s, 2m)";
	o->nstages = 0;
	while (*s) {
		size_t len = strcspn(s, ","), dl;
		const char *at = memchr(s, '@', len), *colon;
		struct lc_stage *st = &o->stages[o->nstages];

		if (!at || o->nstages == LC_MAX_STAGES - 1)
			return -1;
		dl = (size_t)(at - s);
		colon = memchr(at, ':', len - dl);
		if (lc_duration(s, dl, &st->us) < 0 || !st->us)
			return -1;
		if (colon) {
			if (rate(at + 1, (size_t)(colon - at - 1), &st->rate0) < 0 ||
			    rate(colon + 1, len - (size_t)(colon - s) - 1, &st->rate1) < 0)
				return -1;
		} else {
			if (rate(at + 1, len - dl - 1, &st->rate0) < 0)
				return -1;
			st->rate1 = st->rate0;
		}
		o->nstages++;
		s += len + (s[len] == ',');
	}
	return o->nstages ? 0 : -1;
}

void lc_stages_finish(struct lc_opts *o)
{
	if (!o->nstages && o->rate > 0) {
		/* -R A, or A:B: a ramp over the duration */
		o->stages[0] = (struct lc_stage){ o->duration_us, o->rate, o->rate_to > 0 ? o->rate_to : o->rate };
		o->nstages = 1;
	} else if (o->nstages) {
		o->duration_us = 0;
		for (int i = 0; i < o->nstages; i++)
			o->duration_us += o->stages[i].us;
	}
	if (o->nstages && o->warmup_us) {
		memmove(&o->stages[1], &o->stages[0], (size_t)o->nstages * sizeof(o->stages[0]));
		o->stages[0] = (struct lc_stage){ o->warmup_us, o->stages[1].rate0, o->stages[1].rate0 };
		o->nstages++;
	}
}

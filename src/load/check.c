/* hxload's --fail-on: thresholds on the merged figures ('p99>5ms,errors>0,non2xx>1%'), which set exit status 3; find's --slo, the terms a step must hold; --expect, the statuses that are right. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "lc_stats.h"

enum unit { U_NONE, U_TIME, U_PCT };

struct term {
	char metric[16];
	char op[3];
	double value;                /* latency in ms; a fraction for U_PCT */
	enum unit unit;
};

static const struct {
	const char *name;
	double q;                    /* a quantile; -1 max, -2 mean, -3 min, -4 stddev; 0: a count */
} metrics[] = {
	{ "p50", 0.5 }, { "p90", 0.9 }, { "p99", 0.99 }, { "p99.9", 0.999 }, { "p999", 0.999 },
	{ "p99.99", 0.9999 }, { "p9999", 0.9999 }, { "max", -1 }, { "mean", -2 }, { "min", -3 },
	{ "stddev", -4 }, { "errors", 0 }, { "non2xx", 0 }, { "rps", 0 }, { "late", 0 }, { "unsent", 0 },
};

static int find_metric(const char *m)
{
	for (size_t i = 0; i < ARRAY_SIZE(metrics); i++)
		if (!strcmp(metrics[i].name, m))
			return (int)i;
	return -1;
}

/* one METRIC OP VALUE[unit] of <len> bytes at <s> */
static int term_parse(const char *s, size_t len, struct term *t, const char **err)
{
	size_t i = 0, k = 0;
	char num[32], *end;
	int m;

	while (i < len && isspace((unsigned char)s[i]))
		i++;
	while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '.') && k < sizeof(t->metric) - 1)
		t->metric[k++] = s[i++];
	t->metric[k] = 0;
	while (i < len && isspace((unsigned char)s[i]))
		i++;
	if ((m = find_metric(t->metric)) < 0)
		return *err = "unknown metric (p50 p90 p99 p99.9 p99.99 max mean min stddev errors non2xx "
			      "rps late unsent)", -1;
	k = 0;
	while (i < len && strchr("<>=", s[i]) && k < 2)
		t->op[k++] = s[i++];
	t->op[k] = 0;
	if (strcmp(t->op, ">") && strcmp(t->op, ">=") && strcmp(t->op, "<") && strcmp(t->op, "<="))
		return *err = "expected > >= < or <= after the metric", -1;
	while (len > i && isspace((unsigned char)s[len - 1]))
		len--;
	snprintf(num, sizeof(num), "%.*s", (int)MIN(len - i, sizeof(num) - 1), s + i);
	t->value = strtod(num, &end);
	if (end == num)
		return *err = "expected a number after the operator", -1;
	t->unit = U_NONE;
	if (!strcmp(end, "%"))
		t->unit = U_PCT, t->value /= 100;
	else if (!strcmp(end, "ms"))
		t->unit = U_TIME;
	else if (!strcmp(end, "us"))
		t->unit = U_TIME, t->value /= 1e3;
	else if (!strcmp(end, "s"))
		t->unit = U_TIME, t->value *= 1e3;
	else if (*end)
		return *err = "a unit is one of us, ms, s, %", -1;
	if (metrics[m].q != 0 && t->unit == U_PCT)
		return *err = "a latency takes us, ms or s, not %", -1;
	if (metrics[m].q == 0 && t->unit == U_TIME)
		return *err = "a count takes no time unit", -1;
	if (!strcmp(t->metric, "rps") && t->unit == U_PCT)
		return *err = "rps takes no unit", -1;
	return 0;
}

/* calls <fn> for each term of <spec>; -1 at the first bad one */
static int each_term(const char *spec, const char **err, void (*fn)(const struct term *, void *), void *arg)
{
	if (!*spec)
		return *err = "empty", -1;
	while (*spec) {
		size_t len = strcspn(spec, ",");
		struct term t;

		if (term_parse(spec, len, &t, err) < 0)
			return -1;
		if (fn)
			fn(&t, arg);
		spec += len + (spec[len] == ',');
	}
	return 0;
}

int lc_check_parse(const char *spec, const char **err)
{
	return each_term(spec, err, NULL, NULL);
}

struct ctx {
	const struct lc_stats *T;
	const struct lc_meta *m;
	int failed;
	char *why;                   /* an SLO (lc_slo_miss): the first term missed, not printed */
	size_t len;
	const struct hist *lat;      /* what the latency terms read: T's latency unless find says */
};

/* the figure a term names, and its denominator for U_PCT */
static double figure(const struct term *t, const struct ctx *x, double *of)
{
	const struct lc_stats *T = x->T;
	const struct hist *h = x->lat;
	double q = metrics[find_metric(t->metric)].q;

	*of = (double)T->reqs;
	if (q > 0)
		return hist_quantile(h, q) / 1e3;
	if (q == -1)
		return h->max / 1e3;
	if (q == -2)
		return hist_mean(h) / 1e3;
	if (q == -3)
		return h->n ? h->min / 1e3 : 0;
	if (q == -4)
		return hist_stddev(h) / 1e3;
	if (!strcmp(t->metric, "errors")) {
		*of = (double)(T->reqs + lc_stats_errors(T));
		return (double)lc_stats_errors(T);
	}
	if (!strcmp(t->metric, "non2xx"))
		return (double)T->non2xx;
	if (!strcmp(t->metric, "rps"))
		return T->reqs / x->m->secs;
	*of = (double)T->scheduled;
	if (!strcmp(t->metric, "late"))
		return (double)T->late;
	return (double)(T->scheduled > T->sent ? T->scheduled - T->sent : 0);
}

static void evaluate(const struct term *t, void *arg)
{
	struct ctx *x = arg;
	double of, v = figure(t, x, &of), cmp = v;
	int crossed;

	if (t->unit == U_PCT)
		cmp = of > 0 ? v / of : 0;
	if (!strcmp(t->op, ">"))
		crossed = cmp > t->value;
	else if (!strcmp(t->op, ">="))
		crossed = cmp >= t->value;
	else if (!strcmp(t->op, "<"))
		crossed = cmp < t->value;
	else
		crossed = cmp <= t->value;
	if (x->why) {
		int q = metrics[find_metric(t->metric)].q != 0;

		if (crossed || x->failed++)
			return;
		if (t->unit == U_PCT)
			snprintf(x->why, x->len, "%s %.3f %%, not %s %g %%", t->metric, cmp * 100, t->op, t->value * 100);
		else
			snprintf(x->why, x->len, q ? "%s %.3f ms, not %s %g ms" : "%s %.1f, not %s %g", t->metric, v,
				 t->op, t->value);
		return;
	}
	if (!crossed)
		return;
	x->failed++;
	if (t->unit == U_PCT)
		fprintf(stderr, "hxload: --fail-on: %s %.3f %% %s %.3f %%\n", t->metric, cmp * 100, t->op,
			t->value * 100);
	else if (metrics[find_metric(t->metric)].q != 0)
		fprintf(stderr, "hxload: --fail-on: %s %.3f ms %s %.3f ms\n", t->metric, v, t->op, t->value);
	else
		fprintf(stderr, "hxload: --fail-on: %s %.1f %s %g\n", t->metric, v, t->op, t->value);
}

int lc_slo_miss_on(const char *spec, const struct lc_stats *T, const struct lc_meta *m, const struct hist *lat,
		   char *why, size_t len)
{
	struct ctx x = { T, m, 0, why, len, lat };
	const char *err;

	why[0] = 0;
	if (each_term(spec, &err, evaluate, &x) < 0)
		return 1;
	return x.failed;
}

int lc_slo_miss(const char *spec, const struct lc_stats *T, const struct lc_meta *m, char *why, size_t len)
{
	return lc_slo_miss_on(spec, T, m, &T->h[H_LAT], why, len);
}

int lc_check(const char *spec, const struct lc_stats *T, const struct lc_meta *m)
{
	struct ctx x = { T, m, 0, NULL, 0, &T->h[H_LAT] };
	const char *err;

	if (each_term(spec, &err, evaluate, &x) < 0)
		return 1;
	return x.failed;
}

/* one item of --expect: 404, 4xx, 500-503 */
static int expect_item(const char *s, size_t len, uint8_t *set)
{
	char buf[16], *end;
	long lo, hi;

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	if (len == 3 && isdigit((unsigned char)buf[0]) && !strcmp(buf + 1, "xx")) {
		lo = (buf[0] - '0') * 100;
		hi = lo + 99;
	} else {
		if (!isdigit((unsigned char)buf[0]))
			return -1;
		lo = hi = strtol(buf, &end, 10);
		if (*end == '-' && isdigit((unsigned char)end[1]))
			hi = strtol(end + 1, &end, 10);
		if (*end)
			return -1;
	}
	if (lo < 100 || hi >= LC_STATUS_MAX || lo > hi)
		return -1;
	for (long v = lo; v <= hi; v++)
		set[v] = 1;
	return 0;
}

int lc_expect_parse(const char *spec, uint8_t *set, const char **err)
{
	memset(set, 0, LC_STATUS_MAX);
	if (!*spec)
		return *err = "empty", -1;
	while (*spec) {
		size_t len = strcspn(spec, ",");

		if (expect_item(spec, len, set) < 0 || (spec[len] == ',' && !spec[len + 1]))
			return *err = "expected statuses 100 to 999, comma-separated, each N, Nxx or N-M", -1;
		spec += len + (spec[len] == ',');
	}
	return 0;
}

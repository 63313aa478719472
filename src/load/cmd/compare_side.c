/* hxload compare's sides: each run read into units (its intervals, or the run whole), the units pooled, a metric of a pool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "lc_cmd.h"
#include "lc_compare_int.h"
#include "runs.h"

static const double m_q[M_MAX] = { 0, 0.5, 0.9, 0.99, 0.999, 0.5, 0.99, 0.5, 0.99, 0.5, 0.99, 0, 0 };
const int compare_iv[M_MAX] = { -1, IV_LAT, IV_LAT, IV_LAT, IV_LAT, IV_SRV, IV_SRV, IV_OTH, IV_OTH, IV_BOTH,
				 IV_QUEUE, -1, -1 };

/* WHY in ms, not in %: the parts of the time (server, other, the body's
 * rest, the queue) may be a few microseconds on A, where a ratio says
 * nothing: "the proxy adds 0.2 ms" */
int compare_split(int m)
{
	return m >= M_SRV50 && m <= M_Q99;
}

/* B against A: in percent, or in ms for the parts of the time (compare_split) */
double compare_diff(int m, double a, double b)
{
	if (compare_split(m))
		return b - a;
	return a > 0 ? (b / a - 1) * 100 : 0;
}

/* <u> added to <p>: the totals of a set of units are a unit too, and a
 * short tail interval joins the one before by the same addition */
void compare_pool_add(struct unit *p, const struct unit *u)
{
	p->secs += u->secs;
	p->reqs += u->reqs;
	p->bytes += u->bytes;
	p->cpu_us += u->cpu_us;
	for (int k = 0; k < IV_MAX; k++)
		hist_merge(&p->h[k], &u->h[k]);
}

double compare_metric(const struct unit *p, int m)
{
	switch (m) {
	case M_RPS: return p->secs > 0 ? p->reqs / p->secs : 0;
	case M_CPU_REQ: return p->reqs > 0 ? p->cpu_us / p->reqs : 0;
	case M_CPU_MIB: return p->bytes > 0 ? p->cpu_us / (p->bytes / 1048576.0) : 0;
	}
	return hist_quantile(&p->h[compare_iv[m]], m_q[m]) / 1e3;
}

static struct unit *side_push(struct side *s)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct unit *nu = s->n < MAX_UNITS ? realloc(s->u, cap * sizeof(*nu)) : NULL;

		if (!nu)
			return NULL;
		s->u = nu;
		s->cap = cap;
	}
	memset(&s->u[s->n], 0, sizeof(s->u[0]));
	return &s->u[s->n++];
}

/* one run: its intervals (a last one under half the one before joined to
 * it; the pools weigh by time), or the run as one unit when it has none */
int compare_side_run(const struct json *r, void *arg)
{
	struct side *s = arg;
	const struct json *iv = json_get(r, "intervals"), *cpu = json_get(r, "server_cpu");
	static struct lc_stats st;
	struct unit *u;

	if (lc_run_read(r, &st) < 0 || s->runs == MAX_RUNS)
		return -1;
	if (!s->runs)
		snprintf(s->label, sizeof(s->label), "%s", json_str(r, "label"));
	s->first[s->runs++] = s->n;
	s->cpu &= cpu != NULL;
	for (size_t i = 0; iv && iv->type == JSON_ARR && i < iv->n; i++) {
		const struct json *v = &iv->kid[i];

		if (!(u = side_push(s)))
			return -1;
		u->secs = json_num(v, "seconds", 0);
		u->reqs = json_num(v, "requests", 0);
		u->bytes = json_num(v, "bytes", 0);
		u->cpu_us = json_num(v, "server_cpu_us", 0);
		if (!json_get(v, "latency"))
			return -1;
		for (int k = 0; k < IV_MAX; k++)
			s->has[k] &= json_get(v, lc_iv_names[k]) && !lc_hist_read(&u->h[k], json_get(v, lc_iv_names[k]));
		if (!s->has[IV_LAT])
			return -1;
	}
	/* WHY: a run's last interval, cut short by its end, joins the one
	 * before (as hxload's own series does), or it would weigh as much as a
	 * whole one in the resampling */
	if (s->n - s->first[s->runs - 1] >= 2 && s->u[s->n - 1].secs * 2 < s->u[s->n - 2].secs) {
		compare_pool_add(&s->u[s->n - 2], &s->u[s->n - 1]);
		s->n--;
	}
	if (iv && iv->n)
		return 0;
	if (!(u = side_push(s)))
		return -1;
	s->run_units++;
	u->secs = json_num(r, "seconds", 0);
	u->reqs = (double)st.reqs;
	u->bytes = (double)st.bytes;
	u->cpu_us = (double)st.srv_cpu_us;
	for (int k = 0; k < IV_MAX; k++)
		u->h[k] = st.h[lc_iv_hist[k]];
	return 0;
}

void compare_pool_all(const struct side *s, struct unit *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < s->n; i++)
		compare_pool_add(p, &s->u[i]);
}


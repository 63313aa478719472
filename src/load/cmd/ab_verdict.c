/* hxload ab's figures: each read from every run, paired over the rounds (the interval, Holm's correction), the verdict line */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "lc_ab.h"
#include "stat.h"

/* round <k> void: the backend saturated in one of its runs */
int ab_round_void(const struct ab *x, int k)
{
	return x->guard[0][k].saturated || x->guard[1][k].saturated;
}
/* a number at a dotted path of a run, or NAN-like: returns 0 when absent */
static int at_path(const struct json *r, const char *path, double *v)
{
	char buf[96], *save = NULL, *k, *next;
	const struct json *o = r;

	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); k; k = next) {
		next = strtok_r(NULL, ".", &save);
		if (!next) {
			const struct json *leaf = json_get(o, k);

			if (!leaf || leaf->type != JSON_NUM)
				return 0;
			*v = leaf->num;
			return 1;
		}
		if (!(o = json_get(o, k)))
			return 0;
	}
	return 0;
}

static void fig_add(struct ab *x, const char *path, const char *name, int pct)
{
	struct fig *f;

	if (x->nfig == AB_MAX_FIG)
		return;
	f = &x->fig[x->nfig++];
	snprintf(f->path, sizeof(f->path), "%s", path);
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->pct = pct;
	f->lat = !pct && strncmp(path, "cpu.", 4);
}

/* the figures compared: the fixed ones, then each --pid process's CPU */
static void figs_init(struct ab *x, const struct json *first)
{
	static const struct { const char *path, *name; } ms[] = {
		{ "latency_ms.p50", "latency p50" }, { "latency_ms.p90", "latency p90" },
		{ "latency_ms.p99", "latency p99" }, { "latency_ms.p999", "latency p99.9" },
		{ "ttfb_ms.p50", "ttfb p50" }, { "server_ms.p50", "server p50" }, { "server_ms.p99", "server p99" },
		{ "other_ms.p50", "other p50" }, { "other_ms.p90", "other p90" }, { "other_ms.p99", "other p99" },
		{ "body_other_ms.p50", "body_other p50" }, { "queue_ms.p99", "queue p99" },
	};
	const struct json *cpu = json_get(first, "cpu");
	char p[96], n[64];

	fig_add(x, "requests_per_second", "req/s", 1);
	for (size_t i = 0; i < ARRAY_SIZE(ms); i++)
		fig_add(x, ms[i].path, ms[i].name, 0);
	for (size_t i = 0; json_get(first, "first_event_ms") && i < ARRAY_SIZE(lc_sse_figs); i++)
		fig_add(x, lc_sse_figs[i].path, lc_sse_figs[i].name, 0); /* WHY: --sse, a gateway's TTFT and gaps */
	for (size_t i = 0; cpu && cpu->type == JSON_OBJ && i < cpu->n; i++) {
		snprintf(p, sizeof(p), "cpu.%s.us_per_request", cpu->key[i]);
		snprintf(n, sizeof(n), "%s CPU us/req", cpu->key[i]);
		fig_add(x, p, n, 0);
		snprintf(p, sizeof(p), "cpu.%s.us_per_mib", cpu->key[i]);
		snprintf(n, sizeof(n), "%s CPU us/MiB", cpu->key[i]);
		fig_add(x, p, n, 0);
	}
}

int ab_read_one(const struct json *r, void *arg)
{
	struct read_ctx *c = arg;
	struct ab *x = c->x;
	static struct lc_stats st;

	if (!x->nfig)
		figs_init(x, r);
	if (lc_run_read(r, &st) < 0)
		return -1;
	lc_stats_add(&x->pooled[c->side], &st);
	x->answered[c->side][c->round] += st.reqs;
	lc_why_read(r, &x->first_bad[c->side]);
	for (int i = 0; i < x->nfig; i++) {
		struct fig *f = &x->fig[i];
		double v = 0;

		f->in[c->side][c->round] = (uint8_t)at_path(r, f->path, &v);
		(c->side ? f->b : f->a)[c->round] = v;
	}
	return 0;
}

/* whether round <k> pairs for <f>: both runs gave a result with the
 * figure, and for a figure of the answers both sides had answers */
static int fig_round(const struct ab *x, const struct fig *f, int k)
{
	if (!x->used[k] || !f->in[0][k] || !f->in[1][k])
		return 0;
	return !f->lat || (x->answered[0][k] && x->answered[1][k]);
}

/* the variance a percentile <v> has from its histogram bucket alone: a
 * value anywhere in the bucket's width (uniform: width^2 / 12). WHY * 1e3:
 * the JSON gives every percentile in its histogram's units over 1000 (ms
 * of us; --sse's events/s of events per 1000 s) */
static double bucket_var(double v)
{
	double w = (double)hist_bucket_width((uint64_t)llround(v * 1e3)) / 1e3;

	return w * w / 12;
}

/* the least standard deviation a latency figure's difference stands on:
 * its buckets' (<res>, a variance summed over the rounds); and where every
 * round's difference came out the same (<r> flat on the rounds alone),
 * each side's own spread over the rounds too. WHY: pairing cancels the
 * drift A and B share, but equal differences say only that the pairing
 * hid the spread this time (p50s of 45 and 47 us against 49 and 51 read
 * +4 twice), not that there is none */
static double least_sd(const struct lc_paired *r, const double *a, const double *b, int n, double res)
{
	double v = res / n;

	if (r->flat) {
		double sa = stat_sd(a, (size_t)n), sb = stat_sd(b, (size_t)n);

		v = MAX(v, sa * sa + sb * sb);
	}
	return sqrt(v);
}

/* B - A per round (paired: the rounds share their minute of the machine),
 * its mean and a t interval over the rounds that pair, no narrower than
 * the histogram's buckets allow for a figure of the answers */
void ab_fig_stats(const struct ab *x, struct fig *f)
{
	double d[AB_MAX_ROUNDS], a[AB_MAX_ROUNDS], b[AB_MAX_ROUNDS], sa = 0, sb = 0, res = 0;
	int n = 0, any = 0;

	for (int k = 0; k < x->rounds; k++) {
		if (!fig_round(x, f, k))
			continue;
		sa += a[n] = f->a[k];
		sb += b[n] = f->b[k];
		d[n++] = f->pct ? (f->a[k] > 0 ? (f->b[k] / f->a[k] - 1) * 100 : 0) : f->b[k] - f->a[k];
		if (f->lat)
			res += bucket_var(f->a[k]) + bucket_var(f->b[k]);
		/* WHY: us per MiB of a run without bodies, a queue never used: no row */
		any |= f->a[k] != 0 || f->b[k] != 0;
	}
	f->have = n >= 2 && any;
	f->ma = n ? sa / n : 0;
	f->mb = n ? sb / n : 0;
	lc_paired(d, n, 0, &f->r);
	if (f->lat && n >= 2)
		lc_paired(d, n, least_sd(&f->r, a, b, n, res), &f->r);
}

int ab_is_headline(const struct fig *f)
{
	return !strcmp(f->path, AB_HEADLINE);
}

/* the rows but the headline are one family of tests: Holm keeps the
 * chance that any of them says "differs" wrongly under 5 % */
void ab_figs_holm(struct ab *x)
{
	double p[LC_HOLM_MAX] = { 0 };
	int idx[LC_HOLM_MAX], rej[LC_HOLM_MAX], n = 0;

	for (int i = 0; i < x->nfig && n < LC_HOLM_MAX; i++)
		if (x->fig[i].have && !x->fig[i].r.flat && !ab_is_headline(&x->fig[i])) {
			idx[n] = i;
			p[n++] = x->fig[i].r.p;
		}
	lc_holm(p, n, 0.05, rej);
	for (int i = 0; i < n; i++)
		x->fig[idx[i]].holm = rej[i];
}

const char *ab_fig_verdict(const struct fig *f)
{
	int differs = ab_is_headline(f) ? f->r.lo > 0 || f->r.hi < 0 : f->holm;

	if (f->r.flat)
		return "the same every round";
	if (!differs)
		return "no difference detectable";
	if (f->pct)
		return f->r.mean > 0 ? "B faster" : "B slower";
	return f->r.mean > 0 ? "B higher" : "B lower";
}

static struct fig *fig_path(struct ab *x, const char *path)
{
	for (int i = 0; i < x->nfig; i++)
		if (!strcmp(x->fig[i].path, path) && x->fig[i].have)
			return &x->fig[i];
	return NULL;
}

/* a side's requests that failed: errors (reset, timeout...) and answers of
 * an unexpected status, of all it sent that came to an end */
uint64_t ab_side_failed(const struct ab *x, int s)
{
	return lc_stats_errors(&x->pooled[s]) + x->pooled[s].unexpected;
}

double ab_side_share(const struct ab *x, int s)
{
	uint64_t all = x->pooled[s].reqs + lc_stats_errors(&x->pooled[s]);

	return all ? (double)ab_side_failed(x, s) / (double)all : 1;
}

/* "100.0 % of its requests failed (reset 4000; the first unexpected answer:
 * HTTP/1.1 400 Bad Request, "...")" */
static int side_why(const struct ab *x, int s, char *buf, size_t len)
{
	const struct lc_stats *T = &x->pooled[s];
	int n = snprintf(buf, len, "%.1f %% of its requests failed (", 100 * ab_side_share(x, s));

	for (int i = 0; i < E_MAX; i++)
		if (T->errors[i] && (size_t)n < len)
			n += snprintf(buf + n, len - (size_t)n, "%s %llu, ", lc_err_names[i], (unsigned long long)T->errors[i]);
	if ((size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "unexpected status %llu", (unsigned long long)T->unexpected);
	if (x->first_bad[s].status && (size_t)n < len) {
		char q[128];

		lc_why_quote(q, sizeof(q), &x->first_bad[s]);
		n += snprintf(buf + n, len - (size_t)n, "; the first: %s", q);
	}
	if ((size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ")");
	return n;
}

/* the verdict: a failed side first (no latency verdict stands on it), then
 * the headline figure alone */
void ab_make_verdict(struct ab *x)
{
	const struct fig *o = fig_path(x, AB_HEADLINE), *s = fig_path(x, "server_ms.p50");
	size_t len = sizeof(x->verdict);
	int n = 0;

	for (int i = 0; i < 2; i++)
		x->failed[i] = ab_side_share(x, i) > x->max_failed;
	if (x->nvoid && x->nused < 2) {
		snprintf(x->verdict, len, "backend saturated: void in %d of %d rounds (a worker busy over %.0f %%): the "
			 "backend, not the proxy, was the limit; no verdict", x->nvoid, x->rounds, 100 * x->bbusy);
		return;
	}
	if (x->failed[0] || x->failed[1]) {
		n = snprintf(x->verdict, len, "%s failed", x->failed[0] && x->failed[1] ? "A and B" : x->failed[0] ? "A" : "B");
		for (int i = 0; i < 2; i++)
			if (x->failed[i] && (size_t)n < len) {
				n += snprintf(x->verdict + n, len - (size_t)n, "; %c: ", 'A' + i);
				n += side_why(x, i, x->verdict + n, (size_t)n < len ? len - (size_t)n : 0);
			}
		if ((size_t)n < len)
			snprintf(x->verdict + n, len - (size_t)n, "; over --max-failed %g %%: no latency verdict",
				 x->max_failed * 100);
		return;
	}
	if (o && (o->r.lo > 0 || o->r.hi < 0))
		n = snprintf(x->verdict, len, "B %s %.3f ms (95 %% CI %.3f to %.3f) to the time to first byte beyond the "
			     "server (other p50)", o->r.mean > 0 ? "adds" : "saves", fabs(o->r.mean),
			     fabs(o->r.lo > 0 ? o->r.lo : o->r.hi), fabs(o->r.lo > 0 ? o->r.hi : o->r.lo));
	else if (o)
		n = snprintf(x->verdict, len, "no difference in other (p50) detectable (95 %% CI %+.3f to %+.3f ms)",
			     o->r.lo, o->r.hi);
	else
		n = snprintf(x->verdict, len, "no other (p50) on both sides in 2 rounds: no verdict");
	if (s && (size_t)n < len)
		n += snprintf(x->verdict + n, len - (size_t)n, "; the server's own time %s",
			 !s->holm ? "did not change detectably" : "changed: look at the target, not the path");
	if (x->nvoid && (size_t)n < len)
		snprintf(x->verdict + n, len - (size_t)n, "; %d of %d rounds void (backend saturated)", x->nvoid, x->rounds);
}

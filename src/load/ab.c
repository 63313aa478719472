/* hxload ab: the same load on A and B (a URL direct and through a proxy, or two proxy settings) in alternating rounds, every round's JSON kept, and B - A with its confidence interval for each figure. */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "lc_cmd.h"
#include "lc_guard.h"
#include "runs.h"
#include "stats_t.h"

#define AB_MAX_ROUNDS 50
#define AB_MAX_ARGS   200
#define AB_MAX_FIG    48
#define AB_HEADLINE   "other_ms.p50" /* the added latency: the one figure the verdict is on */

/* a figure of a run: its JSON path ("other_ms.p50", "cpu.proxy.us_per_request") */
struct fig {
	char path[96], name[64];
	int pct;                     /* B - A in percent (a rate), else in its own unit */
	int lat;                     /* a figure of the answers (a histogram's): a round counts where both sides had some */
	double a[AB_MAX_ROUNDS], b[AB_MAX_ROUNDS];
	uint8_t in[2][AB_MAX_ROUNDS]; /* the run of that side and round had it */
	int have;                    /* two rounds or more to pair, not all zero */
	double ma, mb;
	struct lc_paired r;          /* B - A over the rounds paired */
	int holm;                    /* not the headline: Holm's correction over the others rejects "no difference" */
};

struct ab {
	const char *url[2], *keep, *html, *from;
	const char *pass[AB_MAX_ARGS]; /* the load options both sides run with */
	int npass, rounds, json, closed, have_rate;
	double max_failed;           /* a side with more failed requests than this share failed */
	char rate[32];
	char file[2][AB_MAX_ROUNDS][512];
	char why[2][AB_MAX_ROUNDS][200]; /* a run without a result: why, "" when it had one */
	int used[AB_MAX_ROUNDS];     /* both runs of the round gave a result: it is paired */
	int nused;
	uint64_t answered[2][AB_MAX_ROUNDS];
	struct fig fig[AB_MAX_FIG];
	int nfig;
	struct lc_stats pooled[2];
	struct lc_why first_bad[2];  /* each side's first unexpected answer, quoted */
	char verdict[512];           /* the one line the text ends with and the page shows */
	int failed[2];               /* the side failed: its failed share over --max-failed */
	const char *bstats;          /* --backend-stats: hxterm's /stats.json, NULL: no guard */
	double bbusy;                /* --backend-busy, a share */
	struct lc_guard_run guard[2][AB_MAX_ROUNDS];
	int nvoid;                   /* rounds void: the backend saturated in one of their runs */
	int guarded;                 /* a run had its backend's share (now or kept in <keep>) */
};

/* round <k> void: the backend saturated in one of its runs */
static int round_void(const struct ab *x, int k)
{
	return x->guard[0][k].saturated || x->guard[1][k].saturated;
}

static int usage(FILE *f, int rc)
{
	fprintf(f, "Usage: hxload ab [--rounds N] [--keep DIR] [--closed] [--json] [--html FILE]\n"
		   "                 [--max-failed PCT] [--from DIR] [--backend-stats URL] [--backend-busy PCT]\n"
		   "                 [load options: -c -m -t -d -w -R --h2 --pid NAME=PID ...] A_URL B_URL\n"
		   "What does B add to A? The same load on A (a URL direct) and B (the same through\n"
		   "the proxy, or another proxy setting), in N rounds (5) ordered ABBA BAAB... so that\n"
		   "drift cancels, every round's --json kept in DIR (hxload-ab-<time>). Reported: B - A\n"
		   "for the rate, the latency percentiles, the server's time, other (the time to first\n"
		   "byte beyond the server: network and proxy), the body beyond the server's pacing,\n"
		   "the client's queue and each --pid process's CPU per request and per MiB, each\n"
		   "with its 95 %% confidence interval over the rounds (paired). Open loop at one -R\n"
		   "for both sides; without -R, half the rate A reaches closed loop in a 2 s probe.\n"
		   "--closed: both closed loop, for capacity.\n"
		   "The verdict is on one figure, other p50 (the added latency), at 95 %%; the other\n"
		   "rows' verdicts are corrected for their number (Holm). Latency rows are over the\n"
		   "answered requests only. A side whose failed requests (errors, and answers of a\n"
		   "status --expect (2xx) does not name) pass --max-failed PCT (1) of its requests\n"
		   "failed: the verdict says so and the exit status is 1. A run that gave no result\n"
		   "drops its round from the pairs; under 2 rounds left, no table (exit 1).\n"
		   "--from DIR: no runs, the a1.json b1.json ... a --keep DIR holds read again.\n"
		   "--backend-stats URL (hxterm's): a round with a worker over --backend-busy PCT (80) is void.\n");
	return rc;
}

/* one run of side <s> (0: A, 1: B), its JSON to <out>, its stderr to
 * <err>: the exit status */
static int run_side(struct ab *x, int s, const char *label, const char *out, const char *err, const char *dur)
{
	char *args[AB_MAX_ARGS + 16];
	int n = 0;

	args[n++] = "hxload";
	for (int i = 0; i < x->npass; i++)
		args[n++] = (char *)x->pass[i];
	if (x->rate[0])
		args[n++] = "-R", args[n++] = x->rate;
	if (dur)
		args[n++] = "-d", args[n++] = (char *)dur;
	args[n++] = "--json";
	args[n++] = "-q";
	args[n++] = "--label";
	args[n++] = (char *)label;
	args[n++] = (char *)x->url[s];
	args[n] = NULL;
	return lc_child(args, out, err, NULL);
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

struct read_ctx {
	struct ab *x;
	int side, round;
};

static int read_one(const struct json *r, void *arg)
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

/* B - A per round (paired: the rounds share their minute of the machine),
 * its mean and a t interval over the rounds that pair */
static void fig_stats(const struct ab *x, struct fig *f)
{
	double d[AB_MAX_ROUNDS], sa = 0, sb = 0;
	int n = 0, any = 0;

	for (int k = 0; k < x->rounds; k++) {
		if (!fig_round(x, f, k))
			continue;
		sa += f->a[k];
		sb += f->b[k];
		d[n++] = f->pct ? (f->a[k] > 0 ? (f->b[k] / f->a[k] - 1) * 100 : 0) : f->b[k] - f->a[k];
		/* WHY: us per MiB of a run without bodies, a queue never used: no row */
		any |= f->a[k] != 0 || f->b[k] != 0;
	}
	f->have = n >= 2 && any;
	f->ma = n ? sa / n : 0;
	f->mb = n ? sb / n : 0;
	lc_paired(d, n, &f->r);
}

static int is_headline(const struct fig *f)
{
	return !strcmp(f->path, AB_HEADLINE);
}

/* the rows but the headline are one family of tests: Holm keeps the
 * chance that any of them says "differs" wrongly under 5 % */
static void figs_holm(struct ab *x)
{
	double p[LC_HOLM_MAX] = { 0 };
	int idx[LC_HOLM_MAX], rej[LC_HOLM_MAX], n = 0;

	for (int i = 0; i < x->nfig && n < LC_HOLM_MAX; i++)
		if (x->fig[i].have && !x->fig[i].r.flat && !is_headline(&x->fig[i])) {
			idx[n] = i;
			p[n++] = x->fig[i].r.p;
		}
	lc_holm(p, n, 0.05, rej);
	for (int i = 0; i < n; i++)
		x->fig[idx[i]].holm = rej[i];
}

static const char *fig_verdict(const struct fig *f)
{
	static char flat[64];
	int differs = is_headline(f) ? f->r.lo > 0 || f->r.hi < 0 : f->holm;

	if (f->r.flat && f->lat) {
		/* WHY: a quantile is a bucket's edge; every round's on the same
		 * edges is an equal difference, no spread, no certainty */
		snprintf(flat, sizeof(flat), "within one bucket (\u00b1%.1f %%)", 100.0 / HIST_SUB);
		return flat;
	}
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
static uint64_t side_failed(const struct ab *x, int s)
{
	return lc_stats_errors(&x->pooled[s]) + x->pooled[s].unexpected;
}

static double side_share(const struct ab *x, int s)
{
	uint64_t all = x->pooled[s].reqs + lc_stats_errors(&x->pooled[s]);

	return all ? (double)side_failed(x, s) / (double)all : 1;
}

/* "100.0 % of its requests failed (reset 4000; the first unexpected answer:
 * HTTP/1.1 400 Bad Request, "...")" */
static int side_why(const struct ab *x, int s, char *buf, size_t len)
{
	const struct lc_stats *T = &x->pooled[s];
	int n = snprintf(buf, len, "%.1f %% of its requests failed (", 100 * side_share(x, s));

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
static void make_verdict(struct ab *x)
{
	const struct fig *o = fig_path(x, AB_HEADLINE), *s = fig_path(x, "server_ms.p50");
	size_t len = sizeof(x->verdict);
	int n = 0;

	for (int i = 0; i < 2; i++)
		x->failed[i] = side_share(x, i) > x->max_failed;
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
	if (o && o->r.flat)
		n = snprintf(x->verdict, len, "other (p50) differs by %+.3f ms every round: within one bucket of the histogram "
			     "(\u00b1%.1f %%), no interval", o->r.mean, 100.0 / HIST_SUB);
	else if (o && (o->r.lo > 0 || o->r.hi < 0))
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

/* the rounds that gave no result, named: "B3 (exit 1: connect failed ...)" */
static void failed_runs_text(const struct ab *x)
{
	for (int k = 0; k < x->rounds; k++)
		for (int s = 0; s < 2; s++)
			if (x->why[s][k][0])
				printf("round %-3d failed: %c%d gave no result (%s); the round is left out of the pairs\n", k + 1,
				       'A' + s, k + 1, x->why[s][k]);
	for (int k = 0; k < x->rounds; k++)
		for (int s = 0; s < 2; s++)
			if (x->guard[s][k].saturated) {
				char why[160];

				lc_guard_why(&x->guard[s][k], x->bbusy, why, sizeof(why));
				printf("round %-3d backend saturated: void (%s) in %c%d; the round is left out of the pairs\n",
				       k + 1, why, 'A' + s, k + 1);
			}
}

static void failures_text(const struct ab *x)
{
	printf("%-20s %12llu %12llu  %s\n", "answered", (unsigned long long)x->pooled[0].reqs,
	       (unsigned long long)x->pooled[1].reqs, "(latency rows: over these only)");
	printf("%-20s %12llu %12llu  %.1f %% / %.1f %% (errors + unexpected status; over %g %%: failed)\n", "failed",
	       (unsigned long long)side_failed(x, 0), (unsigned long long)side_failed(x, 1), 100 * side_share(x, 0),
	       100 * side_share(x, 1), x->max_failed * 100);
}

static void report_text(struct ab *x)
{
	printf("hxload ab: %d rounds ABBA (%d paired), %s; every run's JSON in %s\nA  %s\nB  %s\n", x->rounds, x->nused,
	       x->closed ? "closed loop" : x->rate[0] || x->have_rate ? "open loop, the same -R" : "as the options say",
	       x->keep, x->url[0],
	       x->url[1]);
	if (x->rate[0])
		printf("rate     %s req/s on both sides\n", x->rate);
	failed_runs_text(x);
	printf("%-20s %12s %12s %12s  %-26s %s\n", "figure (ms unless named)", "A (mean)", "B (mean)", "B - A",
	       "95 % interval", "verdict (others: Holm)");
	failures_text(x);
	for (int i = 0; i < x->nfig; i++) {
		const struct fig *f = &x->fig[i];
		char d[32], ci[64];

		if (!f->have)
			continue;
		snprintf(d, sizeof(d), f->pct ? "%+.1f %%" : "%+.3f", f->r.mean);
		snprintf(ci, sizeof(ci), f->pct ? "%+.1f .. %+.1f %%" : "%+.3f .. %+.3f", f->r.lo, f->r.hi);
		printf("%-20s %12.3f %12.3f %12s  %-26s %s%s\n", f->name, f->ma, f->mb, d, ci, fig_verdict(f),
		       is_headline(f) ? " (the verdict's figure)" : "");
	}
	printf("verdict: %s\n", x->verdict);
}

static void side_json(FILE *f, const struct ab *x, int s)
{
	fprintf(f, "{\"url\": ");
	lc_jstr(f, x->url[s]);
	fprintf(f, ", \"answered\": %llu, \"failed\": %llu, \"failed_share\": %.6g, \"verdict_failed\": %s",
		(unsigned long long)x->pooled[s].reqs, (unsigned long long)side_failed(x, s), side_share(x, s),
		x->failed[s] ? "true" : "false");
	lc_why_json(f, &x->first_bad[s]);
	fprintf(f, "}");
}

/* , "backend": {...}: each run's busiest worker, the rounds void */
static void backend_json(FILE *f, const struct ab *x)
{
	if (!x->guarded)
		return;
	fprintf(f, ", \"backend\": {\"stats\": ");
	lc_jstr(f, x->bstats ? x->bstats : "");
	fprintf(f, ", \"busy_limit\": %.6g, \"void_rounds\": %d, \"rounds\": [", x->bbusy, x->nvoid);
	for (int k = 0; k < x->rounds; k++)
		fprintf(f, "%s{\"a_busy\": %.6g, \"a_thread\": %d, \"b_busy\": %.6g, \"b_thread\": %d, \"void\": %s}",
			k ? ", " : "", x->guard[0][k].share, x->guard[0][k].worker, x->guard[1][k].share,
			x->guard[1][k].worker, round_void(x, k) ? "true" : "false");
	fprintf(f, "]}");
}

static void report_json(FILE *f, struct ab *x)
{
	fprintf(f, "{\"ab\": 1, \"rounds\": %d, \"rounds_paired\": %d, \"order\": \"ABBA\", \"rate\": %s, \"closed\": %d, "
		"\"max_failed\": %g, \"headline\": \"%s\", \"a\": ", x->rounds, x->nused, x->rate[0] ? x->rate : "0",
		x->closed, x->max_failed, AB_HEADLINE);
	side_json(f, x, 0);
	fprintf(f, ", \"b\": ");
	side_json(f, x, 1);
	fprintf(f, ", \"verdict\": ");
	lc_jstr(f, x->verdict);
	fprintf(f, ", \"keep\": ");
	lc_jstr(f, x->keep);
	fprintf(f, ", \"runs\": {");
	for (int s = 0; s < 2; s++) {
		fprintf(f, "%s\"%c\": [", s ? ", " : "", 'a' + s);
		for (int k = 0; k < x->rounds; k++) {
			fprintf(f, "%s", k ? ", " : "");
			lc_jstr(f, x->file[s][k]);
		}
		fprintf(f, "]");
	}
	fprintf(f, "}, \"failed_runs\": [");
	for (int k = 0, first = 1; k < x->rounds; k++)
		for (int s = 0; s < 2; s++)
			if (x->why[s][k][0]) {
				fprintf(f, "%s{\"run\": \"%c%d\", \"why\": ", first ? "" : ", ", 'A' + s, k + 1);
				lc_jstr(f, x->why[s][k]);
				fprintf(f, "}");
				first = 0;
			}
	fprintf(f, "]");
	backend_json(f, x);
	fprintf(f, ", \"figures\": {");
	for (int i = 0, first = 1; i < x->nfig; i++) {
		const struct fig *g = &x->fig[i];

		if (!g->have)
			continue;
		fprintf(f, "%s\"%s\": {\"unit\": \"%s\", \"rounds\": %d, \"a\": %.6g, \"b\": %.6g, \"diff\": %.6g, "
			"\"ci_lo\": %.6g, \"ci_hi\": %.6g, \"p\": %.6g, \"flat\": %s, \"verdict\": ", first ? "" : ", ",
			g->path, g->pct ? "pct" : "abs", g->r.n, g->ma, g->mb, g->r.mean, g->r.lo, g->r.hi, g->r.p,
			g->r.flat ? "true" : "false");
		lc_jstr(f, fig_verdict(g));
		fprintf(f, "}");
		first = 0;
	}
	fprintf(f, "}}");
}

static const char page_body[] =
"<h1>hxload ab: what B adds to A</h1>\n<p class=\"meta\" id=\"meta\"></p>\n"
"<p id=\"verdict\"></p>\n<table id=\"figures\"></table>\n"
"<h2>Latency: percentile spectrum, A and B</h2><canvas id=\"spectrum\" width=\"960\" height=\"300\"></canvas>\n"
"<h2>Other (time to first byte beyond the server: network and proxy), A and B</h2>"
"<canvas id=\"other\" width=\"960\" height=\"300\"></canvas>\n"
"<h2>CPU per request</h2><canvas id=\"cpu\" width=\"960\" height=\"120\"></canvas>\n"
"<script id=\"data\" type=\"application/json\">\n";

static const char page_charts[] =
"const D = JSON.parse(document.getElementById('data').textContent), X = D.ab;\n"
"document.getElementById('meta').textContent = 'A ' + X.a.url + ' \\u2014 B ' + X.b.url + ' \\u2014 ' +\n"
"  X.rounds + ' rounds ABBA' + (X.rate ? ' at ' + X.rate + ' req/s' : '') + ' \\u2014 runs in ' + X.keep;\n"
"(function table() {\n"
"  let h = '<tr><th>figure</th><th>A</th><th>B</th><th>B - A</th><th>95 % interval</th><th>verdict (others: Holm)</th></tr>';\n"
"  h += '<tr><td>answered (latency rows: over these only)</td><td>' + X.a.answered + '</td><td>' + X.b.answered + '</td></tr>';\n"
"  h += '<tr><td>failed (errors + unexpected status)</td><td id=\"failed-a\">' + (100 * X.a.failed_share).toFixed(1) +\n"
"    ' %</td><td id=\"failed-b\">' + (100 * X.b.failed_share).toFixed(1) + ' %</td></tr>';\n"
"  for (const k in X.figures) {\n"
"    const f = X.figures[k], u = f.unit === 'pct' ? ' %' : '';\n"
"    h += '<tr><td>' + k + '</td><td>' + fmt(f.a) + '</td><td>' + fmt(f.b) + '</td><td id=\"diff-' + k.replace(/[^a-z0-9]/gi, '-') +\n"
"      '\">' + (f.diff >= 0 ? '+' : '') + f.diff.toFixed(3) + u + '</td><td>' + f.ci_lo.toFixed(3) + ' .. ' + f.ci_hi.toFixed(3) + u +\n"
"      '</td><td>' + f.verdict + '</td></tr>';\n"
"  }\n"
"  document.getElementById('figures').innerHTML = h;\n"
"  const v = document.getElementById('verdict');\n"
"  v.textContent = X.verdict.charAt(0).toUpperCase() + X.verdict.slice(1) + '.';\n"
"  // WHY a banner: a failed side's charts look like a fast one's\n"
"  if (X.a.verdict_failed || X.b.verdict_failed) v.className = 'warning', v.setAttribute('role', 'alert'),\n"
"    v.style.cssText = 'border: 3px solid #c0392b; background: #fdecea; color: #611; padding: 0.6em 1em; font-weight: bold';\n"
"  // the saturation guard: rounds where the backend, not the proxy, was the limit\n"
"  if (X.backend && X.backend.void_rounds) v.insertAdjacentHTML('afterend', '<p class=\"warning\" id=\"backend-void\" ' +\n"
"    'style=\"border: 3px solid #d68910; padding: 0.6em 1em\">Backend saturated: void in ' + X.backend.void_rounds +\n"
"    ' of ' + X.rounds + ' rounds (a worker busy over ' + (100 * X.backend.busy_limit).toFixed(0) + ' %: ' +\n"
"    X.backend.rounds.map((r, i) => 'round ' + (i + 1) + ' A ' + (100 * r.a_busy).toFixed(0) + ' %, B ' +\n"
"    (100 * r.b_busy).toFixed(0) + ' %' + (r.void ? ' void' : '')).join('; ') + '), left out of the pairs.</p>');\n"
"})();\n"
"(function spectra() {\n"
"  const mk = n => ({name: n, pts: (D.spectrum[n] || []).filter(p => p[0] < 1).map(p => [p[0], p[1], {'data-q': p[0]}])});\n"
"  lines('spectrum', [mk('A latency'), mk('B latency')], {x: 'pct', xlabel: 'percentile', ylabel: 'ms'});\n"
"  lines('other', [mk('A other'), mk('B other')], {x: 'pct', xlabel: 'percentile', ylabel: 'ms'});\n"
"})();\n"
"(function cpu() {\n"
"  const items = [];\n"
"  for (const k in X.figures) {\n"
"    const m = k.match(/^cpu\\.(.+)\\.us_per_request$/);\n"
"    if (m) items.push(['A ' + m[1], X.figures[k].a, COL[0]], ['B ' + m[1], X.figures[k].b, COL[1]]);\n"
"  }\n"
"  if (!items.length) document.getElementById('cpu').insertAdjacentText('beforebegin', 'No --pid NAME=PID was given. ');\n"
"  else bars('cpu', items, 'us');\n"
"})();\n"
"</script>\n</body></html>\n";

static int report_html(struct ab *x)
{
	FILE *f = fopen(x->html, "w");

	if (!f)
		return -1;
	lc_html_open(f, "hxload ab");
	fputs(page_body, f);
	fprintf(f, "{\"ab\": ");
	report_json(f, x);
	fprintf(f, ", \"spectrum\": {");
	lc_html_spectrum(f, "A latency", &x->pooled[0].h[H_LAT], 1);
	lc_html_spectrum(f, "B latency", &x->pooled[1].h[H_LAT], 0);
	lc_html_spectrum(f, "A other", &x->pooled[0].h[H_OTH], 0);
	lc_html_spectrum(f, "B other", &x->pooled[1].h[H_OTH], 0);
	fprintf(f, "}}\n");
	lc_html_scripts(f);
	fputs(page_charts, f);
	return fclose(f);
}

/* ab's own options out of <argv>; the rest goes to both sides. 0, or the
 * exit status of a usage error */
static int parse(struct ab *x, int argc, char **argv)
{
	int last;

	if (argc < 3)
		return usage(stderr, 2);
	last = argc - 2; /* WHY: the two URLs end the line, as hxload's one URL does */
	x->url[0] = argv[last];
	x->url[1] = argv[last + 1];
	for (int i = 1; i < last; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return usage(stdout, 0) ? 2 : 1;
		if (!strcmp(a, "--rounds") && i + 1 < last) {
			x->rounds = atoi(argv[++i]);
			if (x->rounds < 2 || x->rounds > AB_MAX_ROUNDS)
				return fprintf(stderr, "hxload ab: --rounds %s: 2 to 50\n", argv[i]), 2;
		} else if (!strcmp(a, "--keep") && i + 1 < last) {
			x->keep = argv[++i];
		} else if (!strcmp(a, "--html") && i + 1 < last) {
			x->html = argv[++i];
		} else if (!strcmp(a, "--from") && i + 1 < last) {
			x->from = argv[++i];
		} else if (!strcmp(a, "--max-failed") && i + 1 < last) {
			char *end;

			x->max_failed = strtod(argv[++i], &end) / 100;
			if (end == argv[i] || *end || !(x->max_failed >= 0 && x->max_failed <= 1))
				return fprintf(stderr, "hxload ab: --max-failed %s: a percentage, 0 to 100\n", argv[i]), 2;
		} else if (!strcmp(a, "--backend-stats") && i + 1 < last) {
			if (lc_guard_url(x->bstats = argv[++i]) < 0)
				return fprintf(stderr, "hxload ab: --backend-stats %s: hxterm's --stats address, "
						       "http://HOST:PORT/stats.json\n", argv[i]), 2;
		} else if (!strcmp(a, "--backend-busy") && i + 1 < last) {
			if (lc_guard_pct(argv[++i], &x->bbusy) < 0)
				return fprintf(stderr, "hxload ab: --backend-busy %s: a percentage, 1 to 100\n", argv[i]), 2;
		} else if (!strcmp(a, "--json")) {
			x->json = 1;
		} else if (!strcmp(a, "--closed")) {
			x->closed = 1;
		} else if (!strcmp(a, "--label") || !strcmp(a, "--log") || !strcmp(a, "--interval") ||
			   !strcmp(a, "--start-at") || !strcmp(a, "-q")) {
			return fprintf(stderr, "hxload ab: %s is ab's to set (each run is labelled A or B)\n", a), 2;
		} else {
			if (x->npass == AB_MAX_ARGS)
				return fprintf(stderr, "hxload ab: too many options\n"), 2;
			x->have_rate |= !strcmp(a, "-R") || !strcmp(a, "--stages");
			x->pass[x->npass++] = a;
		}
	}
	if (x->closed && x->have_rate)
		return fprintf(stderr, "hxload ab: --closed and -R: one or the other\n"), 2;
	return 0;
}

/* without -R: A closed loop for 2 s, then half its rate on both sides */
static int probe_rate(struct ab *x)
{
	char out[600];
	struct json *j;
	const char *err;
	char *text;
	FILE *f;
	long n;
	int rc;

	snprintf(out, sizeof(out), "%s/probe-a.json", x->keep);
	if ((rc = run_side(x, 0, "probe", out, NULL, "2")) != 0)
		return fprintf(stderr, "hxload ab: the probe of A failed (exit %d): %s\n", rc, out), rc > 0 ? rc : 1;
	if (!(f = fopen(out, "r")))
		return 1;
	text = calloc(1, 1 << 20);
	n = text ? (long)fread(text, 1, (1 << 20) - 1, f) : 0;
	fclose(f);
	j = n > 0 ? json_parse(text, &err) : NULL;
	free(text);
	if (!j || json_num(j, "requests_per_second", 0) < 2) {
		json_free(j);
		return fprintf(stderr, "hxload ab: the probe of A answered too little for a rate\n"), 1;
	}
	snprintf(x->rate, sizeof(x->rate), "%.0f", json_num(j, "requests_per_second", 0) / 2);
	json_free(j);
	fprintf(stderr, "hxload ab: open loop at -R %s on both sides (half of A's closed-loop rate); -R sets it, "
		"--closed measures capacity\n", x->rate);
	return 0;
}

/* the first line of <file>, or "" */
static void first_line(const char *file, char *buf, size_t len)
{
	FILE *f = fopen(file, "r");

	buf[0] = 0;
	if (f && fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	if (f)
		fclose(f);
}

/* the backend's share of run <s><k> beside its JSON (a1.backend), for --from */
static void guard_keep(const struct ab *x, int s, int k)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%.*s.backend", (int)strlen(x->file[s][k]) - 5, x->file[s][k]);
	if (!(f = fopen(path, "w")) || fprintf(f, "%.6f %d\n", x->guard[s][k].share, x->guard[s][k].worker) < 0)
		fprintf(stderr, "hxload ab: %s: %s (--from will not see this run's backend)\n", path, strerror(errno));
	if (f)
		fclose(f);
}

/* run <s><k>'s kept share, judged against --backend-busy (absent: none) */
static void guard_read(struct ab *x, int s, int k)
{
	char path[600];
	struct lc_guard_run *r = &x->guard[s][k];
	FILE *f;

	snprintf(path, sizeof(path), "%.*s.backend", (int)strlen(x->file[s][k]) - 5, x->file[s][k]);
	*r = (struct lc_guard_run){ .share = -1, .worker = -1 };
	if (!(f = fopen(path, "r")))
		return;
	if (fscanf(f, "%lf %d", &r->share, &r->worker) == 2 && r->share >= 0) {
		r->saturated = r->share > x->bbusy;
		x->guarded = 1;
	} else {
		r->share = -1;
	}
	fclose(f);
}

/* a run between two reads of the backend's busy time (--backend-stats);
 * a read that fails is said, and the run not judged */
static int guarded_side(struct ab *x, int s, int k, const char *label, const char *err)
{
	static struct lc_guard g;
	int rc;

	lc_guard_before(&g, x->bstats);
	rc = run_side(x, s, label, x->file[s][k], err, NULL);
	lc_guard_after(&g, x->bstats, x->bbusy, &x->guard[s][k], "ab", label);
	if (x->guard[s][k].share >= 0)
		guard_keep(x, s, k);
	return rc;
}

/* every round, ABBA; a run's non-zero exit is said (its result, if any,
 * still counts); 2 when a run could not start (ab's own failure) */
static int run_rounds(struct ab *x)
{
	for (int k = 0; k < x->rounds; k++)
		for (int i = 0; i < 2; i++) {
			/* WHY ABBA: A B, B A, A B...: a drift over the rounds weighs on both alike */
			int s = (k & 1) ^ i, rc;
			char label[16], err[600], line[300];

			snprintf(x->file[s][k], sizeof(x->file[s][k]), "%s/%c%d.json", x->keep, 'a' + s, k + 1);
			snprintf(err, sizeof(err), "%s/%c%d.err", x->keep, 'a' + s, k + 1);
			snprintf(label, sizeof(label), "%c%d", 'A' + s, k + 1);
			rc = guarded_side(x, s, k, label, err);
			if (rc == 2 || rc < 0 || rc == 127)
				return fprintf(stderr, "hxload ab: run %s failed (exit %d): %s\n", label, rc, err), 2;
			first_line(err, line, sizeof(line));
			if (rc)
				fprintf(stderr, "hxload ab: run %s exit %d: %s\n", label, rc, line[0] ? line : "(no reason given)");
		}
	return 0;
}

/* --from DIR: the files a --keep DIR holds, as many rounds as a<k>.json
 * and b<k>.json both are there (or --rounds) */
static int from_dir(struct ab *x, int rounds_given)
{
	struct stat st;
	int k;

	x->keep = x->from;
	for (k = 0; k < (rounds_given ? x->rounds : AB_MAX_ROUNDS); k++)
		for (int s = 0; s < 2; s++) {
			snprintf(x->file[s][k], sizeof(x->file[s][k]), "%s/%c%d.json", x->from, 'a' + s, k + 1);
			if (!rounds_given && stat(x->file[s][k], &st) < 0)
				goto done;
		}
done:
	if (k < 2)
		return fprintf(stderr, "hxload ab: --from %s: no a1.json b1.json a2.json b2.json... in it\n", x->from), 2;
	x->rounds = k;
	return 0;
}

/* a run's result read, or why it has none (an empty file: its stderr's
 * first line) */
static int read_run(struct ab *x, int s, int k)
{
	char err[600], line[160];
	struct stat st;

	snprintf(err, sizeof(err), "%.*s.err", (int)strlen(x->file[s][k]) - 5, x->file[s][k]);
	if (stat(x->file[s][k], &st) < 0 || st.st_size == 0) {
		first_line(err, line, sizeof(line));
		snprintf(x->why[s][k], sizeof(x->why[s][k]), "%s", line[0] ? line : "an empty result");
		return -1;
	}
	if (lc_runs_each("ab", x->file[s][k], read_one, &(struct read_ctx){ x, s, k }) < 0) {
		snprintf(x->why[s][k], sizeof(x->why[s][k]), "not an hxload --json result (the line above says why)");
		return -1;
	}
	return 0;
}

/* the rounds both of whose runs gave a result are paired; 0, or 1 when
 * under 2 remain */
static int read_rounds(struct ab *x)
{
	for (int k = 0; k < x->rounds; k++) {
		int a = read_run(x, 0, k), b = read_run(x, 1, k);

		guard_read(x, 0, k);
		guard_read(x, 1, k);

		x->used[k] = !a && !b && !round_void(x, k);
		x->nused += x->used[k];
		x->nvoid += round_void(x, k);
	}
	/* WHY on with void rounds: the report says the backend was the limit */
	if (x->nused >= 2 || x->nvoid)
		return 0;
	failed_runs_text(x);
	fprintf(stderr, "hxload ab: %d of %d rounds gave a result on both sides: under 2, no comparison\n", x->nused,
		x->rounds);
	return 1;
}

int lc_ab_main(int argc, char **argv)
{
	static struct ab x;
	int rc, rounds_given;

	x.rounds = 5;
	x.max_failed = 0.01;
	x.bbusy = LC_GUARD_BUSY;
	if ((rc = parse(&x, argc, argv)))
		return rc == 1 ? 0 : rc;
	rounds_given = x.rounds != 5;
	if (x.from) {
		if ((rc = from_dir(&x, rounds_given)))
			return rc;
	} else {
		if (!(x.keep = lc_keep_dir("ab", x.keep)))
			return 2;
		if (!x.closed && !x.have_rate && (rc = probe_rate(&x)))
			return rc;
		if ((rc = run_rounds(&x)))
			return rc;
	}
	if (read_rounds(&x))
		return 1;
	for (int i = 0; i < x.nfig; i++)
		fig_stats(&x, &x.fig[i]);
	figs_holm(&x);
	make_verdict(&x);
	if (x.json) {
		report_json(stdout, &x);
		printf("\n");
	} else {
		report_text(&x);
	}
	if (x.html && report_html(&x) < 0)
		return fprintf(stderr, "hxload ab: --html %s: %s\n", x.html, strerror(errno)), 2;
	/* WHY 1 for a run without a result too: the table stands on fewer rounds than asked */
	return x.failed[0] || x.failed[1] || x.nused < x.rounds;
}

/* hxload compare: two settings' runs side by side, each metric's difference with a confidence interval over the runs (or one run a side's blocks of seconds), and a verdict that says when there is none to tell. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "rng.h"
#include "lc_cmd.h"
#include "lc_compare_int.h"
#include "lc_sub.h"
#include "runs.h"
#include "stat.h"

static const char *const m_names[M_MAX] = { "req/s", "p50 (ms)", "p90 (ms)", "p99 (ms)", "p99.9 (ms)",
					    "server p50", "server p99", "other p50", "other p99", "body_oth p50",
					    "queue p99", "CPU us/req", "CPU us/MiB" };
static const char *const m_keys[M_MAX] = { "requests_per_second", "p50_ms", "p90_ms", "p99_ms", "p999_ms",
					   "server_p50_ms", "server_p99_ms", "other_p50_ms", "other_p99_ms",
					   "body_other_p50_ms", "queue_p99_ms", "server_cpu_us_per_request",
					   "server_cpu_us_per_mib" };

struct result {
	double a, b, diff, lo, hi;   /* values, B vs A in %, its interval */
	double df;                   /* the t quantile's degrees of freedom */
	int valid;
};

/* how the intervals were had: over runs, or over one run a side's seconds */
struct method {
	int runs;                    /* 1: runs resampled as wholes (run-to-run noise estimated) */
	int nvalid;                  /* the figures compared: the intervals hold for all at once */
	double each;                 /* the level of each interval, % (Bonferroni) */
	size_t block[2];             /* one run a side: A's and B's block of seconds */
};

static double level; /* --level: the confidence of the intervals, all figures together, % */
static double noise;  /* --noise: the smallest difference that counts, % of A */

/* WHY logarithms for the figures in %: a run-to-run change is a factor
 * (a busier machine takes a share of every request), so runs spread evenly
 * around a mean of logs, and a difference of logs is a ratio */
static double fwd(int m, double x)
{
	return compare_split(m) ? x : log(x);
}

static double back(int m, double d)
{
	return compare_split(m) ? d : (exp(d) - 1) * 100;
}

/* each figure of each run of <s> into <v>[run * M_MAX + m], transformed */
static void run_values(const struct side *s, double *v, int *ok)
{
	static struct unit p;

	for (size_t k = 0; k < s->runs; k++) {
		memset(&p, 0, sizeof(p));
		for (size_t i = s->first[k]; i < s->first[k + 1]; i++)
			compare_pool_add(&p, &s->u[i]);
		for (int m = 0; m < M_MAX; m++) {
			double x = compare_metric(&p, m);

			ok[m] &= compare_split(m) || x > 0;
			v[k * M_MAX + m] = ok[m] ? fwd(m, x) : 0;
		}
	}
}

static double mean_of(const double *v, size_t n, int m)
{
	double s = 0;

	for (size_t k = 0; k < n; k++)
		s += v[k * M_MAX + m];
	return s / (double)n;
}

/* WHY whole runs, with Welch's t: a run's seconds share its minute of the
 * machine (on 12 identical runs here, two changed level midway), so the
 * runs are the independent units; t's tails make up for having three or
 * five, Welch's for a side whose runs spread more (a pooled variance called
 * 7 of 100 identical triples different, Welch's 5); a side of one run takes
 * the other's spread */
static void by_runs(const struct side *A, const struct side *B, struct result *res, struct method *how)
{
	double *va = calloc(A->runs * M_MAX, sizeof(double)), *vb = calloc(B->runs * M_MAX, sizeof(double));
	double col[2][MAX_RUNS];
	int ok[M_MAX];

	for (int m = 0; m < M_MAX; m++)
		ok[m] = res[m].valid;
	if (!va || !vb) {
		memset(ok, 0, sizeof(ok));
	} else {
		run_values(A, va, ok);
		run_values(B, vb, ok);
	}
	for (int m = 0; m < M_MAX; m++) {
		double d;

		if (!(res[m].valid = ok[m]))
			continue;
		for (size_t k = 0; k < A->runs; k++)
			col[0][k] = va[k * M_MAX + m];
		for (size_t k = 0; k < B->runs; k++)
			col[1][k] = vb[k * M_MAX + m];
		stat_t_interval(col[0], A->runs, col[1], B->runs, how->each / 100, &d, &res[m].lo, &res[m].hi, &res[m].df);
		res[m].a = compare_split(m) ? mean_of(va, A->runs, m) : exp(mean_of(va, A->runs, m));
		res[m].b = compare_split(m) ? mean_of(vb, B->runs, m) : exp(mean_of(vb, B->runs, m));
		res[m].diff = back(m, d);
		res[m].lo = back(m, res[m].lo);
		res[m].hi = back(m, res[m].hi);
	}
	free(va);
	free(vb);
}

/* a side's seconds as its rate, the series whose correlation sets the blocks */
static size_t side_block(const struct side *s)
{
	double *x = calloc(s->n, sizeof(double));
	size_t len;

	if (!x)
		return s->n / 2 ? s->n / 2 : 1;
	for (size_t i = 0; i < s->n; i++)
		x[i] = s->u[i].secs > 0 ? s->u[i].reqs / s->u[i].secs : 0;
	len = stat_block_len(x, s->n);
	free(x);
	return len;
}

static void pool_draw(const struct side *s, struct rng *r, size_t len, size_t *idx, struct unit *p)
{
	memset(p, 0, sizeof(*p));
	stat_block_draw(r, s->n, len, idx);
	for (size_t i = 0; i < s->n; i++)
		compare_pool_add(p, &s->u[idx[i]]);
}

/* WHY blocks of seconds, their standard error and t: with one run a side
 * only its seconds are there, and they are correlated; resampled one by one
 * they flagged 54 % of identical pairs of simulated runs (seconds correlated
 * at 0.8), in blocks with percentile intervals 15 to 20 %, in long blocks
 * with t on as many degrees of freedom as blocks 6 % (tests/unit/lc_stat.c) */
static void by_blocks(const struct side *A, const struct side *B, int nres, struct result *res, struct method *how)
{
	static struct unit pa, pb;
	size_t *idx = calloc(A->n > B->n ? A->n : B->n, sizeof(size_t));
	double *d[M_MAX], t, df;
	struct rng r;

	rng_seed(&r, 0x6878636d70ULL); /* WHY fixed: the same files give the same interval */
	df = (double)(A->n / how->block[0] + B->n / how->block[1]) - 2;
	t = stat_t_quantile(0.5 + how->each / 200, df);
	for (int m = 0; m < M_MAX; m++)
		d[m] = res[m].valid && idx ? calloc((size_t)nres, sizeof(double)) : NULL;
	for (int k = 0; k < nres && idx; k++) {
		pool_draw(A, &r, how->block[0], idx, &pa);
		pool_draw(B, &r, how->block[1], idx, &pb);
		for (int m = 0; m < M_MAX; m++)
			if (d[m])
				d[m][k] = fwd(m, compare_metric(&pb, m)) - fwd(m, compare_metric(&pa, m));
	}
	for (int m = 0; m < M_MAX; m++) {
		double mid = res[m].valid ? fwd(m, res[m].b) - fwd(m, res[m].a) : 0, se = d[m] ? stat_sd(d[m], (size_t)nres) : 0;

		/* WHY: a resample whose figure is 0 (no CPU tick in its seconds)
		 * has no logarithm, and then no interval can be had */
		res[m].valid = d[m] && isfinite(se) && isfinite(mid);
		res[m].df = df;
		res[m].lo = back(m, mid - t * se);
		res[m].hi = back(m, mid + t * se);
		free(d[m]);
	}
	free(idx);
}

/* 0, or -1 after a line on stderr when one run a side has too few
 * seconds for three blocks in all */
static int compare(const struct side *A, const struct side *B, int nres, struct result *res, struct method *how)
{
	static struct unit pa, pb;

	compare_pool_all(A, &pa);
	compare_pool_all(B, &pb);
	how->nvalid = 0;
	for (int m = 0; m < M_MAX; m++) {
		res[m].a = compare_metric(&pa, m);
		res[m].b = compare_metric(&pb, m);
		res[m].valid = (res[m].a > 0 || (compare_split(m) && res[m].b > 0)) && (compare_split(m) || res[m].b > 0) &&
			       (m < M_CPU_REQ || (A->cpu && B->cpu)) &&
			       (compare_iv[m] < 0 || (A->has[compare_iv[m]] && B->has[compare_iv[m]]));
		res[m].diff = res[m].valid ? compare_diff(m, res[m].a, res[m].b) : 0;
		how->nvalid += res[m].valid;
	}
	/* WHY Bonferroni: a dozen figures at 95 % each would call one of them
	 * different in a third of identical pairs; --level holds for all */
	how->each = 100 - (100 - level) / (how->nvalid ? how->nvalid : 1);
	how->runs = A->runs + B->runs >= 3;
	if (how->runs) {
		by_runs(A, B, res, how);
		return 0;
	}
	how->block[0] = side_block(A);
	how->block[1] = side_block(B);
	/* WHY: blocks, not seconds, are what vary independently; under three
	 * in all, t has no degree of freedom left */
	if (A->n / how->block[0] + B->n / how->block[1] < 3) {
		fprintf(stderr, "hxload compare: one run a side: A's %zu and B's %zu seconds make %zu and %zu blocks "
			"(of %zu and %zu seconds, as long as their correlation), too few for an interval: give longer "
			"runs, or three runs in all\n", A->n, B->n, A->n / how->block[0], B->n / how->block[1],
			how->block[0], how->block[1]);
		return -1;
	}
	by_blocks(A, B, nres, res, how);
	return 0;
}

/* WHY: two runs of one setting on a shared machine differ by a percent or
 * two (its other tenants, the CPU's clock); a difference smaller than
 * --noise is named as such rather than called a change */
static int in_noise(int m, const struct result *x)
{
	double rel = compare_split(m) ? (x->a > 0 ? 100 * x->diff / x->a : 100) : x->diff;

	return fabs(rel) < noise;
}

/* the words of a verdict: better or worse, as the metric goes; with one run
 * a side only that the two runs differ, the setting's part unknown */
static const char *verdict(int m, const struct result *x, const struct method *how)
{
	int up = x->lo > 0, down = x->hi < 0;

	if (!up && !down)
		return "no difference detectable";
	if (in_noise(m, x))
		return "within noise";
	if (!how->runs)
		return "runs differ";
	if (m == M_RPS)
		return up ? "faster" : "slower";
	if (m >= M_CPU_REQ)
		return up ? "more server CPU" : "less server CPU";
	return up ? "higher" : "lower";
}

/* what the intervals rest on, a line or two before the table */
static void report_method(const struct method *how)
{
	printf("%g %% intervals for the %d figures together (each %.2f %%), ", level, how->nvalid, how->each);
	if (how->runs) {
		printf("over the runs: Welch's t (Student's, the other's spread, when a side has one run)\n");
		return;
	}
	printf("over blocks of %zu and %zu seconds\n"
	       "one run a side: how much runs of one setting differ cannot be estimated; the intervals hold\n"
	       "only these two runs' seconds, so a difference is called 'runs differ': give three runs a side\n",
	       how->block[0], how->block[1]);
}

static void report_verdict(const struct result *x, const struct method *how)
{
	int sure = x->lo > 0 || x->hi < 0;

	if (sure && in_noise(M_RPS, x))
		printf("verdict: B differs from A by %+.1f %% (%g %% CI %+.1f to %+.1f %%), within the %g %% noise (--noise)\n",
		       x->diff, level, x->lo, x->hi, noise);
	else if (sure && !how->runs)
		printf("verdict: B's run was %.1f %% %s than A's (%g %% CI %+.1f to %+.1f %%), but with one run a side "
		       "that may be the machine, not the setting\n", fabs(x->diff), x->lo > 0 ? "faster" : "slower", level,
		       x->lo, x->hi);
	else if (sure)
		printf("verdict: B is %.1f %% %s than A (%g %% CI %.1f to %.1f %%)\n", fabs(x->diff),
		       x->lo > 0 ? "faster" : "slower", level, fabs(x->lo > 0 ? x->lo : x->hi),
		       fabs(x->lo > 0 ? x->hi : x->lo));
	else
		printf("verdict: no difference in throughput detectable (%g %% CI %+.1f to %+.1f %%)\n", level, x->lo,
		       x->hi);
}

static void report_text(const struct side *A, const struct side *B, const struct result *res, const struct method *how)
{
	printf("A: %zu run%s%s%s, %zu interval%s\nB: %zu run%s%s%s, %zu interval%s\n", A->runs, A->runs > 1 ? "s" : "",
	       A->label[0] ? " " : "", A->label, A->n - A->run_units, A->n - A->run_units == 1 ? "" : "s", B->runs,
	       B->runs > 1 ? "s" : "", B->label[0] ? " " : "", B->label, B->n - B->run_units,
	       B->n - B->run_units == 1 ? "" : "s");
	report_method(how);
	printf("%-12s %12s %12s %9s  %g %% interval%*s %s\n", "metric", how->runs ? "A (mean)" : "A",
	       how->runs ? "B (mean)" : "B", "B vs A", level, level >= 10 ? 8 : 9, "", "verdict");
	for (int m = 0; m < M_MAX; m++) {
		char ci[64];

		if (!res[m].valid)
			continue;
		if (compare_split(m)) {
			snprintf(ci, sizeof(ci), "%+.3f .. %+.3f ms", res[m].lo, res[m].hi);
			printf("%-12s %12.3f %12.3f %+7.3f ms  %-20s %s\n", m_names[m], res[m].a, res[m].b, res[m].diff,
			       ci, verdict(m, &res[m], how));
			continue;
		}
		snprintf(ci, sizeof(ci), "%+.1f .. %+.1f %%", res[m].lo, res[m].hi);
		printf("%-12s %12.3f %12.3f %+8.1f %%  %-20s %s\n", m_names[m], res[m].a, res[m].b, res[m].diff, ci,
		       verdict(m, &res[m], how));
	}
	report_verdict(&res[M_RPS], how);
}

static void report_json(const struct side *A, const struct side *B, const struct result *res, const struct method *how,
			const char *unit)
{
	printf("{\"compare\": 1, \"unit\": \"%s\", \"level\": %g, \"level_each\": %.4f, \"figures\": %d, "
	       "\"run_noise\": \"%s\", \"noise_pct\": %g, \"a\": {\"runs\": %zu, \"units\": %zu}, "
	       "\"b\": {\"runs\": %zu, \"units\": %zu}, \"metrics\": {", unit, level, how->each, how->nvalid,
	       how->runs ? "estimated" : "unknown", noise, A->runs, A->n, B->runs, B->n);
	for (int m = 0, first = 1; m < M_MAX; m++) {
		if (!res[m].valid)
			continue;
		const char *u = compare_split(m) ? "ms" : "pct";

		printf("%s\"%s\": {\"a\": %.6g, \"b\": %.6g, \"diff_%s\": %.3f, \"ci_lo_%s\": %.3f, "
		       "\"ci_hi_%s\": %.3f, \"df\": %.2f, \"verdict\": \"%s\"}", first ? "" : ", ", m_keys[m], res[m].a,
		       res[m].b, u, res[m].diff, u, res[m].lo, u, res[m].hi, res[m].df, verdict(m, &res[m], how));
		first = 0;
	}
	printf("}, \"verdict\": \"%s\"}\n", verdict(M_RPS, &res[M_RPS], how));
}

/* compare's options */
struct cmp_opts {
	int json, nres;
	double level, noise;
};

#define F(f) OPT_F(struct cmp_opts, f)

static const struct opt compare_rows[] = {
	{ "json", 0, .kind = OPT_FLAG, F(json), .help = "one JSON object" },
	{ "resamples", 0, .kind = OPT_NUM, F(nres), .min = 100, .max = 1000000, .dflt = 2000, .arg = "<n>",
	  .help = "one run a side: the block bootstrap's resamples (2000)" },
	{ "level", 0, .kind = OPT_FN, .set_at = lc_set_level, F(level), .arg = "<pct>",
	  .help = "the intervals' confidence, all figures together (95)" },
	{ "noise", 0, .kind = OPT_FN, .set_at = lc_set_pct, F(noise), .arg = "<pct>",
	  .help = "a difference under this % of A is within noise (2; 0: off)" },
	LC_SUB_END,
};
#undef F

static const struct lc_sub compare_cmd = {
	.name = "compare", .rows = compare_rows,
	.synopsis = "compare [--json] [--resamples N] [--level PCT] [--noise PCT] A.json B.json\n"
		    "       hxload compare [options] A1.json A2.json... vs B1.json B2.json...",
	.about = "Tells whether B differs from A: for the rate, the latency percentiles, the\n"
		 "server's time and the rest of the time to first byte (other: network and proxy,\n"
		 "in ms), and (with --server-pid on both) the server's CPU per request and per\n"
		 "MiB, the difference and its confidence interval, all figures together at\n"
		 "--level (95 %; each at 100 - (100 - level) / figures). With three runs or\n"
		 "more in all: Welch's t over the runs, whose spread is the run-to-run noise.\n"
		 "With one run a side: its seconds (--json records one a second) resampled in\n"
		 "blocks (--resamples, 2000); how much runs differ cannot be estimated then, so\n"
		 "a difference is called 'runs differ', never faster or slower. A difference\n"
		 "whose interval holds 0 is called not detectable, one smaller than --noise\n"
		 "(2 % of A; 0 to turn off) within noise.",
	.pos_what = "A.json B.json, or A1.json... vs B1.json...", .npos_min = 2, .npos_max = 1 << 30,
};

int lc_compare_main(int argc, char **argv)
{
	static struct side A = { .cpu = 1 }, B = { .cpu = 1 };
	struct result res[M_MAX];
	struct method how = { 0 };
	struct cmp_opts o = { .level = 95, .noise = 2 };
	struct lc_sub_args a = { 0 };
	int rc, vs = -1, i;
	const char *unit;

	for (int k = 0; k < IV_MAX; k++)
		A.has[k] = B.has[k] = 1;
	if ((rc = lc_sub_parse(&compare_cmd, &o, argc, argv, &a)) >= 0)
		return rc;
	level = o.level;
	noise = o.noise;
	argv = a.pos;
	argc = a.npos;
	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "vs"))
			vs = i;
	/* WHY: without "vs", two files are A and B */
	if (vs < 0 && argc != 2)
		return fprintf(stderr, "hxload compare: expected A.json B.json, or A1.json... vs B1.json... "
				       "(try hxload compare -h)\n"), 2;
	for (i = 0; i < argc; i++) {
		struct side *s = vs < 0 ? (i == 0 ? &A : &B) : i < vs ? &A : &B;

		if (i != vs && lc_runs_each("compare", argv[i], compare_side_run, s) < 0)
			return 2;
	}
	A.first[A.runs] = A.n;
	B.first[B.runs] = B.n;
	/* WHY: three runs give one degree of freedom; with one run a side,
	 * blocks of one unit say nothing */
	if (A.runs + B.runs < 3 && (A.n < 2 || B.n < 2)) {
		fprintf(stderr, "hxload compare: each side needs two intervals or runs at least (run with --json, "
			"or give several runs a side)\n");
		return 2;
	}
	unit = A.runs + B.runs >= 3 ? "runs" : "intervals";
	if (compare(&A, &B, o.nres, res, &how) < 0) {
		free(A.u);
		free(B.u);
		return 2;
	}
	if (o.json)
		report_json(&A, &B, res, &how, unit);
	else
		report_text(&A, &B, res, &how);
	free(A.u);
	free(B.u);
	return 0;
}

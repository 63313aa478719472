/* Unit tests of compare's statistics on synthetic data with known answers: t quantiles, the t interval and the block bootstrap on seconds correlated at rho = 0.8. */
#include <math.h>
#include <stdlib.h>

#include "rng.h"
#include "stat.h"
#include "tap.h"

#define RHO    0.8
#define TRIALS 4000

static void t_quantiles(void)
{
	/* the printed tables' values */
	static const struct { double p, df, t; } tab[] = {
		{ 0.975, 1, 12.7062 }, { 0.975, 2, 4.3027 }, { 0.975, 4, 2.7764 }, { 0.975, 10, 2.2281 },
		{ 0.995, 30, 2.7500 }, { 0.95, 5, 2.0150 },  { 0.975, 1000, 1.9623 }, { 0.025, 4, -2.7764 },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		double t = stat_t_quantile(tab[i].p, tab[i].df);

		ok(fabs(t - tab[i].t) < 5e-4, "t quantile %g with %g df: %.4f (tables: %.4f)", tab[i].p, tab[i].df, t,
		   tab[i].t);
	}
}

static void t_interval(void)
{
	static const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 }, one[] = { 10 };
	double d = 0, lo = 0, hi = 0, df = 0;
	int rc;

	/* pooled variance 1, se sqrt(2/3), t(0.975, 4) = 2.7764 */
	rc = stat_t_interval(a, 3, b, 3, 0.95, &d, &lo, &hi, &df);
	ok(!rc && d == 3 && df == 4 && fabs(hi - d - 2.7764 * sqrt(2.0 / 3)) < 1e-3 && fabs(d - lo - (hi - d)) < 1e-9,
	   "1 2 3 against 4 5 6: +3, +- %.4f, 4 df", hi - d);
	{
		static const double c[] = { 0, 10, 20 }; /* variance 100 against 1: Welch's df 2.04 */

		rc = stat_t_interval(a, 3, c, 3, 0.95, &d, &lo, &hi, &df);
		ok(!rc && d == 8 && fabs(df - 2.0404) < 1e-3 && fabs(hi - d - stat_t_quantile(0.975, df) * sqrt(101.0 / 3)) < 1e-6,
		   "unequal spreads: Welch's df %.4f", df);
	}
	rc = stat_t_interval(b, 3, one, 1, 0.95, &d, &lo, &hi, &df);
	ok(!rc && d == 5 && df == 2 && fabs(hi - d - 4.3027 * sqrt(4.0 / 3)) < 1e-3,
	   "one value against three: the three's variance, 2 df (+- %.4f)", hi - d);
	ok(stat_t_interval(one, 1, one, 1, 0.95, &d, &lo, &hi, &df) < 0, "one value a side: no interval");
}

static double avg(const double *x, size_t n);

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* <n> seconds of a stationary AR(1) series around <level>: each second
 * keeps RHO of the one before, so a run's seconds are far from independent */
static void ar1(struct rng *r, double *x, size_t n, double level)
{
	double e = rng_normal(r);

	for (size_t i = 0; i < n; i++) {
		x[i] = level + e;
		e = RHO * e + sqrt(1 - RHO * RHO) * rng_normal(r);
	}
}


static double avg(const double *x, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[i];
	return s / (double)n;
}

/* 3 runs against 3 of one setting, each run 10 correlated seconds: the t
 * interval over the runs' means holds 0 as often as its level says */
static double runs_flagged(struct rng *r, double shift)
{
	int flagged = 0;

	for (int k = 0; k < TRIALS; k++) {
		double sec[10], a[3], b[3], d, lo = 0, hi = 0, df;

		for (int i = 0; i < 3; i++) {
			ar1(r, sec, 10, 0);
			a[i] = avg(sec, 10);
			ar1(r, sec, 10, shift);
			b[i] = avg(sec, 10);
		}
		stat_t_interval(a, 3, b, 3, 0.95, &d, &lo, &hi, &df);
		flagged += lo > 0 || hi < 0;
	}
	return 100.0 * flagged / TRIALS;
}

/* whether the 95 % interval of mean(B) - mean(A) from <res> resamples
 * excludes 0: blocks of stat_block_len()'s length, their standard error
 * and a t quantile (compare's way), or single seconds and the resamples'
 * percentiles (the old way, <iid>) */
static int boot_flags(struct rng *r, const double *a, const double *b, size_t n, int iid, int res)
{
	size_t la = iid ? 1 : stat_block_len(a, n), lb = iid ? 1 : stat_block_len(b, n), idx[256];
	double *d = malloc(sizeof(*d) * (size_t)res), lo, hi;

	for (int k = 0; k < res; k++) {
		double sa = 0, sb = 0;

		stat_block_draw(r, n, la, idx);
		for (size_t i = 0; i < n; i++)
			sa += a[idx[i]];
		stat_block_draw(r, n, lb, idx);
		for (size_t i = 0; i < n; i++)
			sb += b[idx[i]];
		d[k] = (sb - sa) / (double)n;
	}
	if (iid) { /* the old way: the resamples' own percentiles */
		qsort(d, (size_t)res, sizeof(*d), cmp_dbl);
		lo = d[(int)(0.025 * (res - 1))];
		hi = d[(int)ceil(0.975 * (res - 1))];
	} else { /* compare's: their standard error, t with a df per block */
		double df = (double)(n / la + n / lb) - 2, t = stat_t_quantile(0.975, df < 1 ? 1 : df),
		       se = stat_sd(d, (size_t)res), mid = avg(b, n) - avg(a, n);

		lo = mid - t * se;
		hi = mid + t * se;
	}
	free(d);
	return lo > 0 || hi < 0;
}

static double seconds_flagged(struct rng *r, size_t n, int iid, int trials)
{
	double a[256], b[256];
	int flagged = 0;

	for (int k = 0; k < trials; k++) {
		ar1(r, a, n, 0);
		ar1(r, b, n, 0);
		flagged += boot_flags(r, a, b, n, iid, 300);
	}
	return 100.0 * flagged / trials;
}

static void block_draws(void)
{
	struct rng r;
	size_t idx[10];
	int ok_ = 1;

	rng_seed(&r, 7);
	stat_block_draw(&r, 10, 4, idx);
	for (int i = 0; i < 10; i++)
		ok_ &= idx[i] < 10 && (i % 4 == 0 || idx[i] == (idx[i - 1] + 1) % 10);
	ok(ok_, "a block draw: runs of 4 consecutive indices, wrapping at the end");
	{
		double flat[12] = { 0 }, steps[60];

		for (int i = 0; i < 60; i++)
			steps[i] = i / 10; /* six levels of ten seconds: strongly correlated */
		is_int(stat_block_len(flat, 12), 2, "a flat series: blocks of n^(1/3) rounded, 2 for 12");
		is_int(stat_block_len(flat, 3), 1, "... 1 for 3");
		ok(stat_block_len(steps, 60) >= 10, "a series that moves in steps of 10: blocks of 10 or more (%zu)",
		   stat_block_len(steps, 60));
		ok(stat_block_len(steps, 60) <= 30, "... at most half of it");
	}
}

int main(void)
{
	struct rng r;
	double p;

	t_quantiles();
	t_interval();
	block_draws();
	rng_seed(&r, 0x5eed);
	p = runs_flagged(&r, 0);
	ok(p <= 6 && p >= 3, "3 runs vs 3 of one setting, seconds correlated at 0.8: %.1f %% flagged at 95 %% (%d trials)", p,
	   TRIALS);
	p = runs_flagged(&r, 3);
	ok(p >= 80, "... a shift of 3 sd of a second: %.1f %% flagged", p);
	p = seconds_flagged(&r, 120, 1, 200);
	ok(p >= 30, "1 vs 1, 120 seconds at 0.8, seconds resampled one by one (the old way): %.1f %% flagged", p);
	p = seconds_flagged(&r, 120, 0, 600);
	ok(p <= 7, "... in blocks, their standard error and t: %.1f %% flagged", p);
	return done_testing();
}

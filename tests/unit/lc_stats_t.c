/* hxload's verdict statistics (stats_t.c) on synthetic data with known answers: t quantiles and p-values, the paired interval, Holm, and the false-positive rate of identical pairs. */
#include <math.h>

#include "rng.h"
#include "stats_t.h"
#include "tap.h"

#define near(got, want, tol, ...) do { \
	double g_ = (got), w_ = (want); \
	if (!ok(fabs(g_ - w_) <= (tol), __VA_ARGS__)) \
		printf("#          got: %.6f\n#     expected: %.6f\n", g_, w_); \
} while (0)

/* the two-sided 95 % quantiles of printed t tables */
static void quantiles(void)
{
	near(lc_t95(1), 12.706, 1e-3, "t95 at 1 df: 12.706");
	near(lc_t95(30), 2.042, 1e-3, "t95 at 30 df: 2.042");
	near(lc_t95(31), 2.0395, 2e-4, "t95 at 31 df: 2.0395 (past the table)");
	near(lc_t95(49), 2.0096, 2e-4, "t95 at 49 df (50 rounds): 2.0096, not 1.96");
	near(lc_t95(100), 1.9840, 2e-4, "t95 at 100 df: 1.9840");
	near(lc_t95(1000), 1.9623, 2e-4, "t95 at 1000 df: 1.9623");
	ok(isinf(lc_t95(0)), "no degree of freedom: no interval");
}

/* p-values against numerical integration of the t density */
static void pvalues(void)
{
	near(lc_t_p2(3, 10), 0.0133437, 1e-6, "p of t=3 at 10 df: 0.013344");
	near(lc_t_p2(2.262157, 9), 0.05, 1e-5, "p at the 95 %% quantile (9 df): 0.05");
	near(lc_t_p2(12.706, 1), 0.05, 1e-5, "p at the 95 %% quantile (1 df): 0.05");
	near(lc_t_p2(-3, 10), 0.0133437, 1e-6, "two-sided: the sign does not matter");
	near(lc_t_p2(0, 5), 1, 1e-12, "p of t=0: 1");
	near(lc_t_p2(lc_t95(49), 49), 0.05, 2e-4, "the quantile and the p-value agree at 49 df");
}

static void paired(void)
{
	static const double d[] = { 1, 2, 3, 4, 5 }, same[] = { 0.5, 0.5, 0.5, 0.5 };
	struct lc_paired r;

	lc_paired(d, 5, 0, &r);
	near(r.mean, 3, 1e-12, "1..5: mean 3");
	near(r.sd, sqrt(2.5), 1e-12, "... sd sqrt(2.5)");
	near(r.lo, 3 - 2.7764451 * sqrt(0.5), 1e-6, "... interval from 3 - t95(4) * sd / sqrt(5)");
	near(r.hi, 3 + 2.7764451 * sqrt(0.5), 1e-6, "... to 3 + t95(4) * sd / sqrt(5)");
	near(r.p, 0.0132356, 1e-6, "... p 0.013236 (t = 4.243 at 4 df)");
	ok(!r.flat, "... not flat");
	lc_paired(same, 4, 0, &r);
	ok(r.flat && r.lo == 0.5 && r.hi == 0.5 && r.p == 1,
	   "every difference 0.5 of an exact figure: flat, no interval (lo = hi = 0.5), p 1: no certainty claimed");
	lc_paired(d, 5, 0.1, &r);
	near(r.sd, sqrt(2.5), 1e-12, "a resolution's sd under the rounds' spread: the spread stands");
	/* two rounds whose p50s sat on the same bucket edges, 0.5 ms apart,
	 * each within a 0.512 ms bucket (22 ms, (2 x 0.512^2 / 12)^0.5 = 0.209) */
	lc_paired(same, 2, 0.209, &r);
	ok(!r.flat && r.lo < 0 && r.hi > 1 && r.p > 0.05,
	   "the same 0.5 twice, each a bucket wide: an interval (%.2f to %.2f), no difference claimed (p %.2f)",
	   r.lo, r.hi, r.p);
	near(r.hi - r.lo, 2 * 12.706 * 0.209 / sqrt(2), 1e-3, "... t95(1) x the resolution's sd / sqrt(2) either side");
	lc_paired(same, 4, 0.05, &r);
	ok(r.lo > 0 && r.p < 0.05, "the same 0.5 in 4 rounds on buckets a quarter as wide: B differs (%.3f to %.3f)",
	   r.lo, r.hi);
	lc_paired(d, 1, 0, &r);
	ok(!r.flat && r.p == 1, "one round: nothing to test");
}

static void holm(void)
{
	static const double p1[] = { 0.01, 0.04, 0.03, 0.005 }, p2[] = { 0.01, 0.02, 0.03 }, p3[] = { 0.03, 0.03 };
	int rej[4];

	lc_holm(p1, 4, 0.05, rej);
	ok(rej[0] && !rej[1] && !rej[2] && rej[3],
	   "Holm at 5 %%: 0.005 (< 0.05/4) and 0.01 (< 0.05/3) rejected, 0.03 (> 0.05/2) stops it");
	lc_holm(p2, 3, 0.05, rej);
	ok(rej[0] && rej[1] && rej[2], "0.01, 0.02, 0.03: each under its step, all rejected");
	lc_holm(p3, 2, 0.05, rej);
	ok(!rej[0] && !rej[1], "0.03 twice: 0.03 > 0.05/2, none");
}

/* identical pairs: rounds of B - A drawn around 0 (seeded: the same
 * figures every run), <rounds> a test, <nfig> figures a comparison; how
 * often the headline alone, and how often any of the others after Holm,
 * says "differs" */
static void false_positives(int rounds, int nfig, int trials, double shift, double *head, double *family)
{
	struct rng r;
	int hits = 0, fam = 0;

	rng_seed(&r, 42);
	for (int t = 0; t < trials; t++) {
		double d[64], p[LC_HOLM_MAX];
		int rej[LC_HOLM_MAX], any = 0;
		struct lc_paired s;

		for (int f = 0; f < nfig; f++) {
			for (int k = 0; k < rounds; k++)
				d[k] = shift + rng_normal(&r);
			lc_paired(d, rounds, 0, &s);
			if (!f)
				hits += s.lo > 0 || s.hi < 0;
			p[f] = s.p;
		}
		lc_holm(p + 1, nfig - 1, 0.05, rej);
		for (int f = 0; f < nfig - 1; f++)
			any |= rej[f];
		fam += any;
	}
	*head = (double)hits / trials;
	*family = (double)fam / trials;
}

static void rates(void)
{
	double head, fam;

	false_positives(5, 15, 4000, 0, &head, &fam);
	ok(head >= 0.04 && head <= 0.06, "identical pairs, 5 rounds: the headline says 'differs' in %.2f %% (5 %% expected)",
	   head * 100);
	ok(fam <= 0.05, "... any of 14 other rows after Holm in %.2f %% (at most 5 %%)", fam * 100);
	false_positives(50, 2, 40000, 0, &head, &fam);
	ok(head >= 0.04 && head <= 0.06, "50 rounds (49 df): %.2f %% (5 %% expected)", head * 100);
	false_positives(5, 2, 1000, 2, &head, &fam);
	ok(head > 0.9, "a real difference (2 sd), 5 rounds: found in %.1f %%", head * 100);
}

int main(void)
{
	quantiles();
	pvalues();
	paired();
	holm();
	rates();
	return done_testing();
}

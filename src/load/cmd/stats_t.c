/* Paired-difference statistics for hxload's verdicts (ab): the paired 95 % interval and its p-value on stat.c's t distribution, Holm's correction. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stat.h"
#include "stats_t.h"

/* WHY on stat.c's distribution: one incomplete beta for ab and compare */
double lc_t95(int df)
{
	return df < 1 ? INFINITY : stat_t_quantile(0.975, df);
}

double lc_t_p2(double t, int df)
{
	return df < 1 ? 1 : stat_t_p2(t, df);
}

void lc_paired(const double *d, int n, double res_sd, struct lc_paired *r)
{
	double sum = 0, ss = 0, se;

	memset(r, 0, sizeof(*r));
	r->n = n;
	r->p = 1;
	if (n < 1)
		return;
	for (int k = 0; k < n; k++)
		sum += d[k];
	r->mean = sum / n;
	for (int k = 0; k < n; k++)
		ss += (d[k] - r->mean) * (d[k] - r->mean);
	r->sd = n > 1 ? sqrt(ss / (n - 1)) : 0;
	r->lo = r->hi = r->mean;
	if (n < 2)
		return;
	/* WHY a floor: percentiles are bucket edges, and rounds whose p50s all
	 * sat on the same edges differ by the same amount with no spread, yet
	 * the true values may lie anywhere in those buckets: two identical
	 * runs one bucket apart twice read as a certain difference */
	if (r->sd < res_sd)
		r->sd = res_sd;
	/* WHY a relative floor: sums of equal doubles leave 1e-16 of spread */
	r->flat = r->sd <= 1e-9 * (fabs(r->mean) + 1e-12);
	if (r->flat)
		return; /* no spread: no interval says anything, the caller names why */
	se = r->sd / sqrt(n);
	r->lo = r->mean - lc_t95(n - 1) * se;
	r->hi = r->mean + lc_t95(n - 1) * se;
	r->p = lc_t_p2(r->mean / se, n - 1);
}

static const double *holm_p;

static int by_p(const void *a, const void *b)
{
	double pa = holm_p[*(const int *)a], pb = holm_p[*(const int *)b];

	return pa < pb ? -1 : pa > pb;
}

void lc_holm(const double *p, int n, double alpha, int *reject)
{
	int idx[LC_HOLM_MAX];

	if (n > LC_HOLM_MAX)
		n = LC_HOLM_MAX;
	for (int i = 0; i < n; i++) {
		idx[i] = i;
		reject[i] = 0;
	}
	holm_p = p;
	qsort(idx, (size_t)n, sizeof(idx[0]), by_p);
	/* WHY step down: the smallest p faces alpha/n, the next alpha/(n-1)...;
	 * the first that fails stops it, the family's error stays under alpha */
	for (int i = 0; i < n && p[idx[i]] <= alpha / (n - i); i++)
		reject[idx[i]] = 1;
}

/* Paired-difference statistics for hxload's verdicts: Student's t quantile and p-value, the paired 95 % interval, Holm's correction. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats_t.h"

/* two-sided 95 % quantiles of Student's t, by degrees of freedom (1..30) */
static const double t95[] = { 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
			      2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
			      2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };

double lc_t95(int df)
{
	const double z = 1.959963984540054, z2 = z * z;
	double v = df;

	if (df < 1)
		return INFINITY;
	if (df <= (int)(sizeof(t95) / sizeof(t95[0])))
		return t95[df - 1];
	/* WHY Cornish-Fisher past the table: four terms of the expansion in
	 * 1/df are within 1e-5 of the exact quantile from 31 degrees on */
	return z + z * (z2 + 1) / (4 * v) + z * ((5 * z2 + 16) * z2 + 3) / (96 * v * v) +
	       z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / (384 * v * v * v) +
	       z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / (92160 * v * v * v * v);
}

/* the continued fraction of the regularized incomplete beta (Lentz) */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, num = m * (b - m) * x / ((a + m2 - 1) * (a + m2)), del;

		for (int k = 0; k < 2; k++) {
			d = 1 + num * d;
			c = 1 + num / c;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = fabs(c) < tiny ? tiny : c;
			del = d * c;
			h *= del;
			num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		}
		if (fabs(del - 1) < 1e-14)
			break;
	}
	return h;
}

/* I_x(a, b) */
static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double lc_t_p2(double t, int df)
{
	if (df < 1 || isnan(t))
		return 1;
	if (isinf(t))
		return 0;
	return beta_inc(df / 2.0, 0.5, df / (df + t * t));
}

void lc_paired(const double *d, int n, struct lc_paired *r)
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

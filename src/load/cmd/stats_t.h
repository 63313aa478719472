/* Paired-difference statistics for hxload's verdicts (ab): t quantile and p-value on stat.c's distribution, the paired 95 % interval, Holm's correction. */
#ifndef HX_STATS_T_H
#define HX_STATS_T_H

#define LC_HOLM_MAX 64 /* tests one Holm family may hold */

/* a paired comparison over <n> rounds: the mean of the differences, their
 * standard deviation (at least the figure's resolution's), the 95 % t
 * interval and the two-sided p of "no difference"; <flat>: every
 * difference equal (n >= 2) on an exact figure, no interval (lo = hi =
 * mean, p = 1) */
struct lc_paired {
	int n, flat;
	double mean, sd, lo, hi, p;
};

/* the two-sided 95 % quantile of Student's t with <df> degrees of freedom */
double lc_t95(int df);
/* the two-sided p-value of <t> under Student's t with <df> degrees of freedom */
double lc_t_p2(double t, int df);
/* the differences <d>[0..n) into <r>; <res_sd>: the standard deviation a
 * difference has from the figure's resolution alone (a histogram's
 * buckets; 0: an exact figure), the least spread the interval stands on */
void lc_paired(const double *d, int n, double res_sd, struct lc_paired *r);
/* Holm's step-down at <alpha> over the <n> (at most LC_HOLM_MAX) p-values
 * <p>: reject[i] 1 for each test the family rejects */
void lc_holm(const double *p, int n, double alpha, int *reject);

#endif

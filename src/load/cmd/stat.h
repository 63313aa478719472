/* Statistics for comparing runs: Student's t distribution (quantile, two-sided p), Welch's t interval, a circular block bootstrap's draws. */
#ifndef HX_LC_STAT_H
#define HX_LC_STAT_H

#include <stddef.h>

#include "rng.h"

/* the <p> quantile (0 < p < 1) of Student's t with <df> > 0 degrees of freedom */
double stat_t_quantile(double p, double df);

/* the two-sided p-value of <t> under Student's t with <df> > 0 degrees of freedom */
double stat_t_p2(double t, double df);

/* mean(b) - mean(a) and its two-sided <level> (0..1) interval: Welch's t
 * when both sides have two values or more, else Student's with the
 * variance of the side that has it (so one side may have a single value),
 * its degrees of freedom in <df>: 0, or -1 when there are fewer than 3
 * values in all */
int stat_t_interval(const double *a, size_t na, const double *b, size_t nb, double level, double *d, double *lo,
		    double *hi, double *df);

/* a block length for a series of <n> correlated values <x>: long enough to
 * hold the correlation its lag-1 autocorrelation shows, at least n^(1/3) */
size_t stat_block_len(const double *x, size_t n);

/* <idx>[0..n): one circular block bootstrap resample of 0..n-1, blocks of
 * <len> consecutive indices from random starts, wrapping at the end */
void stat_block_draw(struct rng *r, size_t n, size_t len, size_t *idx);

/* the sample standard deviation of <x>[0..n): 0 under two values */
double stat_sd(const double *x, size_t n);

#endif

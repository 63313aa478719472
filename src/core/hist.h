/* Log-linear latency histogram: fixed memory, no allocation per sample, merged at the end. */
#ifndef HX_HIST_H
#define HX_HIST_H

#include <stdint.h>

#define HIST_SUB  64  /* linear buckets per power of two: under 1.6 % error */
#define HIST_EXP  40  /* rows: row e > 0 holds [2^(e+5), 2^(e+6)) us */
/* WHY named: the top row ends at 2^45 us (about 1.1 years); a value at or
 * above it is counted in the last bucket (its max kept exact) */
#define HIST_TOP_US (1ULL << (HIST_EXP + 5))

struct hist {
	uint64_t n;
	uint64_t min, max;           /* min: meaningful when n > 0 */
	uint64_t sum;
	double sumsq;                /* for the standard deviation */
	uint64_t b[HIST_EXP][HIST_SUB]; /* WHY as wide as n: a merge of large runs
					  * overflowed 32-bit buckets */
};

#define HIST_BUCKETS (HIST_EXP * HIST_SUB)

void hist_add(struct hist *h, uint64_t us);
void hist_merge(struct hist *dst, const struct hist *src);
/* the value at quantile <q> (0..1), in microseconds: that of the sample of
 * rank ceil(q * n), the smallest that at least q of the samples do not
 * exceed (its bucket's upper edge, at most the max); 0 when empty */
uint64_t hist_quantile(const struct hist *h, double q);
double hist_mean(const struct hist *h);
double hist_stddev(const struct hist *h);
/* the upper edge of flat bucket <i> (row * HIST_SUB + slot), in microseconds */
uint64_t hist_bucket_value(unsigned i);
/* the width of the bucket that holds <us>, in microseconds: a value the
 * histogram reports (a bucket's upper edge) stands for any in that width
 * below it; 1 under 128 us, where a bucket is one whole microsecond (a
 * sample is its time cut to whole microseconds) */
uint64_t hist_bucket_width(uint64_t us);

#endif

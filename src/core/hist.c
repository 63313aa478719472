/* Log-linear latency histogram: fixed memory, no allocation per sample, merged at the end. */
#include <math.h>

#include "hist.h"

/* bucket of <v>: exponent row, then a linear slot within it */
static void bucket(uint64_t v, unsigned *e, unsigned *s)
{
	unsigned msb;

	if (v < HIST_SUB) {
		*e = 0;
		*s = (unsigned)v;
		return;
	}
	msb = 63 - (unsigned)__builtin_clzll(v);     /* >= 6 */
	*e = msb - 5;                                 /* rows 1.. hold [2^(e+5), 2^(e+6)) */
	if (*e >= HIST_EXP) {
		*e = HIST_EXP - 1;
		*s = HIST_SUB - 1;
		return;
	}
	*s = (unsigned)((v >> (msb - 6)) & (HIST_SUB - 1));
}

/* the upper edge of a bucket, what a percentile reports */
static uint64_t bucket_value(unsigned e, unsigned s)
{
	if (!e)
		return s;
	return ((uint64_t)(HIST_SUB + s + 1) << (e - 1)) - 1;
}

void hist_add(struct hist *h, uint64_t us)
{
	unsigned e, s;

	/* WHY apart: an answer whose body came with its head has its body,
	 * paced and body-rest times 0, and a 0 changes neither the sums nor
	 * the max, and is the min */
	if (!us) {
		h->b[0][0]++;
		h->n++;
		h->min = 0;
		return;
	}
	bucket(us, &e, &s);
	h->b[e][s]++;
	if (!h->n || us < h->min)
		h->min = us;
	h->n++;
	h->sum += us;
	h->sumsq += (double)us * (double)us;
	if (us > h->max)
		h->max = us;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned top, slot;

	/* WHY up to the max's row: no bucket above it holds a sample, and
	 * compare's resampling merges thousands of mostly empty histograms */
	bucket(src->max, &top, &slot);
	for (unsigned e = 0; src->n && e <= top; e++)
		for (unsigned s = 0; s < HIST_SUB; s++)
			dst->b[e][s] += src->b[e][s];
	if (src->n && (!dst->n || src->min < dst->min))
		dst->min = src->min;
	dst->n += src->n;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* ceil(q * n): rounding it to nearest took a percentile one rank low
 * (p91 of 1..10 was 9); WHY the tolerance: 0.07 * 100 is 7.000000000000001
 * in doubles, and its ceiling must stay 7 */
static uint64_t quantile_rank(double q, uint64_t n)
{
	double x = q * (double)n;
	uint64_t r = (uint64_t)x;

	return x - (double)r > 1e-12 * x ? r + 1 : r;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->n)
		return 0;
	rank = quantile_rank(q, h->n);
	if (rank < 1)
		rank = 1;
	if (rank >= h->n)
		return h->max;
	for (unsigned e = 0; e < HIST_EXP; e++)
		for (unsigned s = 0; s < HIST_SUB; s++) {
			seen += h->b[e][s];
			if (seen >= rank) {
				uint64_t v = bucket_value(e, s);

				return v > h->max ? h->max : v;
			}
		}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->n ? (double)h->sum / (double)h->n : 0;
}

double hist_stddev(const struct hist *h)
{
	double m = hist_mean(h), v;

	if (h->n < 2)
		return 0;
	v = h->sumsq / (double)h->n - m * m;
	return v > 0 ? sqrt(v) : 0;
}

uint64_t hist_bucket_value(unsigned i)
{
	return bucket_value(i / HIST_SUB, i % HIST_SUB);
}

uint64_t hist_bucket_width(uint64_t us)
{
	unsigned e, s;

	bucket(us, &e, &s);
	return e ? 1ULL << (e - 1) : 1;
}

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
	for (unsigned e = 0; e < HIST_EXP; e++)
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

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->n)
		return 0;
	rank = (uint64_t)(q * (double)h->n + 0.5);
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

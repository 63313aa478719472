/* Unit tests of the latency histogram: percentiles within its precision, merge, extremes, its range, wide counts and the rank a percentile takes, a bucket's width. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "tap.h"

static int near(uint64_t got, uint64_t want)
{
	double d = (double)got - (double)want;

	return (d < 0 ? -d : d) <= (double)want * 0.02 + 1;
}

/* the range the header names is the one the buckets hold: values just under
 * 2^45 us within the precision, the last bucket's edge 2^45 - 1 */
static void top_of_range(void)
{
	static struct hist h;
	uint64_t v = HIST_TOP_US - HIST_TOP_US / 20, got;

	is_int(HIST_TOP_US, 1ULL << 45, "the range ends at 2^45 us");
	is_int(hist_bucket_value(HIST_BUCKETS - 1), HIST_TOP_US - 1, "... the last bucket's upper edge");
	for (int i = 0; i < 100; i++)
		hist_add(&h, v + (uint64_t)i);
	hist_add(&h, v * 4);
	got = hist_quantile(&h, 0.5);
	ok(near(got, v), "p50 of values at 0.95 x 2^45 us within 2%% (%llu, want %llu)", (unsigned long long)got,
	   (unsigned long long)v);
	is_int(hist_quantile(&h, 1.0), v * 4, "a value above the range is kept as the max");
}

/* 3e9 samples a bucket fit 32 bits; two such runs merged do not: p50 of
 * 6e9 samples of 7 us and 2 of 1 ms is 7 us */
static void wide_buckets(void)
{
	static struct hist run, all;

	run.b[0][7] = 3000000000u;
	run.n = 3000000000u;
	run.min = run.max = 7;
	hist_add(&run, 1000);
	hist_merge(&all, &run);
	hist_merge(&all, &run);
	is_int(all.n, 6000000002ULL, "two runs of 3e9 merged: 6e9 samples");
	is_int(all.b[0][7], 6000000000ULL, "... 6e9 in one bucket");
	is_int(hist_quantile(&all, 0.5), 7, "... p50 is 7 us");
	is_int(hist_quantile(&all, 0.9999999999), 1000, "... and the top 2 samples 1 ms");
}

/* the sample of rank ceil(q n), the smallest value that at least q of the
 * samples do not exceed */
static void ceiling_rank(void)
{
	static struct hist h, c;

	for (uint64_t i = 1; i <= 10; i++)
		hist_add(&h, i);
	is_int(hist_quantile(&h, 0.5), 5, "p50 of 1..10 is 5");
	is_int(hist_quantile(&h, 0.91), 10, "p91 of 1..10 is 10 (rank ceil(9.1) = 10)");
	is_int(hist_quantile(&h, 0.94), 10, "p94 of 1..10 is 10");
	is_int(hist_quantile(&h, 0.9), 9, "p90 of 1..10 is 9");
	is_int(hist_quantile(&h, 0.01), 1, "p1 of 1..10 is 1");
	for (uint64_t i = 1; i <= 100; i++)
		hist_add(&c, i);
	is_int(hist_quantile(&c, 0.07), 7, "p7 of 1..100 is 7 (0.07 x 100 is not above 7)");
	is_int(hist_quantile(&c, 0.071), 8, "p7.1 of 1..100 is 8");
}

/* zeros (a small answer's body time, paced time...) counted as any value:
 * in the count, the first bucket and the min, with no effect on the sums
 * and the max, first or after other values */
static void zeros(void)
{
	static struct hist z, w;

	hist_add(&z, 0);
	hist_add(&z, 0);
	is_int(z.n, 2, "zeros: counted");
	is_int(z.min, 0, "... the min 0");
	is_int(z.max, 0, "... the max 0");
	is_int(hist_quantile(&z, 1.0), 0, "... p100 of zeros is 0");
	hist_add(&w, 9);
	hist_add(&w, 3);
	hist_add(&w, 0);
	hist_add(&w, 0);
	is_int(w.n, 4, "zeros after values: counted");
	is_int(w.min, 0, "... the min now 0");
	is_int(w.max, 9, "... the max kept");
	is_int(w.sum, 12, "... the sum unchanged by them");
	ok(w.sumsq == 90.0, "... the sum of squares too (%g)", w.sumsq);
	is_int(hist_quantile(&w, 0.5), 0, "... p50 of 0, 0, 3, 9 is 0");
	is_int(hist_quantile(&w, 0.75), 3, "... p75 is 3");
	ok(hist_mean(&w) == 3.0, "... the mean 3 (%g)", hist_mean(&w));
}

/* a reported value stands for any in its bucket's width below it, and
 * the next value down is in another bucket */
static void bucket_widths(void)
{
	static const uint64_t v[] = { 5, 63, 64, 127, 128, 200, 4095, 22000, 1000000, 1ULL << 40 };
	int good = 1;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint64_t w = hist_bucket_width(v[i]);
		static struct hist h;

		memset(&h, 0, sizeof(h));
		hist_add(&h, v[i]);
		hist_add(&h, v[i] + 4 * w); /* WHY: the max caps a quantile; keep it above */
		uint64_t edge = hist_quantile(&h, 0.5);

		memset(&h, 0, sizeof(h));
		hist_add(&h, edge - w + 1);
		hist_add(&h, v[i] + 4 * w);
		good &= hist_quantile(&h, 0.5) == edge;
		memset(&h, 0, sizeof(h));
		hist_add(&h, edge - w);
		hist_add(&h, v[i] + 4 * w);
		good &= hist_quantile(&h, 0.5) < edge;
		if (!good) {
			printf("# at %llu: width %llu, edge %llu\n", (unsigned long long)v[i], (unsigned long long)w,
			       (unsigned long long)edge);
			break;
		}
	}
	ok(good, "a bucket's width: the values from its edge less the width (exclusive) to the edge report the edge");
	is_int(hist_bucket_width(100), 1, "... 1 us under 128 us");
	is_int(hist_bucket_width(22000), 256, "... 256 us at 22 ms (1/64 of 16.384 ms)");
}

int main(void)
{
	static struct hist h, a, b;
	uint64_t v;

	for (uint64_t i = 1; i <= 100000; i++)
		hist_add(&h, i);
	is_int(h.n, 100000, "count");
	ok(near(hist_quantile(&h, 0.5), 50000), "p50 of 1..100000 is 50000 within 2%% (%llu)",
	   (unsigned long long)hist_quantile(&h, 0.5));
	ok(near(hist_quantile(&h, 0.99), 99000), "p99 within 2%% (%llu)",
	   (unsigned long long)hist_quantile(&h, 0.99));
	ok(near(hist_quantile(&h, 0.999), 99900), "p99.9 within 2%%");
	is_int(hist_quantile(&h, 1.0), 100000, "p100 is the max");
	is_int(h.max, 100000, "max");
	for (int i = 0; i < 50; i++)
		hist_add(&a, 7);
	is_int(hist_quantile(&a, 0.5), 7, "small values are exact");
	hist_add(&b, 1000000);
	hist_merge(&a, &b);
	is_int(a.n, 51, "merge adds counts");
	is_int(a.max, 1000000, "merge keeps the max");
	is_int(hist_quantile(&a, 0.98), 7, "p98 of 50 x 7 and one outlier is 7");
	v = hist_quantile(&a, 0.999);
	ok(near(v, 1000000), "p99.9 after merge sees the outlier (%llu)", (unsigned long long)v);
	hist_add(&b, UINT64_MAX / 2);
	ok(hist_quantile(&b, 1.0) == UINT64_MAX / 2, "huge values are kept as the max");
	{
		static struct hist e;

		is_int(hist_quantile(&e, 0.5), 0, "empty histogram: 0");
	}
	top_of_range();
	bucket_widths();
	wide_buckets();
	ceiling_rank();
	zeros();
	return done_testing();
}

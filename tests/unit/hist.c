/* Unit tests of the latency histogram: percentiles within its precision, merge, extremes. */
#include <stdlib.h>

#include "hist.h"
#include "tap.h"

static int near(uint64_t got, uint64_t want)
{
	double d = (double)got - (double)want;

	return (d < 0 ? -d : d) <= (double)want * 0.02 + 1;
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
	return done_testing();
}

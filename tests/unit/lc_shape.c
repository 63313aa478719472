/* hxload's open-loop schedule (shape.c): durations, --stages, send times of a rate, a ramp and stages, the mean rate. */
#include <math.h>
#include <stdint.h>

#include "lc_opts.h"
#include "tap.h"

static void durations(void)
{
	uint64_t us = 0;

	ok(!lc_duration("10", 2, &us) && us == 10000000, "10: seconds");
	ok(!lc_duration("500ms", 5, &us) && us == 500000, "500ms");
	ok(!lc_duration("1.5s", 4, &us) && us == 1500000, "1.5s");
	ok(!lc_duration("2m", 2, &us) && us == 120000000, "2m");
	ok(!lc_duration("1h", 2, &us) && us == 3600000000ULL, "1h");
	ok(lc_duration("-1s", 3, &us) < 0, "-1s refused");
	ok(lc_duration("10x", 3, &us) < 0, "10x refused");
	ok(lc_duration("ms", 2, &us) < 0, "a unit with no number refused");
	ok(lc_duration("1e8", 3, &us) < 0, "beyond 1e7 s refused");
}

static void stages(void)
{
	struct lc_opts o = { 0 };
	const char *err;

	ok(!lc_stages_parse(&o, "10s@100,500ms@1k:2k", &err) && o.nstages == 2, "two stages parsed");
	is_int(o.stages[0].us, 10000000, "... the first lasts 10 s");
	ok(o.stages[0].rate0 == 100 && o.stages[0].rate1 == 100, "... at 100/s");
	ok(o.stages[1].rate0 == 1000 && o.stages[1].rate1 == 2000 && o.stages[1].us == 500000,
	   "... the second ramps 1k to 2k over 500 ms");
	ok(lc_stages_parse(&o, "10s", &err) < 0 && err && *err, "no @RATE: refused with a reason");
	ok(lc_stages_parse(&o, "0s@5", &err) < 0, "a stage of no time refused");
	ok(lc_stages_parse(&o, "1s@5x", &err) < 0, "a bad rate refused");
	ok(lc_stages_parse(&o, "", &err) < 0, "no stage refused");
}

/* the send times of -R 1000 over 1 s after a 1 s warm-up: exact, 1 ms apart */
static void constant(void)
{
	struct lc_opts o = { .rate = 1000, .duration_us = 1000000, .warmup_us = 1000000 };

	lc_stages_finish(&o);
	is_int(o.nstages, 2, "-R 1000 with a warm-up: a warm-up stage, then the rate");
	is_int(lc_due_at(&o, 0), 0, "request 0 at 0");
	is_int(lc_due_at(&o, 1), 1000, "request 1 at 1 ms");
	is_int(lc_due_at(&o, 1500), 1500000, "request 1500 at 1.5 s (in the measured part)");
	ok(lc_due_at(&o, 2000) == UINT64_MAX, "request 2000: past the schedule");
	ok(fabs(lc_rate_mean(&o) - 1000) < 1e-6, "the mean rate of the measured part: 1000/s");
}

/* a ramp from 0 to 2000/s over 1 s: n(t) = 1000 t^2, so request n at sqrt(n/1000) s */
static void ramp(void)
{
	struct lc_opts o = { .rate = 1e-9, .rate_to = 2000, .duration_us = 1000000 };
	uint64_t t;

	lc_stages_finish(&o);
	t = lc_due_at(&o, 250);
	ok(t > 499000 && t < 501000, "ramp 0..2000/s: request 250 at 0.5 s (%llu us)", (unsigned long long)t);
	ok(fabs(lc_rate_mean(&o) - 1000) < 1, "... its mean is 1000/s");
	for (double n = 1; n < 999; n += 97)
		if (lc_due_at(&o, n) < lc_due_at(&o, n - 1))
			break;
	ok(lc_due_at(&o, 998) >= lc_due_at(&o, 997), "... the send times never go back");
}

int main(void)
{
	durations();
	stages();
	constant();
	ramp();
	return done_testing();
}

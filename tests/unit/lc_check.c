/* hxload's --fail-on and find's --slo (check.c): the grammar, and each term read against figures made here. */
#include <string.h>

#include "hist.h"
#include "lc_stats.h"
#include "tap.h"

static void grammar(void)
{
	static const char *const good[] = { "p99>5ms", "p99.9>=2.5ms,errors>0", "non2xx>1%", "rps<1000",
					    " p50 < 1s , max<=100ms", "late>0.5%", "unsent>0" };
	static const char *const bad[] = { "p98>5ms", "p99=5ms", "p99>", "p99>5parsecs", "", "p99>5ms,,errors>0" };
	const char *err;
	int n = 0;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		n += !lc_check_parse(good[i], &err);
	is_int(n, (int)(sizeof(good) / sizeof(good[0])), "every well-formed spec is read");
	n = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = NULL;
		if (lc_check_parse(bad[i], &err) < 0 && err && *err)
			n++;
		else
			printf("# accepted: '%s'\n", bad[i]);
	}
	is_int(n, (int)(sizeof(bad) / sizeof(bad[0])), "every malformed one refused with a reason");
}

/* 1000 answered in 10 s: latencies 1..1000 us, 10 errors, 20 non-2xx */
static void figures(void)
{
	static struct lc_stats T;
	struct lc_meta m = { .secs = 10 };
	char why[128];

	for (int i = 1; i <= 1000; i++)
		hist_add(&T.h[H_LAT], (uint64_t)i);
	T.reqs = 1000;
	T.errors[E_RESET] = 10;
	T.non2xx = 20;
	is_int(lc_slo_miss("p99<2ms,errors<2%,rps>=100", &T, &m, why, sizeof(why)), 0, "an SLO held: 0 missed");
	is_str(why, "", "... no reason");
	is_int(lc_slo_miss("p99<0.5ms,errors<2%,non2xx<1%", &T, &m, why, sizeof(why)), 2, "two terms missed");
	ok(!strncmp(why, "p99 0.99", 8) && strstr(why, "not < 0.5 ms"), "... the first named with its figure (%s)", why);
	is_int(lc_slo_miss("rps>200", &T, &m, why, sizeof(why)), 1, "rps is answered per second of the window: 100");
	is_int(lc_check("errors>0,p50>1ms", &T, &m), 1, "--fail-on: one threshold crossed (errors), p50 0.5 ms not");
	is_int(lc_check("errors>1%", &T, &m), 0, "errors as a share: 10 of 1010 is under 1 %%");
}

int main(void)
{
	grammar();
	figures();
	return done_testing();
}

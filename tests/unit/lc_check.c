/* hxload's --fail-on and find's --slo (check.c): the grammar, and each term read against figures made here. */
#include <stdint.h>
#include <string.h>

#include "hist.h"
#include "lc_stats.h"
#include "tap.h"

/* how many of <bad> <parse> refuses with a reason; each accepted one named */
static int refused(const char *const *bad, size_t nbad, int (*parse)(const char *, const char **))
{
	const char *err;
	int n = 0;

	for (size_t i = 0; i < nbad; i++) {
		err = NULL;
		if (parse(bad[i], &err) < 0 && err && *err)
			n++;
		else
			printf("# accepted: '%s'\n", bad[i]);
	}
	return n;
}

static int expect_parse(const char *spec, const char **err)
{
	static uint8_t set[LC_STATUS_MAX];

	return lc_expect_parse(spec, set, err);
}

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
	is_int(refused(bad, sizeof(bad) / sizeof(bad[0]), lc_check_parse), (int)(sizeof(bad) / sizeof(bad[0])),
	       "every malformed one refused with a reason");
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

/* --expect: which statuses each form names, and the malformed refused */
static void expect(void)
{
	static const char *const bad[] = { "", "99", "1000", "2xx,", "abc", "503-500", "2x", "200,,201", "20x", "200-",
					   "-200", "2xx-3xx" };
	static uint8_t set[LC_STATUS_MAX];
	const char *err;
	int on = 0;

	ok(!lc_expect_parse("2xx,404,500-503", set, &err) && set[200] && set[299] && set[404] && set[500] && set[503] &&
	   !set[199] && !set[300] && !set[403] && !set[504], "'2xx,404,500-503': 200-299, 404, 500-503 and no other");
	for (int i = 0; i < LC_STATUS_MAX; i++)
		on += set[i];
	is_int(on, 100 + 1 + 4, "... 105 statuses in all");
	ok(!lc_expect_parse("100-999", set, &err) && set[100] && set[999], "'100-999': every counted status");
	is_int(refused(bad, sizeof(bad) / sizeof(bad[0]), expect_parse), (int)(sizeof(bad) / sizeof(bad[0])),
	       "every malformed --expect refused with a reason");
}

/* over half the answers unexpected, not half */
static void mostly(void)
{
	static struct lc_stats T;

	ok(!lc_mostly_unexpected(&T), "nothing answered: not 'mostly unexpected' (another line says why)");
	T.reqs = 10;
	T.unexpected = 5;
	ok(!lc_mostly_unexpected(&T), "5 of 10: not most");
	T.unexpected = 6;
	ok(lc_mostly_unexpected(&T), "6 of 10: most");
}

int main(void)
{
	grammar();
	figures();
	expect();
	mostly();
	return done_testing();
}

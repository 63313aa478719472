/* hxload's cache-hit accounting (hits.c) on synthetic X-rsp and X-Hxterm-Made values: repeats are hits, fresh answers misses, whatever thread sees them. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lc_conn.h"
#include "lc_record.h"
#include "lc_hits.h"
#include "tap.h"

/* an exchange as the protocols leave it after the response head */
static struct lc_ex answer(const char *xrsp, const char *made)
{
	struct lc_ex e = { .server_us = UINT64_MAX, .announced = -1 };

	if (xrsp)
		lc_xrsp(&e, xrsp, strlen(xrsp));
	if (made)
		lc_made(&e, made, strlen(made));
	return e;
}

static int hit(const char *xrsp, const char *made)
{
	struct lc_ex e = answer(xrsp, made);

	return lc_hit(&e);
}

static void classify(void)
{
	static const char a[] = "id=h, code=200, cache=1, size=1024, time=0 ms (0.005 real)";
	static const char b[] = "id=h, code=200, cache=1, size=2048, time=0 ms (0.005 real)";

	is_int(hit(a, NULL), -1, "no X-Hxterm-Made (no cache key): neither hit nor miss");
	is_int(hit(a, NULL), -1, "... not even repeated: fresh t=0 answers share their X-rsp");
	is_int(hit(a, "1764921600000001"), 0, "the first answer made at 1764921600000001: a miss");
	is_int(hit(a, "1764921600000001"), 1, "the same X-rsp and made time again: a hit");
	is_int(hit(a, "1764921600000001"), 1, "... and again");
	is_int(hit(a, "1764921600000002"), 0, "the same X-rsp, made a microsecond later: a fresh answer, a miss");
	is_int(hit(b, "1764921600000001"), 0, "another size made in the same microsecond: a miss");
	is_int(hit("id=h, code=200, cache=1, size=1024, time=0 ms (0.006 real)", "1764921600000001"), 0,
	       "another real time made in the same microsecond: a miss");
	is_int(hit(NULL, "1764921600000009"), 0, "X-Hxterm-Made without X-rsp (a proxy dropped it): a miss ...");
	is_int(hit(NULL, "1764921600000009"), 1, "... and its repeat a hit");
	is_int(hit(a, "17649216x"), -1, "a made time that is not a number: neither");
	is_int(hit(a, ""), -1, "an empty one: neither");
}

#define THREADS 4
#define KEYS    20000

static int firsts[THREADS];

/* every thread sees the same KEYS answers: each must be a miss once, on
 * whichever thread saw it first, and a hit on all the others */
static void *racer(void *arg)
{
	int *n = arg;
	char made[32];

	for (int k = 0; k < KEYS; k++) {
		snprintf(made, sizeof(made), "%d", 1700000000 + k * 7);
		*n += hit("id=r, code=200, cache=1, size=1, time=0 ms (1.000 real)", made) == 0;
	}
	return NULL;
}

static void threads(void)
{
	pthread_t th[THREADS];
	int total = 0;

	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, racer, &firsts[i]);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		total += firsts[i];
	}
	is_int(total, KEYS, "%d threads, %d answers each, the same ones: %d misses in all, one per answer", THREADS,
	       KEYS, KEYS);
}

/* past the table's room, new answers are misses, not hits, and the ones
 * kept are still told */
static void full(void)
{
	char made[32];
	int wrong = 0;

	for (uint32_t k = 0; k < (1u << 20); k++) {
		snprintf(made, sizeof(made), "%u", 2000000000u + k);
		wrong += hit(NULL, made) != 0;
	}
	is_int(wrong, 0, "a million fresh answers, past the table's room: all misses");
	is_int(hit(NULL, "2000000000"), 1, "the first of them, kept, repeated: a hit");
}

int main(void)
{
	classify();
	threads();
	full();
	return done_testing();
}

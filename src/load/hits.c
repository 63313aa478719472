/* hxload's cache-hit accounting: an answer whose X-Hxterm-Made and X-rsp repeat an earlier one's came from a cache, not the server. */
#include <stdatomic.h>

#include "lc_conn.h"
#include "lc_hits.h"

/* WHY the made time too, not X-rsp alone: X-rsp's real time has microsecond
 * steps, so fresh answers of one URL share it by the thousand (t=0: about
 * 0.005 ms each); hxterm's X-Hxterm-Made, the epoch us it made the answer,
 * sets one answer apart, and X-rsp (real time, size) two made in the same
 * microsecond by two workers */
#define HIT_SLOTS (1u << 20)
#define HIT_FULL  (HIT_SLOTS / 4 * 3)

/* WHY static, in BSS: 8 MiB whose pages come only as answers fill them, and
 * no allocation to fail; the answers seen, by key (0: a free slot), shared
 * by the threads: a hit on one of an answer another saw first counts */
static _Atomic uint64_t seen[HIT_SLOTS];
static atomic_uint used;

void lc_made(struct lc_ex *e, const char *v, size_t len)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < len && v[i] >= '0' && v[i] <= '9' && i < 19; i++)
		n = n * 10 + (uint64_t)(v[i] - '0');
	e->made = i == len ? n : 0;
}

/* splitmix64's finalizer: every bit of <x> moves every bit of the key */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* 1: <key> was there already; 0: it is now (or, the table full, was not
 * and is not kept: a miss then, the first of its answer as far as we know) */
static int seen_add(uint64_t key)
{
	for (uint32_t i = (uint32_t)key & (HIT_SLOTS - 1);; i = (i + 1) & (HIT_SLOTS - 1)) {
		uint64_t s = atomic_load_explicit(&seen[i], memory_order_relaxed);

		while (!s) {
			if (atomic_load_explicit(&used, memory_order_relaxed) >= HIT_FULL)
				return 0;
			if (atomic_compare_exchange_weak_explicit(&seen[i], &s, key, memory_order_relaxed,
								  memory_order_relaxed)) {
				atomic_fetch_add_explicit(&used, 1, memory_order_relaxed);
				return 0;
			}
		}
		if (s == key)
			return 1;
	}
}

int lc_hit(const struct lc_ex *e)
{
	uint64_t key;

	if (!e->made)
		return -1;
	key = mix(e->made ^ mix(e->server_us ^ mix((uint64_t)e->announced)));
	return seen_add(key ? key : 1);
}

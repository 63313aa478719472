/* Unit tests of the timer heap: order, re-arm, cancel, many timers. */
#include <stdlib.h>

#include "rng.h"
#include "tap.h"
#include "timer.h"

#define N 5000

int main(void)
{
	static struct timer t[N];
	struct theap th = { 0 };
	struct rng r;
	struct timer *x;
	uint64_t last = 0;
	int n = 0, sorted = 1;

	rng_seed(&r, 42);
	for (int i = 0; i < N; i++)
		timer_arm(&th, &t[i], rng_range(&r, 0, 100000));
	is_int(th.n, N, "%d timers queued", N);
	for (int i = 0; i < N; i += 3)
		timer_arm(&th, &t[i], rng_range(&r, 0, 100000)); /* move */
	for (int i = 1; i < N; i += 7)
		timer_cancel(&th, &t[i]);
	ok(!timer_queued(&t[1]), "a cancelled timer is not queued");
	{
		uint32_t before = th.n;

		timer_cancel(&th, &t[1]);
		is_int(th.n, before, "cancelling twice leaves the heap as it was");
	}
	while ((x = timer_pop(&th, UINT64_MAX))) {
		sorted &= x->expire >= last;
		last = x->expire;
		n++;
	}
	ok(sorted, "timers come out in expiry order");
	is_int(n, N - (N + 5) / 7, "every queued timer came out once");
	timer_arm(&th, &t[0], 50);
	ok(timer_pop(&th, 49) == NULL, "nothing expires early");
	ok(timer_pop(&th, 50) == &t[0], "expires at its time");
	is_int(timer_next(&th), TIMER_NONE, "empty heap has no next");
	theap_free(&th);
	return done_testing();
}

/* Unit tests of the one recycling policy: buffer pools and their bound (a queue's block from a pool: oq.c; the bounded free list of connections: tc_set.c). */
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "tap.h"

static void pool_bound(void)
{
	struct pool p = { .size = 64, .keep = 2 };
	void *a = pool_get(&p), *b = pool_get(&p), *c = pool_get(&p);

	ok(a && b && c, "three buffers from an empty pool come from malloc");
	pool_put(&p, a);
	pool_put(&p, b);
	pool_put(&p, c);
	is_int(p.n, 2, "a pool bound to 2 keeps 2; the third goes back to malloc");
	a = pool_get(&p);
	ok(a == b, "the last one kept is the next one given");
	free(a);
	pool_put(&p, NULL);
	is_int(p.n, 1, "a NULL put is nothing");
	pool_drain(&p);
	is_int(p.n, 0, "drained");
	struct pool d = { .size = 8 };
	for (int i = 0; i < POOL_KEEP + 3; i++)
		pool_put(&d, malloc(8));
	is_int(d.n, POOL_KEEP, "no bound given: POOL_KEEP");
	pool_drain(&d);
}

int main(void)
{
	pool_bound();
	return done_testing();
}

/* Unit tests of the one recycling policy: buffer pools and their bound, the bounded free list of connections (a queue's block from a pool: oq.c). */
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "tap.h"
#include "tconn.h"

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

struct conn {
	int x;
	struct tconn t;
};

static void conn_free_list(void)
{
	struct tc_free f;
	struct conn *c[TC_KEEP + 1];
	int kept = 0;

	tc_free_init(&f);
	ok(tc_pop(&f, offsetof(struct conn, t)) == NULL, "an empty free list gives none");
	for (int i = 0; i <= TC_KEEP; i++) {
		c[i] = calloc(1, sizeof(*c[i]));
		c[i]->x = i;
		if (tc_keep(&f, &c[i]->t))
			kept++;
		else
			free(c[i]);
	}
	is_int(kept, TC_KEEP, "TC_KEEP closed connections kept, the one beyond for the caller to free");
	struct conn *got = tc_pop(&f, offsetof(struct conn, t));
	ok(got && got->x == TC_KEEP - 1, "the last kept comes back first, whole");
	is_int(f.n, TC_KEEP - 1, "and the count follows");
	free(got);
	while ((got = tc_pop(&f, offsetof(struct conn, t))))
		free(got);
	is_int(f.n, 0, "emptied");
}

int main(void)
{
	pool_bound();
	conn_free_list();
	return done_testing();
}

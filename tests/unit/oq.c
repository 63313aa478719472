/* Unit tests of the output queue: scratch room and its reserve, iovec merging, partial sends, its block from a pool. */
#include <string.h>

#include "oq.h"
#include "pool.h"
#include "tap.h"

/* a queue takes its block from a pool while it stages, and gives it back
 * only when nothing is left to send; the pool keeps no more than its bound */
static void pooled(void)
{
	struct pool p = { .size = oq_mem_size(64), .keep = 1 };
	struct oq q = { .sc_size = 64 }, r = { .sc_size = 64 };
	void *mem;

	ok(oq_take(&q, &p) == 0 && q.iov && q.sc, "a queue without a block takes one from the pool");
	mem = q.iov;
	ok(oq_take(&q, &p) == 0 && q.iov == mem, "one that has a block keeps it");
	oq_copy(&q, "abc", 3);
	oq_give(&q, &p);
	ok(q.iov == mem && p.n == 0, "with bytes staged it keeps its block");
	oq_sent(&q, 3);
	oq_give(&q, &p);
	ok(!q.iov && !q.sc && p.n == 1, "all sent: its block goes back to the pool");
	ok(oq_take(&r, &p) == 0 && r.iov == mem && p.n == 0, "the next queue gets that block");
	oq_take(&q, &p);
	oq_give(&q, &p);
	oq_give(&r, &p);
	is_int(p.n, 1, "the pool keeps one block, its bound; the other is freed");
	pool_drain(&p);
}

int main(void)
{
	struct oq q;
	char data[600];

	memset(data, 'x', sizeof(data));
	ok(oq_alloc(&q, 100) == 0, "a queue with 100 bytes of scratch");
	is_int(oq_sc_room(&q), 100, "all of it is room");
	oq_copy(&q, data, 60);
	oq_copy(&q, data, 40);
	is_int(oq_sc_room(&q), 0, "after 100 bytes copied, no room");
	is_int(q.n, 1, "adjacent copies share one iovec");
	oq_copy(&q, "\r\n", 2);
	is_int(oq_sc_room(&q), 0, "2 bytes into the reserve: the room is 0, not a wrapped count");
	is_int(q.bytes, 102, "102 bytes staged");
	oq_ref(&q, data, 500);
	is_int(q.n, 2, "a reference is a second iovec");
	oq_sent(&q, 101);
	ok(oq_pending(&q), "101 bytes sent: more is left");
	is_int(q.iov[q.i].iov_len, 1, "the first iovec has its last byte left");
	oq_sent(&q, 501);
	ok(!oq_pending(&q), "the rest sent: the queue is empty");
	is_int(oq_sc_room(&q), 100, "and its scratch is room again");
	is_int(q.n, 0, "with no iovec");
	oq_free(&q);
	pooled();
	return done_testing();
}

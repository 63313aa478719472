/* Unit tests of the output queue: scratch room and its reserve, iovec merging, partial sends. */
#include <string.h>

#include "oq.h"
#include "tap.h"

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
	return done_testing();
}

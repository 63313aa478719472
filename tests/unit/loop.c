/* Unit tests of the event loop's turn: due timers before the ready events and between their batches, and an event dropped once its object is gone. */
#include <stdlib.h>
#include <sys/epoll.h>
#include <fcntl.h>
#include <unistd.h>

#include "clock.h"
#include "loop.h"
#include "tap.h"

#define NFD 40

static char order[256];
static int norder;
static struct ev evs[NFD];
static int pipes[NFD][2];
static int busy_us;
static struct ev *victim;

static void note(char c)
{
	if (norder < (int)sizeof(order) - 1)
		order[norder++] = c;
}

static void ev_cb(struct loop *l, struct ev *e, uint32_t events)
{
	char b[8];
	uint64_t end = (uint64_t)clock_ns() / 1000 + (uint64_t)busy_us;

	(void)l, (void)events;
	note((char)('a' + (e - evs) % 26));
	(void)!read(e->fd, b, sizeof(b));
	while ((uint64_t)clock_ns() / 1000 < end)
		;
}

static void timer_cb(struct loop *l, struct timer *t)
{
	(void)t;
	note('T');
	if (victim) {
		/* what a connection's free does: its pending event must not run */
		loop_drop(l, victim);
		victim = NULL;
	}
}

static void ready(int n)
{
	for (int i = 0; i < n; i++)
		(void)!write(pipes[i][1], "x", 1);
}

int main(void)
{
	struct loop l;
	struct timer t = { 0, 0, timer_cb };

	ok(loop_init(&l) == 0, "a loop");
	for (int i = 0; i < NFD; i++) {
		if (pipe2(pipes[i], O_NONBLOCK) < 0)
			return 1;
		evs[i] = (struct ev){ pipes[i][0], ev_cb };
		loop_watch(&l, &evs[i], EPOLLIN);
	}

	/* a timer due at the wake-up runs before the events of the turn */
	ready(3);
	loop_clock(&l);
	loop_arm(&l, &t, l.now_us);
	loop_turn(&l, 0);
	order[norder] = 0;
	ok(norder == 4 && order[0] == 'T', "a due timer runs before the turn's 3 events (order %s)", order);

	/* one due during a long batch runs before the batch is over: 40
	 * events of 500 us, a timer due 2 ms into it */
	norder = 0;
	busy_us = 500;
	ready(NFD);
	loop_clock(&l);
	loop_arm(&l, &t, l.now_us + 2000);
	loop_turn(&l, 0);
	order[norder] = 0;
	{
		const char *T = strchr(order, 'T');

		ok(T && T - order <= 8 + 4, "a timer due 2 ms into a 20 ms batch runs within 8 events of it "
		   "(order %s)", order);
	}

	/* an event whose object went (a timer closed it) is not run */
	norder = 0;
	busy_us = 0;
	ready(3);
	victim = &evs[1];
	loop_clock(&l);
	loop_arm(&l, &t, l.now_us);
	loop_turn(&l, 0);
	order[norder] = 0;
	ok(!strchr(order, 'b') && strchr(order, 'a') && strchr(order, 'c'),
	   "an event dropped by the timer before it is not run, the others are (order %s)", order);

	loop_free(&l);
	return done_testing();
}

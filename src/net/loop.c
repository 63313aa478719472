/* The event loop of one thread: epoll (or io_uring watching it), the timer heap run before and between the events, and the clock. */
#include <errno.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "evwait.h"
#include "loop.h"
#include "uring.h"

#define LOOP_EVENTS 256
#define LOOP_MAX_WAIT_US 1000000 /* a turn at least every second */
#define LOOP_TIMER_EVERY 8       /* events between two looks at the timers */

int loop_init(struct loop *l)
{
	*l = (struct loop){ .epfd = epoll_create1(EPOLL_CLOEXEC) };
	loop_clock(l);
	l->wake_us = l->now_us;
	return l->epfd < 0 ? -1 : 0;
}

int loop_use_ring(struct loop *l, int id)
{
	l->ring = uring_new(l->epfd, id);
	return l->ring ? 0 : -1;
}

void loop_free(struct loop *l)
{
	uring_free(l->ring);
	l->ring = NULL;
	if (l->epfd >= 0)
		close(l->epfd);
	l->epfd = -1;
	theap_free(&l->timers);
}

int loop_watch(struct loop *l, struct ev *e, uint32_t events)
{
	struct epoll_event ee = { .events = events, .data.ptr = e };

	return epoll_ctl(l->epfd, EPOLL_CTL_ADD, e->fd, &ee);
}

int loop_rewatch(struct loop *l, struct ev *e, uint32_t events)
{
	struct epoll_event ee = { .events = events, .data.ptr = e };

	if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, e->fd, &ee) == 0 || errno != ENOENT)
		return 0;
	return epoll_ctl(l->epfd, EPOLL_CTL_ADD, e->fd, &ee);
}

int loop_modify(struct loop *l, struct ev *e, uint32_t events)
{
	struct epoll_event ee = { .events = events, .data.ptr = e };

	return epoll_ctl(l->epfd, EPOLL_CTL_MOD, e->fd, &ee);
}

int loop_forget(struct loop *l, struct ev *e)
{
	return epoll_ctl(l->epfd, EPOLL_CTL_DEL, e->fd, NULL);
}

/* WHY: a t=2 answer's server time had a p50 of 2.111 ms, 50 us of it the
 * default slack of epoll_pwait2's timeout, and which wake-up came first
 * (a timer's or another event's) moved a run's server time with the
 * traffic: through HAProxy it was 0.032 ms longer in every round of
 * 37-hxload-ab.t than direct; an open loop's send times were as late */
void loop_exact_wake(void)
{
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
}

void loop_clock(struct loop *l)
{
	l->now_us = (uint64_t)clock_ns() / 1000;
	l->now_ms = l->now_us / 1000;
}

/* WHY microseconds: QUIC pacing and short waits must not be rounded up
 * to the next millisecond */
static uint64_t loop_timeout(const struct loop *l, uint64_t max_us)
{
	uint64_t next = timer_next(&l->timers);
	uint64_t t = next == TIMER_NONE ? LOOP_MAX_WAIT_US : next <= l->now_us ? 0 : next - l->now_us;

	return MIN(MIN(t, max_us), LOOP_MAX_WAIT_US);
}

void loop_drop(struct loop *l, struct ev *e)
{
	for (int i = 0; i < l->npending; i++)
		if (l->pending[i].data.ptr == e)
			l->pending[i].data.ptr = NULL;
}

static unsigned loop_timers(struct loop *l)
{
	struct timer *t;
	unsigned n = 0;

	while ((t = timer_pop(&l->timers, l->now_us))) {
		t->cb(l, t);
		n++;
	}
	return n;
}

/* the turn's last timers and end hook, and its work counted: from the wake-up to the
 * clock read before those, or after them when they did work. WHY not a
 * read of its own: the turn already ends with one (bench/cg: +1 % budget) */
static void loop_busy(struct loop *l)
{
	uint64_t end = l->now_us;
	int ran = loop_timers(l);

	/* WHY |, not ||: the turn's end hook runs whether timers ran or not */
	ran |= l->turn_end ? l->turn_end(l) : 0;
	if (ran)
		end = (uint64_t)clock_ns() / 1000;
	ctr_add(&l->busy_us, end - l->wake_us);
}

void loop_turn(struct loop *l, uint64_t max_wait_us)
{
	struct epoll_event evs[LOOP_EVENTS];
	uint64_t wait_us = loop_timeout(l, max_wait_us);
	int n = 0;

	if (l->ring) {
		/* completions first, then the epoll set if it has events */
		uring_wait(l->ring, wait_us);
		loop_clock(l);
		if (uring_reap(l->ring, l))
			n = ev_wait(l->epfd, evs, LOOP_EVENTS, 0);
		uring_epoll_more(l->ring, n > 0);
	} else {
		n = ev_wait(l->epfd, evs, LOOP_EVENTS, wait_us);
		loop_clock(l);
	}
	l->wake_us = l->now_us;
	/* WHY timers first: after the events, every wait due at the wake-up
	 * also waited for the whole batch (256 accepts or closes) */
	l->pending = evs;
	l->npending = n;
	atomic_store_explicit(&l->ready, (uint64_t)(n > 0 ? n : 0) + loop_timers(l), memory_order_relaxed);
	for (int i = 0; i < n; i++) {
		struct ev *e = evs[i].data.ptr;

		/* WHY: from here on, a free only drops the events after it */
		l->pending = evs + i + 1;
		l->npending = n - i - 1;
		if (e)
			e->cb(l, e, evs[i].events);
		/* WHY between events too: a batch of 256 new connections takes
		 * milliseconds, and a wait due meanwhile would wait for all */
		if ((i & (LOOP_TIMER_EVERY - 1)) == LOOP_TIMER_EVERY - 1) {
			loop_clock(l);
			loop_timers(l);
		}
	}
	l->pending = NULL;
	l->npending = 0;
	/* WHY the clock again: with the turn's first reading, the next wait
	 * would sleep for a timer that came due during the events */
	loop_clock(l);
	loop_busy(l);
}

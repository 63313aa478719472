/* The event loop of one thread: epoll (or io_uring watching it), the timer heap run before and between the events, and the clock. */
#ifndef HX_LOOP_H
#define HX_LOOP_H

#include <stdint.h>

#include "counter.h"
#include "timer.h"

struct loop;
struct uring;
struct epoll_event;

/* what epoll hands back: every registered object starts with one */
struct ev {
	int fd;
	void (*cb)(struct loop *l, struct ev *e, uint32_t events);
};

struct loop {
	int epfd;
	uint64_t now_us;     /* the loop clock, read once per turn: timers' unit */
	uint64_t now_ms;     /* the same in milliseconds */
	struct theap timers;
	struct uring *ring;  /* --io-uring: the ring this loop waits on, else NULL */
	struct epoll_event *pending; /* a turn's events not run yet (loop_drop), else NULL */
	int npending;
	/* after each turn's events and timers (QUIC's sendmmsg), or NULL: 1 when
	 * it did work (the busy time then reads the clock again) */
	int (*turn_end)(struct loop *l);
	/* the saturation guard's figures, read by the stats thread */
	uint64_t wake_us;    /* when the last wait ended */
	counter busy_us;     /* time spent out of the wait (the loop's work), summed */
	counter ready;       /* events and timers ready at the last wake-up */
};

/* Return convention of the loop's functions: 0, or -1 with errno set. */
int loop_init(struct loop *l);
/* Moves the loop onto an io_uring that watches its epoll set (in the
 * loop's own thread). -1 when the kernel refuses: the loop stays on epoll. */
int loop_use_ring(struct loop *l, int id);
void loop_free(struct loop *l);

/* registers <e> for <events> */
int loop_watch(struct loop *l, struct ev *e, uint32_t events);
/* the same for an fd another object registered before (a protocol that
 * takes a socket over): moves it to <e>, or registers it */
int loop_rewatch(struct loop *l, struct ev *e, uint32_t events);
/* changes what <e> waits for (0: nothing, it stays registered) */
int loop_modify(struct loop *l, struct ev *e, uint32_t events);

/* <e> is no longer watched (its fd goes to an owner that may not use
 * epoll: the ring) */
int loop_forget(struct loop *l, struct ev *e);

/* <e>'s object is freed (or its socket given to another): a turn's event
 * for it not run yet is dropped. Every object that loop_watch()ed an <ev>
 * calls it when it goes: timers run before the turn's events. */
void loop_drop(struct loop *l, struct ev *e);

/* The calling thread's waits end when asked, not up to 50 us later (its
 * timer slack, which the kernel uses to merge wake-ups): each thread that
 * runs a loop calls it once. */
void loop_exact_wake(void);

/* reads the clock into now_us / now_ms */
void loop_clock(struct loop *l);

/* One turn: waits at most <max_wait_us> (less when a timer is due sooner),
 * runs the timers due, then the ready events, then the timers due by then. */
void loop_turn(struct loop *l, uint64_t max_wait_us);

static inline int loop_arm(struct loop *l, struct timer *t, uint64_t expire_us)
{
	return timer_arm(&l->timers, t, expire_us);
}

static inline void loop_cancel(struct loop *l, struct timer *t)
{
	timer_cancel(&l->timers, t);
}

#endif

/* Per-thread timers on a binary min-heap: O(log n) arm, O(1) next, no syscall. */
#ifndef HX_TIMER_H
#define HX_TIMER_H

#include "timer-t.h"

#define TIMER_NONE UINT64_MAX

/* Queues <t> to expire at <expire>, moving it if already queued.
 * Returns 0, or -1 when the heap could not grow. */
int timer_arm(struct theap *th, struct timer *t, uint64_t expire);
void timer_cancel(struct theap *th, struct timer *t);

/* Removes and returns the earliest timer expired at <now>, NULL if none. */
struct timer *timer_pop(struct theap *th, uint64_t now);

static inline uint64_t timer_next(const struct theap *th)
{
	return th->n ? th->h[0]->expire : TIMER_NONE;
}

static inline int timer_queued(const struct timer *t)
{
	return t->idx != 0;
}

void theap_free(struct theap *th);

#endif

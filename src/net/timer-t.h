/* Types of the per-thread timer heap. */
#ifndef HX_TIMER_T_H
#define HX_TIMER_T_H

#include <stdint.h>

struct loop;

struct timer {
	uint64_t expire;     /* microseconds on the loop clock */
	uint32_t idx;        /* position in the heap + 1, 0 when not queued */
	void (*cb)(struct loop *l, struct timer *t);
};

struct theap {
	struct timer **h;
	uint32_t n;
	uint32_t cap;
};

#endif

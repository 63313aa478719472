/* Counters a thread owns and another may read (SIGUSR1, stats): relaxed atomics, a plain load and store for the owner. */
#ifndef HX_COUNTER_H
#define HX_COUNTER_H

#include <stdatomic.h>
#include <stdint.h>

/* WHY not ++ on an _Atomic: that is a locked read-modify-write; only the
 * owner writes, so a relaxed load and store is exact and costs a mov */
typedef _Atomic uint64_t counter;

static inline void ctr_add(counter *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n, memory_order_relaxed);
}

static inline uint64_t ctr_get(const counter *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

#endif

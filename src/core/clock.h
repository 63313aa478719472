/* Monotonic time: precise stamps for measured times, a cached per-loop ms clock for timers. */
#ifndef HX_CLOCK_H
#define HX_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds on CLOCK_MONOTONIC. A vDSO call, no syscall: cheap enough to
 * stamp every request, which is what makes the X-rsp times true. */
static inline int64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t clock_ms(void)
{
	return clock_ns() / 1000000;
}

/* The microsecond <ms> milliseconds from now, rounded up: a wait is never
 * shorter than asked */
static inline uint64_t clock_us_after_ms(uint64_t ms)
{
	return ((uint64_t)clock_ns() + ms * 1000000 + 999) / 1000;
}

#endif

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

/* Now in microseconds, rounded up: a wait counted from here is never
 * shorter than asked */
static inline uint64_t clock_us_ceil(void)
{
	return ((uint64_t)clock_ns() + 999) / 1000;
}

#endif

/* Per-thread pools of fixed-size buffers: connections hold buffers only while they work. */
#ifndef HX_POOL_H
#define HX_POOL_H

#include <stddef.h>
#include <stdint.h>

#define POOL_KEEP 256 /* buffers kept for reuse; beyond, they go back to malloc */

struct pool {
	size_t size;
	uint32_t n;
	uint8_t zero;                /* a new buffer comes zeroed */
	uint32_t keep;               /* buffers kept at most (0: POOL_KEEP) */
	void *v[POOL_KEEP];
};

/* a buffer of pool->size bytes (zeroed when new and pool->zero), or NULL */
void *pool_get(struct pool *p);
void pool_put(struct pool *p, void *buf);
void pool_drain(struct pool *p);

#endif

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

/* the slow sides of pool_get and pool_put: a new buffer, one past what is kept */
void *pool_new(struct pool *p);
void pool_free(void *buf);
void pool_drain(struct pool *p);

/* a buffer of pool->size bytes (zeroed when new and pool->zero), or NULL.
 * WHY inline, as pool_put: an h1 keep-alive request takes and gives back
 * three buffers, the calls 30 of its instructions (bench/cg) */
static inline void *pool_get(struct pool *p)
{
	return p->n ? p->v[--p->n] : pool_new(p);
}

/* <buf> back to <p> (NULL: nothing), kept up to p->keep (0: POOL_KEEP) */
static inline void pool_put(struct pool *p, void *buf)
{
	if (p->n < (p->keep - 1u < POOL_KEEP ? p->keep : POOL_KEEP) && buf)
		p->v[p->n++] = buf;
	else
		pool_free(buf);
}

#endif

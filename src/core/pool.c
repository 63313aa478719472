/* Per-thread pools of fixed-size buffers: connections hold buffers only while they work. */
#include <stdlib.h>

#include "pool.h"

void *pool_get(struct pool *p)
{
	return p->n ? p->v[--p->n] : malloc(p->size);
}

void pool_put(struct pool *p, void *buf)
{
	if (!buf)
		return;
	if (p->n < POOL_KEEP)
		p->v[p->n++] = buf;
	else
		free(buf);
}

void pool_drain(struct pool *p)
{
	while (p->n)
		free(p->v[--p->n]);
}

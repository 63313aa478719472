/* Per-thread pools of fixed-size buffers: connections hold buffers only while they work. */
#include <stdlib.h>

#include "pool.h"

void *pool_new(struct pool *p)
{
	/* WHY zeroed when asked: what a struct holds (an exchange's E=2 copy)
	 * starts empty; buffers need not */
	return p->zero ? calloc(1, p->size) : malloc(p->size);
}

void pool_free(void *buf)
{
	free(buf);
}

void pool_drain(struct pool *p)
{
	while (p->n)
		free(p->v[--p->n]);
}

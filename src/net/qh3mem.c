/* nghttp3's memory from per-thread pools by size class (szpool): a request's six short-lived blocks without malloc. */
#include <stdint.h>
#include <string.h>

#include "qh3mem.h"
#include "szpool.h"

static void *qh_malloc(size_t size, void *user)
{
	(void)user;
	return szp_malloc(size);
}

static void qh_free(void *ptr, void *user)
{
	(void)user;
	szp_free(ptr);
}

static void *qh_calloc(size_t n, size_t size, void *user)
{
	void *p;

	(void)user;
	if (size && n > SIZE_MAX / size)
		return NULL;
	if ((p = szp_malloc(n * size)))
		memset(p, 0, n * size);
	return p;
}

static void *qh_realloc(void *ptr, size_t size, void *user)
{
	(void)user;
	return szp_realloc(ptr, size);
}

const nghttp3_mem qh3mem_pools = { NULL, qh_malloc, qh_free, qh_calloc, qh_realloc };

const nghttp3_mem *qh3mem(void)
{
	return SZP_POOLED ? &qh3mem_pools : NULL;
}

void qh3mem_drain(void)
{
	szp_drain();
}

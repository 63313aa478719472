/* nghttp3's memory from per-thread pools by size class: a request's six short-lived blocks without malloc. */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "pool.h"
#include "qh3mem.h"

#define QH_CLASSES 7   /* 64 bytes to 4 KiB, header included */
#define QH_DIRECT  QH_CLASSES
#define QH_MIN     64

/* WHY the pad: the block's bytes start after it with malloc's alignment
 * (16 here; max_align_t itself is 32 bytes long) */
union qh_hdr {
	uint8_t cls;
	char pad[_Alignof(max_align_t)];
};

/* WHY QH_MIN << c spelled out: a class's size is fixed, set here once */
static __thread struct pool pools[QH_CLASSES] = {
	{ .size = 64 }, { .size = 128 }, { .size = 256 }, { .size = 512 },
	{ .size = 1024 }, { .size = 2048 }, { .size = 4096 },
};
_Static_assert(QH_CLASSES == 7 && QH_MIN == 64, "pools[]: one size per class");

/* WHY by the highest bit and not a loop over the classes: 11 blocks an h3
 * request on hxload's side, the loop was a third of qh_malloc (callgrind) */
static unsigned class_of(size_t size)
{
	size_t need = size + sizeof(union qh_hdr);
	unsigned c;

	if (need <= QH_MIN)
		return 0;
	/* the class whose size is the power of two at or above <need> */
	c = (unsigned)(sizeof(unsigned long) * 8) - (unsigned)__builtin_clzl((unsigned long)need - 1) - 6;
	return c < QH_CLASSES ? c : QH_DIRECT;
}
_Static_assert(QH_MIN == 1 << 6, "class_of(): 6 is log2(QH_MIN)");

/* bytes the caller may use in the block behind <h> */
static size_t room(union qh_hdr *h)
{
	if (h->cls == QH_DIRECT)
		return malloc_usable_size(h) - sizeof(*h);
	return ((size_t)QH_MIN << h->cls) - sizeof(*h);
}

static void *qh_malloc(size_t size, void *user)
{
	unsigned c = class_of(size);
	union qh_hdr *h;

	(void)user;
	if (size > SIZE_MAX - sizeof(*h))
		return NULL;
	if (c == QH_DIRECT) {
		h = malloc(sizeof(*h) + size);
	} else {
		h = pool_get(&pools[c]);
	}
	if (!h)
		return NULL;
	h->cls = (uint8_t)c;
	return h + 1;
}

static void qh_free(void *ptr, void *user)
{
	union qh_hdr *h = ptr ? (union qh_hdr *)ptr - 1 : NULL;

	(void)user;
	if (!h)
		return;
	if (h->cls == QH_DIRECT)
		free(h);
	else
		pool_put(&pools[h->cls], h);
}

static void *qh_calloc(size_t n, size_t size, void *user)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	if ((p = qh_malloc(n * size, user)))
		memset(p, 0, n * size);
	return p;
}

static void *qh_realloc(void *ptr, size_t size, void *user)
{
	union qh_hdr *h;
	void *n;

	if (!ptr)
		return qh_malloc(size, user);
	h = (union qh_hdr *)ptr - 1;
	if (size <= room(h) && class_of(size) == h->cls)
		return ptr;
	if (!(n = qh_malloc(size, user)))
		return NULL; /* WHY: as realloc, the old block stays */
	memcpy(n, ptr, MIN(room(h), size));
	qh_free(ptr, user);
	return n;
}

/* WHY not under ASan: a pooled block freed and reused is a use after free
 * that ASan would no longer see, in nghttp3 or in our callbacks */
#if defined(__SANITIZE_ADDRESS__)
#define QH_POOLED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QH_POOLED 0
#endif
#endif
#ifndef QH_POOLED
#define QH_POOLED 1
#endif

const nghttp3_mem qh3mem_pools = { NULL, qh_malloc, qh_free, qh_calloc, qh_realloc };

const nghttp3_mem *qh3mem(void)
{
	return QH_POOLED ? &qh3mem_pools : NULL;
}

void qh3mem_drain(void)
{
	for (unsigned c = 0; c < QH_CLASSES; c++)
		pool_drain(&pools[c]);
}

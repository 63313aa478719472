/* Blocks from per-thread pools by size class: a free list a class, threaded through the free blocks, each bounded; malloc past the last class. */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "szpool.h"

#define SZP_DIRECT SZP_CLASSES /* past the classes: malloc's own block */
#define SMALL_MAX  128         /* up to here, classes 16 bytes apart */
#define NSMALL     (SMALL_MAX / 16)

/* WHY the pad: the block's bytes start after it with malloc's alignment
 * (16 here; max_align_t itself is 32 bytes long) */
union szp_hdr {
	uint32_t cls;
	char pad[_Alignof(max_align_t)];
};

/* WHY lists through the free blocks, not arrays of pointers: glibc zeroes
 * every thread's static TLS when it starts; this is 400 bytes of it */
static __thread struct {
	void *top[SZP_CLASSES];
	uint16_t n[SZP_CLASSES];
} fl;

/* WHY by the highest bit: OpenSSL takes ~2,300 blocks a handshake */
static unsigned class_of(size_t size)
{
	unsigned e;

	if (size <= SMALL_MAX)
		return size ? (unsigned)((size - 1) >> 4) : 0;
	if (size > SZP_MAX)
		return SZP_DIRECT;
	/* 2^e < size <= 2^(e+1): four classes, a quarter of 2^e apart */
	e = (unsigned)(sizeof(unsigned long) * 8 - 1) - (unsigned)__builtin_clzl((unsigned long)size - 1);
	return NSMALL + (e - 7) * 4 + (unsigned)(((size - 1) >> (e - 2)) & 3);
}
_Static_assert(NSMALL + (14 - 7) * 4 + 3 == SZP_CLASSES - 1 && SZP_MAX == 1 << 15, "class_of(): the last class ends at SZP_MAX");

/* each class's size and how many free blocks its pool keeps. WHY these
 * bounds: about 64 KiB a class (512 small blocks, 8 big ones), about 3 MiB
 * a thread at most; a handshake's peak stays within them */
static const struct {
	uint32_t bytes;
	uint16_t keep;
} cls[SZP_CLASSES] = {
	{ 16, 512 },    { 32, 512 },    { 48, 512 },    { 64, 512 },
	{ 80, 512 },    { 96, 512 },    { 112, 512 },   { 128, 512 },
	{ 160, 256 },   { 192, 256 },   { 224, 256 },   { 256, 256 },
	{ 320, 128 },   { 384, 128 },   { 448, 128 },   { 512, 128 },
	{ 640, 64 },    { 768, 64 },    { 896, 64 },    { 1024, 64 },
	{ 1280, 32 },   { 1536, 32 },   { 1792, 32 },   { 2048, 32 },
	{ 2560, 16 },   { 3072, 16 },   { 3584, 16 },   { 4096, 16 },
	{ 5120, 8 },    { 6144, 8 },    { 7168, 8 },    { 8192, 8 },
	{ 10240, 8 },   { 12288, 8 },   { 14336, 8 },   { 16384, 8 },
	{ 20480, 8 },   { 24576, 8 },   { 28672, 8 },   { 32768, 8 },
};

size_t szp_class_size(size_t size)
{
	unsigned c = class_of(size);

	return c < SZP_CLASSES ? cls[c].bytes : size;
}

void *szp_malloc(size_t size)
{
	unsigned c = class_of(size);
	union szp_hdr *h;
	void *p;

	if (c < SZP_CLASSES && (p = fl.top[c])) {
		fl.top[c] = *(void **)p;
		fl.n[c]--;
		return p;
	}
	if (size > SIZE_MAX - sizeof(*h))
		return NULL;
	if (!(h = malloc(sizeof(*h) + (c < SZP_CLASSES ? cls[c].bytes : size))))
		return NULL;
	h->cls = c;
	return h + 1;
}

void *szp_malloc_exact(size_t size)
{
	union szp_hdr *h;

	if (size > SIZE_MAX - sizeof(*h) || !(h = malloc(sizeof(*h) + size)))
		return NULL;
	h->cls = SZP_DIRECT;
	return h + 1;
}

void szp_free(void *p)
{
	union szp_hdr *h = p ? (union szp_hdr *)p - 1 : NULL;
	unsigned c;

	if (!h)
		return;
	c = h->cls;
	if (c < SZP_CLASSES && fl.n[c] < cls[c].keep) {
		*(void **)p = fl.top[c];
		fl.top[c] = p;
		fl.n[c]++;
		return;
	}
	free(h);
}

void *szp_realloc(void *p, size_t size)
{
	union szp_hdr *h;
	size_t room;
	void *n;

	if (!p)
		return szp_malloc(size);
	h = (union szp_hdr *)p - 1;
	room = h->cls < SZP_CLASSES ? cls[h->cls].bytes : malloc_usable_size(h) - sizeof(*h);
	if (size <= room && class_of(size) == h->cls)
		return p;
	if (!(n = szp_malloc(size)))
		return NULL; /* WHY: as realloc, the old block stays */
	memcpy(n, p, MIN(room, size));
	szp_free(p);
	return n;
}

void szp_drain(void)
{
	for (unsigned c = 0; c < SZP_CLASSES; c++)
		while (fl.top[c]) {
			void *p = fl.top[c];

			fl.top[c] = *(void **)p;
			free((union szp_hdr *)p - 1);
		}
	memset(fl.n, 0, sizeof(fl.n));
}

size_t szp_kept(void)
{
	size_t n = 0;

	for (unsigned c = 0; c < SZP_CLASSES; c++)
		n += fl.n[c];
	return n;
}

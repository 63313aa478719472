/* Blocks from per-thread pools by size class: a free list a class, threaded through the free blocks, each bounded; malloc past the last class. */
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "szpool.h"

#define SZP_DIRECT SZP_CLASSES /* past the classes: malloc's own block */
#define SMALL_MAX  128         /* up to here, classes 16 bytes apart */
#define NSMALL     (SMALL_MAX / 16)
#define PER_ROW    8 /* classes a doubling past SMALL_MAX, 2^(e-3) apart */

/* WHY lists through the free blocks, not arrays of pointers: glibc zeroes
 * every thread's static TLS when it starts; this is 720 bytes of it */
static __thread struct {
	void *top[SZP_CLASSES];
	uint16_t n[SZP_CLASSES];
} fl;

/* WHY 8 a doubling, not 4: the block a class gives is malloc's whole, so a
 * class's rounding stays with each block a connection keeps (OpenSSL's SSL
 * of 7,624 bytes took 8,192 at 4 a doubling, 7,680 now): at most a ninth */
static uint32_t cls_bytes(unsigned c)
{
	unsigned e = 7 + (c - NSMALL) / PER_ROW;

	if (c < NSMALL)
		return (c + 1) * 16;
	return (1u << e) + ((c - NSMALL) % PER_ROW + 1) * (1u << (e - 3));
}

/* how many free blocks a class's pool keeps. WHY these bounds: about 32 KiB
 * a class up to 4 KiB blocks (512 small ones), 8 blocks past: about 3 MiB a
 * thread at most; a handshake's peak stays within them */
#define ROW(k) k, k, k, k, k, k, k, k
static const uint16_t keep[SZP_CLASSES] = {
	ROW(512), ROW(256), ROW(128), ROW(64), ROW(32), ROW(16), ROW(8), ROW(8), ROW(8),
};

/* the highest set bit of <v> (> 0) */
static unsigned log2_floor(size_t v)
{
	return (unsigned)(sizeof(unsigned long) * 8 - 1) - (unsigned)__builtin_clzl((unsigned long)v);
}

/* the smallest class that holds <size> bytes. WHY by the highest bit:
 * OpenSSL takes ~2,300 blocks a handshake */
static unsigned class_of(size_t size)
{
	unsigned e;

	if (size <= SMALL_MAX)
		return size ? (unsigned)((size - 1) >> 4) : 0;
	if (size > SZP_MAX)
		return SZP_DIRECT;
	/* 2^e < size <= 2^(e+1): eight classes, 2^(e-3) apart */
	e = log2_floor(size - 1);
	return NSMALL + (e - 7) * PER_ROW + (unsigned)(((size - 1) >> (e - 3)) & (PER_ROW - 1));
}
_Static_assert(NSMALL + (14 - 7) * PER_ROW + PER_ROW - 1 == SZP_CLASSES - 1 && SZP_MAX == 1 << 15,
	       "class_of(): the last class ends at SZP_MAX");
_Static_assert(NSMALL == PER_ROW && SZP_CLASSES == 9 * PER_ROW, "keep[]: the small classes, then a bound a row");

/* the largest class whose blocks <room> usable bytes can serve, or
 * SZP_DIRECT: a freed block is pooled by what it holds, not by what was
 * asked (malloc rounds up; a block a class gave holds at least its bytes) */
static unsigned class_held(size_t room)
{
	unsigned e, j;

	if (room < 16)
		return SZP_DIRECT;
	if (room < SMALL_MAX + 16)
		return (unsigned)(room >> 4) - 1;
	/* 2^e <= room < 2^(e+1); j eighths of 2^e past it */
	e = log2_floor(room);
	j = (unsigned)((room >> (e - 3)) & (PER_ROW - 1));
	j += NSMALL + (e - 7) * PER_ROW;
	return j - 1 < SZP_CLASSES ? j - 1 : SZP_DIRECT;
}

size_t szp_class_size(size_t size)
{
	unsigned c = class_of(size);

	return c < SZP_CLASSES ? cls_bytes(c) : size;
}

void *szp_malloc(size_t size)
{
	unsigned c = class_of(size);
	void *p;

	if (c < SZP_CLASSES && (p = fl.top[c])) {
		fl.top[c] = *(void **)p;
		fl.n[c]--;
		return p;
	}
	/* WHY the bound: glibc's refuses past it with NULL, the sanitizers' abort */
	if (size > PTRDIFF_MAX)
		return NULL;
	return malloc(c < SZP_CLASSES ? cls_bytes(c) : size);
}

void szp_free(void *p)
{
	unsigned c;

	if (!p)
		return;
	c = class_held(malloc_usable_size(p));
	if (c < SZP_CLASSES && fl.n[c] < keep[c]) {
		*(void **)p = fl.top[c];
		fl.top[c] = p;
		fl.n[c]++;
		return;
	}
	free(p);
}

void *szp_realloc(void *p, size_t size)
{
	unsigned c = class_of(size);
	size_t room;
	void *n;

	if (!p)
		return szp_malloc(size);
	room = malloc_usable_size(p);
	if (c == SZP_DIRECT && class_held(room) == SZP_DIRECT)
		return size > PTRDIFF_MAX ? NULL : realloc(p, size); /* WHY: past the classes on both ends, malloc's own */
	if (size <= room && class_held(room) == c)
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
			free(p);
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

/* Unit tests of nghttp3's pooled memory (szpool): every size class and the direct one, reuse, the classes' bounds, realloc across classes, calloc's zeroes and overflow. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qh3mem.h"
#include "szpool.h"
#include "tap.h"

static const nghttp3_mem *m = &qh3mem_pools;

/* each size's block takes and keeps all its bytes */
static void sizes(void)
{
	static const size_t sz[] = { 0, 1, 47, 48, 49, 112, 113, 500, 1000, 2000, 4080, 4081, 9000, 100000 };
	int good = 1;

	for (size_t i = 0; i < sizeof(sz) / sizeof(sz[0]); i++) {
		unsigned char *p = m->malloc(sz[i], NULL);

		good &= p && (uintptr_t)p % 16 == 0;
		if (p) {
			memset(p, 0xa5, sz[i]);
			good &= !sz[i] || (p[0] == 0xa5 && p[sz[i] - 1] == 0xa5);
		}
		m->free(p, NULL);
	}
	ok(good, "blocks of 0 B to 100 kB, every class and past the last, aligned as malloc's and whole");
}

static void reuse(void)
{
	void *a = m->malloc(100, NULL), *b;

	m->free(a, NULL);
	b = m->malloc(98, NULL);
	ok(a == b, "a block freed is the next one its class gives");
	m->free(b, NULL);
	a = m->malloc(50000, NULL);
	ok(a != NULL, "a block past the classes comes from malloc");
	m->free(a, NULL);
}

/* each class holds the sizes up to its block, the next byte goes up a
 * class: a block freed at the bound comes back for that size, never for
 * one byte more */
static void bounds(void)
{
	int good = 1;

	for (size_t k = 16; k < SZP_MAX; k = szp_class_size(k + 1)) {
		void *a = m->malloc(k, NULL), *b;

		m->free(a, NULL);
		b = m->malloc(k + 1, NULL);
		good &= b != a;
		m->free(b, NULL);
		b = m->malloc(k, NULL);
		good &= b == a;
		m->free(b, NULL);
	}
	ok(good, "the classes' bounds: 16, 32 ... 32768 bytes each in their own, one byte more in the next");
}

static void grow(void)
{
	unsigned char *p = m->realloc(NULL, 40, NULL), *q;
	int kept = 1;

	for (int i = 0; i < 40; i++)
		p[i] = (unsigned char)i;
	q = m->realloc(p, 44, NULL);
	ok(q == p, "realloc within the block's class keeps it in place");
	q = m->realloc(q, 3000, NULL);
	for (int i = 0; i < 40; i++)
		kept &= q[i] == (unsigned char)i;
	q = m->realloc(q, 20000, NULL);
	for (int i = 0; i < 40; i++)
		kept &= q && q[i] == (unsigned char)i;
	q = m->realloc(q, 30000, NULL);
	p = m->realloc(q, 10, NULL);
	for (int i = 0; i < 10; i++)
		kept &= p && p[i] == (unsigned char)i;
	ok(kept, "realloc keeps the bytes up a class, past the classes, within malloc and back down");
	m->free(p, NULL);
}

int main(void)
{
	unsigned char *z, *d;
	int zero = 1;

	sizes();
	reuse();
	bounds();
	grow();
	d = m->malloc(200, NULL);
	memset(d, 0xff, 200);
	m->free(d, NULL);
	z = m->calloc(25, 8, NULL);
	ok(z == d, "calloc takes the block just freed");
	for (int i = 0; i < 200; i++)
		zero &= z[i] == 0;
	ok(zero, "and zeroes it");
	m->free(z, NULL);
	ok(m->calloc(SIZE_MAX / 2, 4, NULL) == NULL, "calloc refuses a size that overflows");
	ok(m->malloc(SIZE_MAX - 4, NULL) == NULL, "malloc refuses a size past PTRDIFF_MAX, under a sanitizer too");
	m->free(NULL, NULL);
	d = m->malloc(100, NULL);
	m->free(d, NULL);
	qh3mem_drain();
	z = m->malloc(100, NULL);
	ok(z != NULL, "after a drain a class takes from malloc again");
	m->free(z, NULL);
	/* WHY: LeakSanitizer (the ASan build) reports any block a drain left */
	qh3mem_drain();
	return done_testing();
}

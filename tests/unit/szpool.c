/* Unit tests of szpool's classes: every size has one that holds it, none wastes over a ninth past 128 bytes, a freed block pooled by what it holds, and a pool's blocks come back after a drain from malloc. */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "szpool.h"
#include "tap.h"

static void classes(void)
{
	size_t prev = 0, n = 0;
	int holds = 1, tight = 1;

	for (size_t s = 1; s <= SZP_MAX; s++) {
		size_t c = szp_class_size(s);

		holds &= c >= s && c % 16 == 0 && c >= prev;
		/* WHY a ninth: eight classes a doubling waste at most 1/9 of a block */
		tight &= s <= 128 ? c - s < 16 : (c - s) * 9 <= c;
		n += c != prev;
		prev = c;
	}
	ok(holds, "every size from 1 to %d bytes has a class that holds it, 16-byte aligned, growing", SZP_MAX);
	ok(tight, "a class wastes under 16 bytes up to 128, at most a ninth past");
	is_int(n, SZP_CLASSES, "%d classes", SZP_CLASSES);
	is_int(szp_class_size(SZP_MAX + 1), SZP_MAX + 1, "past the last class, a block is its own size");
}

/* the bound on a pool: of 600 blocks freed, the first 512 stay in it and
 * the rest go to free(); it gives them back last in, first out, so the
 * first block taken again is the 512th freed (unbounded: the 600th) */
static void bounded(void)
{
	enum { N = 600, KEEP = 512 };
	static void *v[N], *w[N];
	int lifo = 1;

	for (int i = 0; i < N; i++)
		v[i] = szp_malloc(16);
	for (int i = 0; i < N; i++)
		szp_free(v[i]);
	for (int i = 0; i < N; i++)
		w[i] = szp_malloc(16);
	for (int i = 0; i < KEEP; i++)
		lifo &= w[i] == v[KEEP - 1 - i];
	ok(lifo, "the 16-byte pool kept the first 512 blocks freed of 600, and gave them back last in, first out");
	for (int i = 0; i < N; i++)
		szp_free(w[i]);
}

/* a block is malloc's own, no header: freed, it serves the largest class
 * it holds, whoever took it and whatever size was asked */
static void by_room(void)
{
	void *m = malloc(1000), *p, *q, *r;
	size_t kept = szp_kept();
	int served = 1;

	szp_free(m);
	ok(szp_kept() == kept + 1, "a block malloc gave of 1,000 bytes is pooled when freed here");
	p = szp_malloc(960);
	ok(p == m, "... and serves the class below it (960 bytes)");
	free(p);
	/* each class's block, freed, comes back for its own class and no other */
	for (size_t s = 1; s <= SZP_MAX; s += 7) {
		p = szp_malloc(s);
		served &= p && malloc_usable_size(p) >= s;
		szp_free(p);
		q = szp_malloc(s);
		served &= q == p;
		szp_free(q);
		/* and never for the class above, which it cannot hold */
		r = szp_malloc(szp_class_size(s) + 1);
		served &= r != q;
		szp_free(r);
	}
	ok(served, "every class's block, freed, is the next of its class and of none above, and holds its bytes");
	p = szp_malloc(100);
	memset(p, 7, 100);
	q = szp_realloc(p, 110);
	ok(q == p, "realloc within the class keeps the block");
	r = szp_realloc(q, 3000);
	ok(r && ((unsigned char *)r)[99] == 7 && malloc_usable_size(r) >= 3000, "realloc up a class moves the bytes");
	szp_free(r);
	szp_drain();
	ok(szp_kept() == 0, "a drain leaves no block kept");
}

int main(void)
{
	void *a, *b;

	classes();
	bounded();
	by_room();
	a = szp_malloc(40000);
	b = szp_realloc(a, 50000);
	ok(b != NULL, "a block past the classes grows through malloc");
	szp_free(b);
	/* WHY: LeakSanitizer (the ASan build) reports any block a drain left */
	szp_drain();
	return done_testing();
}

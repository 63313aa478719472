/* Unit tests of szpool's classes: every size has one that holds it, none wastes over a fifth past 128 bytes, and a pool's blocks come back after a drain from malloc. */
#include <stdint.h>
#include <stdlib.h>

#include "szpool.h"
#include "tap.h"

static void classes(void)
{
	size_t prev = 0, n = 0;
	int holds = 1, tight = 1;

	for (size_t s = 1; s <= SZP_MAX; s++) {
		size_t c = szp_class_size(s);

		holds &= c >= s && c % 16 == 0 && c >= prev;
		/* WHY a fifth: four classes a doubling waste at most 1/5 of a block */
		tight &= s <= 128 ? c - s < 16 : (c - s) * 5 <= c;
		n += c != prev;
		prev = c;
	}
	ok(holds, "every size from 1 to %d bytes has a class that holds it, 16-byte aligned, growing", SZP_MAX);
	ok(tight, "a class wastes under 16 bytes up to 128, at most a fifth past");
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

int main(void)
{
	void *a, *b;

	classes();
	bounded();
	a = szp_malloc(40000);
	b = szp_realloc(a, 50000);
	ok(b != NULL, "a block past the classes grows through malloc");
	szp_free(b);
	/* WHY: LeakSanitizer (the ASan build) reports any block a drain left */
	szp_drain();
	return done_testing();
}

/* Per-thread timers on a binary min-heap: O(log n) arm, O(1) next, no syscall. */
#include <stdlib.h>

#include "bug.h"
#include "timer.h"

static inline void put(struct theap *th, uint32_t i, struct timer *t)
{
	th->h[i] = t;
	t->idx = i + 1;
}

static void sift_up(struct theap *th, uint32_t i)
{
	struct timer *t = th->h[i];

	while (i) {
		uint32_t parent = (i - 1) / 2;

		if (th->h[parent]->expire <= t->expire)
			break;
		put(th, i, th->h[parent]);
		i = parent;
	}
	put(th, i, t);
}

static void sift_down(struct theap *th, uint32_t i)
{
	struct timer *t = th->h[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= th->n)
			break;
		if (c + 1 < th->n && th->h[c + 1]->expire < th->h[c]->expire)
			c++;
		if (t->expire <= th->h[c]->expire)
			break;
		put(th, i, th->h[c]);
		i = c;
	}
	put(th, i, t);
}

static int grow(struct theap *th)
{
	uint32_t cap = th->cap ? th->cap * 2 : 256;
	struct timer **h = realloc(th->h, cap * sizeof(*h));

	if (!h)
		return -1;
	th->h = h;
	th->cap = cap;
	return 0;
}

int timer_arm(struct theap *th, struct timer *t, uint64_t expire)
{
	uint64_t old = t->expire;

	t->expire = expire;
	if (t->idx) {
		if (expire < old)
			sift_up(th, t->idx - 1);
		else
			sift_down(th, t->idx - 1);
		return 0;
	}
	if (th->n == th->cap && grow(th) < 0)
		return -1;
	put(th, th->n++, t);
	sift_up(th, th->n - 1);
	return 0;
}

void timer_cancel(struct theap *th, struct timer *t)
{
	uint32_t i;
	struct timer *last;

	if (!t->idx)
		return;
	i = t->idx - 1;
	BUG_ON(i >= th->n || th->h[i] != t);
	t->idx = 0;
	last = th->h[--th->n];
	if (i == th->n)
		return;
	put(th, i, last);
	if (i && th->h[(i - 1) / 2]->expire > last->expire)
		sift_up(th, i);
	else
		sift_down(th, i);
}

struct timer *timer_pop(struct theap *th, uint64_t now)
{
	struct timer *t;

	if (!th->n || th->h[0]->expire > now)
		return NULL;
	t = th->h[0];
	/* the heap's order: no child expires before its parent */
	BUG_ON(th->n > 1 && th->h[1]->expire < t->expire);
	BUG_ON(th->n > 2 && th->h[2]->expire < t->expire);
	timer_cancel(th, t);
	return t;
}

void theap_free(struct theap *th)
{
	free(th->h);
	th->h = NULL;
	th->n = th->cap = 0;
}

/* The open-loop schedule of a hxload thread: its share of the send times (shape.c's), queued as they fall due, taken by the connections. */
#include <stdlib.h>

#include "lc_sched.h"
#include "lc_thread.h"

static int due_grow(struct lc_thread *t)
{
	uint32_t cap = t->due_cap * 2;
	uint64_t *d = malloc(cap * sizeof(*d));

	if (!d)
		return -1;
	for (uint32_t i = 0; i < t->due_n; i++)
		d[i] = t->due[(t->due_head + i) % t->due_cap];
	free(t->due);
	t->due = d;
	t->due_head = 0;
	t->due_cap = cap;
	return 0;
}

/* the next send time of this thread's share of the schedule */
static void due_next(struct lc_thread *t)
{
	/* WHY times shards: the shards take every N-th send time of the one
	 * schedule, their threads every T-th of theirs */
	uint64_t rel = lc_due_at(lc_o, ((double)t->due_k * lc_o->threads + t->id) * lc_o->shards + lc_o->shard);

	t->next_due_us = rel == UINT64_MAX ? UINT64_MAX : t->start_us + rel;
	t->due_k++;
}

void lc_due_fill(struct lc_thread *t)
{
	while (t->next_due_us <= t->loop.now_us && t->next_due_us < t->end_us && t->due_n < t->budget) {
		if (t->due_n == t->due_cap - 1 && due_grow(t) < 0)
			break;
		t->due[(t->due_head + t->due_n++) % t->due_cap] = t->next_due_us;
		/* WHY: a send time the loop saw late was late for hxload's CPU
		 * (busy, or its core shared), whatever the connections could do */
		if (lc_in_window(t, t->next_due_us)) {
			t->st.scheduled++;
			t->st.loop_late_us += t->loop.now_us - t->next_due_us;
		}
		due_next(t);
	}
}

void lc_due_init(struct lc_thread *t)
{
	t->due_cap = 1024;
	if (!(t->due = malloc(t->due_cap * sizeof(*t->due))))
		lc_die("%s", "out of memory");
	due_next(t);
}

int lc_due_unshift(struct lc_thread *t, uint64_t t0)
{
	if (t->due_n >= t->due_cap)
		return -1;
	/* WHY at the head: it was due before every queued one */
	t->due_head = (t->due_head + t->due_cap - 1) % t->due_cap;
	t->due[t->due_head] = t0;
	t->due_n++;
	return 0;
}

int lc_due_take(struct lc_thread *t, uint64_t *due)
{
	if (!t->due_n)
		return 0;
	*due = t->due[t->due_head];
	t->due_head = (t->due_head + 1) % t->due_cap;
	t->due_n--;
	return 1;
}

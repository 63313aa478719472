/* ngtcp2's memory for one connection, tracked: what ngtcp2 0.12 leaves allocated when the connection is deleted (its issue 1244) is freed with it. */
#include <stdint.h>
#include <stdlib.h>

#include "qmem.h"

/* WHY a union: the block's bytes start after it with malloc's alignment */
union qmem_hdr {
	struct qmem_blk b;
	max_align_t align;
};

static void link_in(struct qmem *q, struct qmem_blk *b)
{
	b->prev = &q->head;
	b->next = q->head.next;
	q->head.next->prev = b;
	q->head.next = b;
}

static void unlink_out(struct qmem_blk *b)
{
	b->prev->next = b->next;
	b->next->prev = b->prev;
}

static void *qm_malloc(size_t size, void *user)
{
	union qmem_hdr *h = size < SIZE_MAX - sizeof(*h) ? malloc(sizeof(*h) + size) : NULL;

	if (!h)
		return NULL;
	link_in(user, &h->b);
	return h + 1;
}

static void *qm_calloc(size_t n, size_t size, void *user)
{
	union qmem_hdr *h;

	if (size && n > (SIZE_MAX - sizeof(*h)) / size)
		return NULL;
	if (!(h = calloc(1, sizeof(*h) + n * size)))
		return NULL;
	link_in(user, &h->b);
	return h + 1;
}

static void qm_free(void *ptr, void *user)
{
	union qmem_hdr *h = ptr ? (union qmem_hdr *)ptr - 1 : NULL;

	(void)user;
	if (!h)
		return;
	unlink_out(&h->b);
	free(h);
}

static void *qm_realloc(void *ptr, size_t size, void *user)
{
	union qmem_hdr *h, *n;

	if (!ptr)
		return qm_malloc(size, user);
	h = (union qmem_hdr *)ptr - 1;
	unlink_out(&h->b);
	n = size < SIZE_MAX - sizeof(*h) ? realloc(h, sizeof(*h) + size) : NULL;
	if (!n) {
		link_in(user, &h->b); /* WHY: realloc failed, the old block stays */
		return NULL;
	}
	link_in(user, &n->b);
	return n + 1;
}

void qmem_init(struct qmem *q)
{
	q->mem = (ngtcp2_mem){ q, qm_malloc, qm_free, qm_calloc, qm_realloc };
	q->head.prev = q->head.next = &q->head;
}

size_t qmem_release(struct qmem *q)
{
	size_t n = 0;

	while (q->head.next != &q->head) {
		struct qmem_blk *b = q->head.next;

		unlink_out(b);
		free(b);
		n++;
	}
	return n;
}

/* Intrusive doubly linked lists: a node inside each element, O(1) insert and unlink, no allocation. */
#ifndef HX_LIST_H
#define HX_LIST_H

#include <stddef.h>

#include "bug.h"
#include "common.h"

/* a list's head, or the node an element carries; an element is on one list
 * at a time (its live list or its free list) */
struct list {
	struct list *next, *prev;
};

static inline void list_init(struct list *h)
{
	h->next = h->prev = h;
}

static inline int list_empty(const struct list *h)
{
	return h->next == h;
}

/* <n> at the front of <h> */
static inline void list_add(struct list *h, struct list *n)
{
	BUG_ON(h->next->prev != h);
	n->next = h->next;
	n->prev = h;
	h->next->prev = n;
	h->next = n;
}

/* <n> off the list it is on; it then stands alone (list_empty(n)) */
static inline void list_del(struct list *n)
{
	BUG_ON(n->next->prev != n || n->prev->next != n);
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

/* the first node of <h> taken off it, or NULL when it is empty */
static inline struct list *list_pop(struct list *h)
{
	struct list *n = h->next;

	if (n == h)
		return NULL;
	list_del(n);
	return n;
}

#define list_elem(node, type, member) container_of(node, type, member)

/* every node of <h>; the current one may be unlinked or freed */
#define list_each_safe(pos, tmp, h) \
	for ((pos) = (h)->next, (tmp) = (pos)->next; (pos) != (h); (pos) = (tmp), (tmp) = (pos)->next)

#endif

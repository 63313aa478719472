/* The query language: items of a query string (or X-Hxterm header) into a plan. */
#ifndef HX_PLAN_H
#define HX_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "num.h"
#include "plan-t.h"
#include "rng.h"

struct plan_limits {
	uint64_t max_size;
	uint64_t max_wait;
	int strict;          /* --strict: an unknown key is a bad item, not ignored */
};

/* Resets <p> to the defaults (status 200, cacheable, nothing else). */
void plan_init(struct plan *p);

/* Applies the items of <q> (<len> bytes, no leading '?') on top of <p>.
 * Random forms are drawn from <r>. Returns 0, or -1 with a one-line reason
 * naming the item in p->err. An empty query or an item "h" sets PF_HELP.
 * An unknown key (size=1k, a cache buster) is named in p->ignored, or with
 * lim->strict is a bad item. */
int plan_apply(struct plan *p, const char *q, size_t len, struct rng *r,
	       const struct plan_limits *lim);

/* Copies <src> into <dst>: the H=/T= strings point into dst's own copy. */
void plan_copy(struct plan *dst, const struct plan *src);

/* Locates the query of a request target: the bytes after its first '?'.
 * Returns 1 and fills <q>/<qlen> when the target has a '?', else 0. */
int plan_query_of(const char *target, size_t tlen, const char **q,
		  size_t *qlen);

#endif

/* The query language: items of a query string (or X-Hxterm header) into a plan. */
#ifndef HX_PLAN_H
#define HX_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "num.h"
#include "plan-t.h"
#include "rng.h"

struct plan_limits {
	uint64_t max_size;
	uint64_t max_wait;
	int strict;          /* --strict: an unknown key is a bad item, not ignored */
};

/* Resets <p> to the defaults (status 200, cacheable, nothing else). <p>
 * is zeroed or was planned before: an extension it held is given back. */
void plan_init(struct plan *p);

/* ---------- the extension (plan_ext.c): taken when a key needs it ---------- */

/* The plan's extension, taken now if it has none (from the thread's free
 * list, else malloc): NULL out of memory. */
struct plan_ext *plan_ext_need(struct plan *p);
/* <e> back to the thread's list (PLAN_EXT_KEEP at most), or freed */
void plan_ext_put(struct plan_ext *e);
/* the thread's kept extensions freed (at a worker thread's end) */
void plan_ext_thread_free(void);
/* how many the thread keeps (for the tests) */
unsigned plan_ext_kept(void);
#define PLAN_EXT_KEEP 16

/* The plan's memory given back (its extension): before it is pooled or
 * freed; it may be planned again after. */
static inline void plan_done(struct plan *p)
{
	if (p->ext) {
		plan_ext_put(p->ext);
		p->ext = NULL;
	}
}

/* The one-line reason of a bad plan ('\n' ended): its extension's, or an
 * out-of-memory one when none could be taken. */
const char *plan_err(const struct plan *p);
/* Writes <why> and a '\n' as the plan's reason. Returns 0, or -1 when no
 * extension could be taken (plan_err then says out of memory). */
int plan_why(struct plan *p, const char *why);

/* s= and d= as written when in a random form (a WebSocket, sse=1 draw
 * them again each message), else "" */
static inline const char *plan_spec_s(const struct plan *p)
{
	return p->ext ? p->ext->spec_s : "";
}
static inline const char *plan_spec_d(const struct plan *p)
{
	return p->ext ? p->ext->spec_d : "";
}

/* Applies the items of <q> (<len> bytes, no leading '?') on top of <p>.
 * Random forms are drawn from <r>. Returns 0, or -1 with a one-line reason
 * naming the item in p->err. An empty query or an item "h" sets PF_HELP.
 * An unknown key (size=1k, a cache buster) is named in p->ignored, or with
 * lim->strict is a bad item. */
int plan_apply(struct plan *p, const char *q, size_t len, struct rng *r,
	       const struct plan_limits *lim);

/* Percent-decodes <len> bytes of <s> into <e>'s decode area (H=, T=,
 * hint=): its start, or NULL with <*err> */
char *plan_decode(struct plan_ext *e, const char *s, size_t len, size_t *olen, const char **err);

/* the connection keys (plan_conn.c): maxreq=, h2s=, h2w=, ping=, and
 * hint=. Returns 1 when taken, 0 when not one of them, -1 with <*err> when
 * its value is bad */
int plan_conn_word(struct plan *p, const char *k, size_t klen, const char *v, size_t vlen, const char **err);

/* Copies <src> into <dst>: the H=/T= strings point into dst's own copy of
 * the extension. Returns 0, or -1 out of memory (dst then has none). */
int plan_copy(struct plan *dst, const struct plan *src);

/* Locates the query of a request target: the bytes after its first '?'.
 * Returns 1 and fills <q>/<qlen> when the target has a '?', else 0.
 * WHY inline, "/?" first: nearly every target starts so, where memchr's
 * call and this one's were 50 instructions of an h1 request's (bench/cg) */
static inline int plan_query_of(const char *target, size_t tlen, const char **q, size_t *qlen)
{
	const char *m = tlen > 1 && target[1] == '?' && target[0] != '?' ? target + 1 : memchr(target, '?', tlen);

	if (!m)
		return 0;
	*q = m + 1;
	*qlen = tlen - (size_t)(m + 1 - target);
	return 1;
}

#endif

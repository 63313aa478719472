/* One protocol's connections in one worker: the live ones and their count, open and close accounting, drain and close-all, for TCP and QUIC alike (on the counted base, tc_link.h); a TCP one's end besides: those closed with ring operations in flight, those kept for the next, free, written once. */
#ifndef HX_TC_SET_H
#define HX_TC_SET_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "list.h"
#include "stats.h"
#include "tc_link.h"
#include "tconn.h"

#define TC_KEEP 64 /* closed connections a protocol keeps per thread; beyond, free() */

/* a protocol's closed connections, kept for the next ones, at most TC_KEEP */
struct tc_free {
	struct list l;
	uint32_t n;
};

/* what a protocol tells its sets, once */
struct tc_kind {
	uint32_t size;       /* the protocol's struct, its base at <off> */
	uint32_t off;
	/* what a closed connection still holds given back (buffers, client
	 * information), before it is kept or freed; its socket is not its */
	void (*release)(struct tconn *t);
	/* the session's count of open connections (sess_conn_gone); NULL:
	 * none (QUIC's, which are no session's) */
	void (*gone)(struct worker *w);
};

/* WHY one set for every protocol: the close accounting, the ring's late
 * completions and the recycling bound are the same for all of them; a
 * feature that crosses them (an id in the access log, an order for the
 * drain) is written here once. QUIC's (proto/quic) uses the counted part
 * alone, live and n: its connection's end is the transport's, and none is
 * kept (its memory is ngtcp2's and GnuTLS's, freed whole) */
struct tc_set {
	struct list live;     /* open: the drain and the end walk it */
	struct list zombies;  /* closed, with ring operations still in flight (TCP) */
	struct tc_free free;  /* closed, kept for the next connection (TCP) */
	uint32_t n;           /* on live */
	const struct tc_kind *k;
	struct loop *loop;    /* the worker's, and its counters */
	struct wstats *st;
};

/* WHY the loop and the counters given: the set knows no worker's type,
 * so the session layer, which defines it, may keep a set too */
void tc_set_init(struct tc_set *s, const struct tc_kind *k, struct loop *l, struct wstats *st);
/* ---------- the counted part, any connection's ---------- */

/* <l>, set up (its w), is open: live, counted in stats slot <slot>
 * (TC_NO_SLOT: none). WHY inline, and tc_get: a connection per request
 * pays them */
static inline void tc_count_open(struct tc_set *s, struct tc_link *l, unsigned slot)
{
	list_add(&s->live, &l->node);
	s->n++;
	if (slot != TC_NO_SLOT)
		st_conn_open(s->st, (enum st_proto)slot);
}

/* <l> ends: off live, its close counted in <slot> by <why> (enum
 * st_close) with <nreq> requests served, or its move (<moved>: it went on
 * as another protocol) */
void tc_count_close(struct tc_set *s, struct tc_link *l, unsigned slot, unsigned why, int moved, uint32_t nreq);
/* <fn> on every live connection; it may end the one it is given */
void tc_drain(struct tc_set *s, void (*fn)(struct tc_link *l));
/* <fn>, which ends the connection it is given, on every live one */
void tc_close_all(struct tc_set *s, void (*fn)(struct tc_link *l));

/* ---------- a TCP connection's start and end ---------- */

/* <t> never went live (its start failed; the caller keeps the socket):
 * released, then kept or freed */
void tc_put(struct tc_set *s, struct tconn *t);
/* <t> ends: its timer cancelled, its TLS ended, off live, its close
 * counted by t->nc.why (or its move, TC_MOVED); then on zombies while the ring
 * still works on it, else its socket closed, released, kept or freed */
void tc_end(struct tc_set *s, struct tconn *t, uint32_t nreq);
/* the last ring operation of a zombie completed: it goes as tc_end's did */
void tc_zombie_done(struct tc_set *s, struct tconn *t);
/* the kept connections freed: the thread ends (the ring drained before),
 * or a crowd left (none of them is the ring's: it finished with each) */
void tc_set_free(struct tc_set *s);

/* the protocol's struct around base <t> */
static inline void *tc_conn(const struct tc_set *s, struct tconn *t)
{
	return (char *)t - s->k->off;
}

/* a connection's memory: one kept (as it was left), else a zeroed one;
 * NULL */
static inline void *tc_get(struct tc_set *s)
{
	struct list *n = list_pop(&s->free.l);

	if (!n)
		return calloc(1, s->k->size);
	s->free.n--;
	return tc_conn(s, list_elem(n, struct tconn, node));
}

/* <t>, set up (w, nc.proto), is open: live, counted in its stats slot */
static inline void tc_add(struct tc_set *s, struct tconn *t)
{
	tc_count_open(s, &t->l, t->nc.proto);
}

#endif

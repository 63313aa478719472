/* HTTP/2 connections through nghttp2: h2c prior knowledge, Upgrade: h2c, ALPN h2; a row of the protocol table. */
#ifndef HX_H2_CONN_H
#define HX_H2_CONN_H

#include "list.h"
#include "pool.h"
#include "proto.h"
#include "session-t.h"
#include "tc_set.h"

struct h2c;
struct h2s;

/* HTTP/2's state in each worker (worker->ps[P_H2]) */
struct h2w {
	struct tc_set set;   /* its connections */
	struct list free_s;  /* streams, for the next ones */
	struct pool in;      /* input buffers, held while a connection reads or has streams */
	struct pool sc;      /* output queues' blocks, held while it sends or has streams */
	struct pool work;    /* engines' work states, held while requests flow (h2_eng.rest) */
};

static inline struct h2w *h2w(const struct worker *w)
{
	return w->ps[P_H2];
}

struct h2_eng;
/* the shell's engines: <hx> ours, <ng> nghttp2's; each connection takes
 * the one cfg.h2_engine names when it starts */
void h2c_engines(const struct h2_eng *hx, const struct h2_eng *ng);

/* the protocol row's (h2.c): a worker's HTTP/2 state, its connections
 * closed, freed; what it keeps for reuse freed (a crowd left); a connection
 * taken over; a drain (GOAWAY) */
int h2_thread_init(struct worker *w);
void h2_close_all(struct worker *w);
void h2_thread_free(struct worker *w);
void h2_trim(struct worker *w);
int h2c_start(struct worker *w, struct xprt *x, const struct handoff *h);
void h2c_drain(struct worker *w);

#endif

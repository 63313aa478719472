/* HTTP/2 connections through nghttp2: h2c prior knowledge, Upgrade: h2c, ALPN h2; a row of the protocol table. */
#ifndef HX_H2_CONN_H
#define HX_H2_CONN_H

#include "list.h"
#include "proto.h"
#include "session-t.h"

struct h2c;
struct h2s;

/* HTTP/2's state in each worker (worker->ps[P_H2]) */
struct h2w {
	struct list conns;   /* live connections */
	struct list free;
	struct list free_s;  /* streams, for the next ones */
	struct list zombies; /* closed, with ring operations in flight */
};

static inline struct h2w *h2w(const struct worker *w)
{
	return w->ps[P_H2];
}

#endif

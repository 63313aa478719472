/* Types of a worker thread as the protocols see it: its loop, its counters, each protocol's own state. */
#ifndef HX_SESSION_T_H
#define HX_SESSION_T_H

#include <stdint.h>

#include "common.h"
#include "list.h"
#include "loop.h"
#include "proto.h"
#include "rng.h"
#include "splice.h"
#include "stats.h"
#include "tc_set.h"

struct alog_w;

struct worker {
	struct loop loop;    /* epoll or io_uring, timers, clock */
	int id;
	struct rng rng;
	int draining;        /* a graceful drain started: close after each response */
	void *ps[P_MAX];     /* each protocol's per-thread state */
	struct tc_set hs;    /* connections before their protocol: PROXY headers, TLS handshakes (session layer) */
	struct splicer spl;  /* pipes for spliced HTTP/1 bodies */
	struct wstats st;
	struct alog_w *alog; /* the access log's buffer, NULL when off */
	/* the server's: called when a connection ended (resume accepting) */
	void (*conn_gone)(struct worker *w);
};

/* the worker a loop callback runs on */
static inline struct worker *worker_of(struct loop *l)
{
	return container_of(l, struct worker, loop);
}

#endif

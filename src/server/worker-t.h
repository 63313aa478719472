/* Types of a worker thread: its event loop, listeners, timers and counters. */
#ifndef HX_WORKER_T_H
#define HX_WORKER_T_H

#include <pthread.h>
#include <stdint.h>

#include "common.h"
#include "config-t.h"
#include "h1_parse.h"
#include "loop.h"
#include "pool.h"
#include "rng.h"
#include "splice.h"

struct listener {
	struct ev ev;
	const struct listen_addr *la;
	uint16_t port;
	uint8_t tls;         /* the TLS port: h1 or h2 by ALPN */
};

/* per-thread counters, summed when read */
struct wstats {
	uint64_t accepted;
	uint64_t requests;
	uint64_t errors;     /* requests answered 4xx/5xx by the parser */
	uint64_t bytes_in;
	uint64_t bytes_out;
};

struct h1c;
struct h2c;
struct h2s;
struct qconn;
struct qstream;
struct cidmap;

struct worker {
	struct loop loop;    /* epoll or io_uring, timers, clock */
	int id;
	pthread_t th;
	struct rng rng;
	struct listener lst[2 * CFG_MAX_LISTEN];
	int nlst;
	int paused;          /* listeners off: maxconn reached */
	int draining;        /* a graceful drain started: close after each response */
	uint64_t drain_end;  /* ms: end of a graceful drain, 0 when none */
	uint32_t nconn;
	struct h1c *conns;   /* live connections, for shutdown */
	struct h1c *free_h1c;
	struct pool h1_in;    /* HTTP/1 input buffers, held while a request is read */
	struct pool h1_sc;    /* HTTP/1 output scratch, held while a response is staged */
	struct pool h1_ex;    /* HTTP/1 request state (struct h1x) */
	struct h2c *h2conns;  /* live HTTP/2 connections */
	struct h2c *free_h2c;
	struct h2s *free_h2s;
	struct udp_ep *udp;   /* QUIC sockets, one per TLS port */
	int nudp;
	struct qconn *qconns; /* live QUIC connections */
	uint32_t nqconns;
	struct cidmap *cids;  /* connection IDs to QUIC connections */
	struct qstream *free_qs;
	uint8_t *txbuf;       /* packets built for one sendmsg (GSO) */
	struct splicer spl;   /* pipes for spliced HTTP/1 bodies */
	struct h1c *zombies;  /* closed h1 connections with ring operations in flight */
	struct wstats st;
	struct h1_req h1req; /* parser scratch: headers are only read in place */
};

/* the worker a loop callback runs on */
static inline struct worker *worker_of(struct loop *l)
{
	return container_of(l, struct worker, loop);
}

#endif

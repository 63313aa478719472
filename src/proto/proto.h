/* The protocol table: a row per protocol the server speaks, which the session layer and the workers iterate without naming any. */
#ifndef HX_PROTO_H
#define HX_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "gen.h"
#include "listen.h"
#include "xprt.h"

struct worker;
struct cinfo;

/* the rows, in the order of the table; also the index of each protocol's
 * per-thread state in worker->ps[] */
enum proto_id { P_H1, P_H2, P_H3, P_WS, P_MAX };

/* what a protocol takes over a TCP connection with */
struct handoff {
	const char *buf;             /* bytes already read, <len> of them */
	size_t len;
	uint8_t early;               /* they came as TLS early data (0-RTT) */
	uint8_t fresh;               /* epoll never had the socket (or forgot it): start()
				      * adds it, with no move tried first (a failed
				      * epoll_ctl for each connection) */
	uint16_t alt_port;           /* announce h3 on this UDP port (TLS), 0: no */
	struct ist settings;         /* an h2c Upgrade: HTTP2-Settings */
	const struct exch *ex;       /* an h2c Upgrade: the exchange that goes on */
	struct cinfo *ci;            /* the client beyond the socket, or NULL: the
				      * protocol owns it once start() took the
				      * connection */
};

/* Return conventions: int functions give 0, or -1 after which the caller
 * still owns what it passed (the socket of a start() that failed). */
struct proto {
	const char *name;            /* "h1", "h2", "h3" */
	const char *alpn;            /* its ALPN id over TLS on TCP, NULL: none */
	/* process-wide, before the threads start, and after they ended */
	int (*init)(void);
	void (*free)(void);
	/* a worker's own state, in its thread: made; at the end every
	 * connection closed, then (once the ring's operations are over) freed */
	int (*thread_init)(struct worker *w);
	void (*close_all)(struct worker *w);
	void (*thread_free)(struct worker *w);
	/* a crowd left (the worker trims its heap next): what the worker kept
	 * for the next connections (kept ones, pooled buffers, streams) back
	 * to malloc; NULL: nothing kept */
	void (*trim)(struct worker *w);
	/* the protocol's own sockets on a -L address (QUIC on the TLS port's
	 * UDP twin), NULL when it serves TCP connections the session hands it */
	int (*listen)(struct worker *w, const struct listen_addr *la, uint16_t tls_port);
	/* takes over the connection on <x> (its fd may be in the worker's epoll
	 * set under another owner: it moves it to its own) */
	int (*start)(struct worker *w, struct xprt *x, const struct handoff *h);
	/* a graceful drain began: idle connections close, the others finish */
	void (*drain)(struct worker *w);
	/* connections it holds that -n does not count (QUIC), for the drain */
	uint32_t (*live)(const struct worker *w);
};

extern const struct proto proto_h1, proto_h2, proto_h3, proto_ws;
/* them all, by enum proto_id (protos.c), for sess_init() */
extern const struct proto *const proto_table[P_MAX];

#endif

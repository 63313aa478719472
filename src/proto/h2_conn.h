/* HTTP/2 connections through nghttp2: h2c prior knowledge, Upgrade: h2c, ALPN h2. */
#ifndef HX_H2_CONN_H
#define HX_H2_CONN_H

#include <stddef.h>

#include "gen.h"
#include "msg-t.h"
#include "worker-t.h"
#include "xprt.h"

/* An HTTP/1.1 request that asked to upgrade: answered on stream 1 */
struct h2_upgrade {
	struct ist settings;     /* HTTP2-Settings, base64url */
	const struct exch *ex;   /* the exchange stream 1 takes over, copied */
};

/* The HTTP/2 connection preface a client sends first */
#define H2_PREFACE "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

/* Takes over the connection on <x> (its fd already in the worker's epoll),
 * with <len> bytes already read at <buf>; responses announce h3 on
 * <alt_port> when not 0. Returns 0, or -1 when it could not
 * (the caller still owns everything). */
int h2c_start(struct worker *w, struct xprt *x, const char *buf, size_t len,
	      const struct h2_upgrade *up, uint16_t alt_port);

/* The nghttp2 callbacks and options, shared read-only by every thread:
 * made once before the workers start. */
int h2_init(void);
void h2_free(void);

/* Graceful drain: GOAWAY on every connection; streams in flight finish. */
void h2c_drain(struct worker *w);

/* Closes every HTTP/2 connection of <w> and frees the free lists. */
void h2c_release_all(struct worker *w);

#endif

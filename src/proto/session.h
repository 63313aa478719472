/* The session layer: a TCP connection from accept to its protocol (TLS handshake, ALPN, h2 preface, Upgrade), over the protocol table. */
#ifndef HX_SESSION_H
#define HX_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "listen.h"
#include "proto.h"
#include "session-t.h"
#include "xprt.h"

/* The HTTP/2 connection preface a client sends first */
#define H2_PREFACE "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

/* Return convention: 0, or -1 after one line on stderr (set-up) or with the
 * caller still owning what it passed (a connection). */

/* every protocol's process-wide state, before the threads start: <table>
 * is proto_table (protos.c), which session.c keeps */
int sess_init(const struct proto *const *table);
void sess_free(void);

/* a worker's state for every protocol, in its thread; sess_thread_free()
 * closes every connection it still has first */
int sess_thread_init(struct worker *w);
void sess_thread_free(struct worker *w);
/* a crowd left: the connections every protocol keeps for reuse, and its
 * pooled buffers and streams, back to malloc (the worker trims its heap) */
void sess_trim(struct worker *w);
/* the protocols' own sockets on <la> (QUIC on its TLS port) */
int sess_listen(struct worker *w, const struct listen_addr *la);

/* An accepted socket <fd>, from the TLS port <tls_port> or a clear one
 * (0), of a listener that takes a PROXY header first (<proxy>) or not: the
 * header, a TLS handshake then the protocol ALPN chose, or HTTP/1.x (which
 * may switch to h2c). Counted for -n from here; -1: the caller closes
 * <fd>, nothing was counted. */
int sess_accept(struct worker *w, int fd, uint16_t tls_port, int proxy);
/* A protocol hands its connection to the protocol <id> (the h2 preface,
 * Upgrade: h2c). Returns 0, or -1 when <id> could not take it. */
int sess_switch(struct worker *w, enum proto_id id, struct xprt *x, const struct handoff *h);
/* Whether the first bytes of a clear-text connection are the h2 preface:
 * 1 yes, 0 no, HX_AGAIN cannot tell yet (a prefix of it). */
int sess_preface(const char *buf, size_t len);

/* a graceful drain: handshakes in progress close, each protocol drains */
void sess_drain(struct worker *w);
/* connections still alive on <w>, of every protocol */
uint32_t sess_live(const struct worker *w);

/* connection accounting across threads, for -n */
int sess_count(void);
/* a connection of <w> ended (the protocols call it) */
void sess_conn_gone(struct worker *w);

#endif

/* HTTP/3 over QUIC on the TLS port's UDP twin: ngtcp2 0.12, GnuTLS, nghttp3 0.8; a row of the protocol table. */
#ifndef HX_QUIC_H
#define HX_QUIC_H

#include "proto.h"
#include "qwrite.h"
#include "quic-t.h"

/* for the HTTP/3 layer (h3.c) */
int h3_setup(struct h3c *c);
/* its streams' stalls (see h3.c), every H3_SCAN_MS: 1 when the connection is to close */
#define H3_SCAN_MS 1000
int h3_scan(struct h3c *c);
/* stream data from ngtcp2, <off> its offset in the stream */
int h3_recv_stream(struct h3c *c, int64_t id, uint64_t off, const uint8_t *data, size_t len, int fin, int early);
/* ngtcp2 closed a stream answered from the memo (h3s.own), which nghttp3 never saw */
void h3_own_closed(struct h3s *s);
void h3_free_streams(struct h3c *c);
void h3_faults(struct h3c *c);
int h3_init(void);
/* frees the worker's free list of HTTP/3 streams */
void h3_release(struct worker *w);

/* the body's next slices for either engine (h3.c): at most <veccnt> of
 * them, a DATA frame's worth (k=); <*a> says what stopped it, EXA_END when
 * the body is whole. Returns the count. */
size_t h3s_gather(struct h3s *s, nghttp3_vec *vec, size_t veccnt, struct ex_action *a);
/* <a> is a d= pause or an x=/X= fault with no bytes before it: the timer
 * armed, or the fault marked for h3_faults(). 0, or -1 when the stream
 * was failed (no timer). */
int h3s_halt(struct h3s *s, const struct ex_action *a);

/* our own response framing (h3_tx.c, --h3-engine hx) */
void h3tx_init(struct h3s *s);
void h3tx_release(struct h3s *s);
/* the head as a HEADERS frame, then the body (when <body>) as the writes
 * ask for it. 0, or -1 out of memory. */
int h3tx_respond(struct h3s *s, const struct xs_nv *nv, size_t n, int body);
void h3tx_wake(struct h3s *s);   /* a d= pause is over */
void h3tx_shut(struct h3s *s);   /* the stream was reset: nothing more to send */
void h3tx_acked(struct h3s *s, uint64_t len);
void h3tx_unblock(struct h3s *s);
/* the connection's streams as a source for qw_packet() */
void h3tx_src(struct h3c *c, struct qw_src *src);

/* for h3.c: flush what can be written now */
void quic_write(struct h3c *c);
/* after any work on <c>: closes it if it must, else re-arms its timer;
 * <c> may be freed */
void quic_done(struct h3c *c);

#endif

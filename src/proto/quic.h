/* HTTP/3 over QUIC on the TLS port's UDP twin: ngtcp2 0.12, GnuTLS, nghttp3 0.8; a row of the protocol table. */
#ifndef HX_QUIC_H
#define HX_QUIC_H

#include "proto.h"
#include "quic-t.h"

/* for the HTTP/3 layer (h3.c) */
int h3_setup(struct h3c *c);
/* its streams' stalls (see h3.c), every H3_SCAN_MS: 1 when the connection is to close */
#define H3_SCAN_MS 1000
int h3_scan(struct h3c *c);
int h3_recv_stream(struct h3c *c, int64_t id, const uint8_t *data, size_t len, int fin, int early);
void h3_free_streams(struct h3c *c);
void h3_faults(struct h3c *c);
int h3_init(void);
/* frees the worker's free list of HTTP/3 streams */
void h3_release(struct worker *w);

/* for h3.c: flush what can be written now */
void quic_write(struct h3c *c);
/* after any work on <c>: closes it if it must, else re-arms its timer;
 * <c> may be freed */
void quic_done(struct h3c *c);

#endif

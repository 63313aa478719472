/* HTTP/3 over QUIC on the TLS port's UDP twin: ngtcp2 0.12, GnuTLS, nghttp3 0.8. */
#ifndef HX_QUIC_H
#define HX_QUIC_H

#include "config-t.h"
#include "quic-t.h"
#include "worker-t.h"

/* Process-wide: GnuTLS credentials from the TLS certificates, the
 * stateless-reset secret. Returns 0, or -1 after printing why. */
int quic_init(void);
void quic_free(void);

/* Opens the worker's UDP socket for <la> at <port>. Returns 0 or -1. */
int quic_listen(struct worker *w, const struct listen_addr *la, uint16_t port);

/* drain: CONNECTION_CLOSE to idle connections, the rest after their streams */
void quic_drain(struct worker *w);
/* closes every QUIC connection and socket of <w> */
void quic_release_all(struct worker *w);

/* for the HTTP/3 layer (h3.c) */
int h3_setup(struct qconn *c);
int h3_recv_stream(struct qconn *c, int64_t id, const uint8_t *data, size_t len, int fin);
void h3_free_streams(struct qconn *c);
void h3_faults(struct qconn *c);
int h3_init(void);
/* frees the worker's free list of HTTP/3 streams */
void h3_release(struct worker *w);

/* for h3.c: flush what can be written now */
void quic_write(struct qconn *c);
/* after any work on <c>: closes it if it must, else re-arms its timer;
 * <c> may be freed */
void quic_done(struct qconn *c);

#endif

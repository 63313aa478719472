/* Transport under a connection: plain TCP or TLS (OpenSSL), one recv/send interface. */
#ifndef HX_XPRT_H
#define HX_XPRT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "common.h"

typedef struct ssl_st SSL;

struct rio;

/* a connection's transport: TCP, TLS over it, or TCP through the loop's
 * io_uring (rio); its users read and flush alike on all three */
struct xprt {
	int fd;
	uint8_t tls_failed;  /* a TLS call failed for good: no more I/O, no close_notify */
	SSL *ssl;            /* NULL: clear text */
	struct rio *rio;     /* through the ring (clear text only), or NULL */
};

#define XPRT_AGAIN HX_AGAIN /* nothing now: wait for the next edge */
#define XPRT_ERROR (-1)

/* Reads at most <len> bytes: > 0 bytes read, 0 end of stream, XPRT_AGAIN,
 * XPRT_ERROR. <*drained> is set when no more bytes can be there until the
 * next epoll edge (a short read on TCP, WANT_READ on TLS). */
long xprt_recv(struct xprt *x, void *buf, size_t len, int *drained);

/* Writes from <iov>: >= 0 bytes written, XPRT_AGAIN, XPRT_ERROR. On TLS the
 * iovecs are gathered into one SSL_write of up to 64 KiB. <more> (TCP only)
 * says more bytes follow at once: MSG_MORE holds a partial segment back. */
long xprt_writev(struct xprt *x, const struct iovec *iov, int iovcnt, int more);

/* TLS's close_notify (RFC 8446 6.1), once, if it can go now: one
 * SSL_shutdown, which neither waits for the socket nor reads the peer's.
 * Nothing on clear text, before the handshake's end or after a fatal TLS
 * error. */
void xprt_close_notify(struct xprt *x);

/* Frees the TLS state (not the fd). */
void xprt_release(struct xprt *x);
/* frees the calling thread's gather buffer for TLS writes (its end) */
void xprt_thread_free(void);

#endif

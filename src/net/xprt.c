/* Transport under a connection: plain TCP or TLS (OpenSSL), one recv/send interface. */
#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "common.h"
#include "nocall.h"
#include "rio.h"
#include "tls.h"
#include "tls_bio.h"
#include "xprt.h"

#define TLS_GATHER 65536

static long tcp_recv(int fd, void *buf, size_t len, int *drained)
{
	ssize_t n;

	do
		n = nc_recv(fd, buf, len, 0);
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		/* WHY: edge-triggered; a short read means the queue is empty,
		 * the next byte to arrive raises a new edge */
		*drained = (size_t)n < len;
		return n;
	}
	*drained = 1;
	if (n == 0)
		return 0;
	return errno == EAGAIN ? XPRT_AGAIN : XPRT_ERROR;
}

static long tls_result(struct xprt *x, int r, int *drained)
{
	switch (SSL_get_error(x->ssl, r)) {
	case SSL_ERROR_WANT_READ:
	case SSL_ERROR_WANT_WRITE:
		*drained = 1;
		return XPRT_AGAIN;
	case SSL_ERROR_ZERO_RETURN:
		*drained = 1;
		return 0;
	default:
		/* WHY: after SSL_ERROR_SSL or _SYSCALL OpenSSL forbids more
		 * I/O, SSL_shutdown included (SSL_get_error(3)) */
		x->tls_failed = 1;
		ERR_clear_error();
		*drained = 1;
		return XPRT_ERROR;
	}
}

long xprt_recv(struct xprt *x, void *buf, size_t len, int *drained)
{
	int r;

	if (x->rio)
		return rio_recv(x->rio, buf, len, drained);
	if (!x->ssl)
		return tcp_recv(x->fd, buf, len, drained);
	r = SSL_read(x->ssl, buf, (int)MIN(len, (size_t)INT32_MAX));
	if (r > 0) {
		/* TLS: the socket is empty when the BIO's last recv was short
		 * and OpenSSL holds nothing more, or on WANT_READ */
		*drained = tls_bio_drained(x->ssl) && !SSL_has_pending(x->ssl);
		return r;
	}
	return tls_result(x, r, drained);
}

/* WHY a pointer, taken at the first gathered write: glibc zeroes every
 * thread's static TLS when it starts, so a 64 KiB array here was resident
 * in each thread, TLS listener or not */
static __thread char *gather;

void xprt_thread_free(void)
{
	free(gather);
	gather = NULL;
}

/* the first iovec that is not empty: what goes out alone */
static int first_nonempty(const struct iovec *iov, int iovcnt)
{
	int i = 0;

	while (i < iovcnt - 1 && !iov[i].iov_len)
		i++;
	return i;
}

static long tls_writev(struct xprt *x, const struct iovec *iov, int iovcnt)
{
	size_t len = 0;
	const void *buf;
	int r, drained;

	/* a single large iovec goes out without the copy; so does the first
	 * alone when the gather buffer cannot be had (a short write) */
	if (iovcnt == 1 || iov[0].iov_len >= TLS_GATHER || (!gather && !(gather = malloc(TLS_GATHER)))) {
		int i = first_nonempty(iov, iovcnt);

		buf = iov[i].iov_base;
		len = MIN(iov[i].iov_len, (size_t)INT32_MAX);
	} else {
		buf = gather;
		for (int i = 0; i < iovcnt && len < TLS_GATHER; i++) {
			size_t n = MIN(iov[i].iov_len, TLS_GATHER - len);

			memcpy(gather + len, iov[i].iov_base, n);
			len += n;
		}
	}
	r = SSL_write(x->ssl, buf, (int)len);
	if (r > 0)
		return r;
	return tls_result(x, r, &drained);
}

long xprt_writev(struct xprt *x, const struct iovec *iov, int iovcnt, int more)
{
	struct msghdr m = { .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)iovcnt };
	ssize_t n;

	if (x->ssl)
		return tls_writev(x, iov, iovcnt);
	do
		n = more ? nc_sendmsg(x->fd, &m, MSG_MORE) : nc_writev(x->fd, iov, iovcnt);
	while (n < 0 && errno == EINTR);
	if (n >= 0)
		return n;
	return errno == EAGAIN ? XPRT_AGAIN : XPRT_ERROR;
}

void xprt_close_notify(struct xprt *x)
{
	/* WHY not after TLS failed: the connection has no clean end to tell */
	if (!x->tls_failed)
		tls_close_notify(x->ssl);
}

void xprt_release(struct xprt *x)
{
	if (x->ssl) {
		SSL_free(x->ssl);
		x->ssl = NULL;
	}
}

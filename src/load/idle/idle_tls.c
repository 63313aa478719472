/* hxload --idle over TLS: each held connection's handshake (ALPN picks h2 or HTTP/1.1), and its bytes in and out, TLS or not. */
#include <errno.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lc_idle_int.h"
#include "lc_tls.h"
#include "tls.h"

int idle_tls_start(struct idle_conn *c)
{
	if (!(c->ssl = SSL_new(lc_tls)) || !SSL_set_fd(c->ssl, c->fd))
		return -1;
	/* WHY: an idle connection then holds no TLS record buffer */
	SSL_set_mode(c->ssl, SSL_MODE_RELEASE_BUFFERS);
	SSL_set_connect_state(c->ssl);
	if (lc_tg->sni[0] && !SSL_set_tlsext_host_name(c->ssl, lc_tg->sni))
		return -1;
	c->st = IC_TLS;
	return 0;
}

/* 1: done (ALPN read), 0: more to come, -1: failed */
int idle_tls_step(struct idle_conn *c)
{
	int r = SSL_do_handshake(c->ssl), e;

	if (r == 1) {
		c->h2 = tls_alpn_is(c->ssl, "h2");
		return 1;
	}
	e = SSL_get_error(c->ssl, r);
	return e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE ? 0 : -1;
}

int idle_send(struct idle_conn *c, const void *p, size_t n)
{
	/* WHY no retry: a fresh socket's send buffer takes a request head whole */
	if (c->ssl)
		return SSL_write(c->ssl, p, (int)n) == (int)n ? 0 : -1;
	return send(c->fd, p, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

/* bytes read, 0 at the end (or an error), -1 when nothing waits */
long idle_recv(struct idle_conn *c, char *buf, size_t n)
{
	long r;

	if (!c->ssl) {
		r = read(c->fd, buf, n);
		return r < 0 && (errno == EAGAIN || errno == EINTR) ? -1 : r < 0 ? 0 : r;
	}
	r = SSL_read(c->ssl, buf, (int)n);
	if (r > 0)
		return r;
	if (SSL_get_error(c->ssl, (int)r) != SSL_ERROR_WANT_READ)
		return 0;
	SSL_free_buffers(c->ssl);
	return -1;
}

void idle_tls_free(struct idle_conn *c)
{
	SSL_free(c->ssl);
	c->ssl = NULL;
}

/* TLS connections with OpenSSL: the handshake, ALPN, a client context; contexts are made by their program. */
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <string.h>

#include "tls.h"
#include "tls_bio.h"
#include "tls_ciphers.h"

SSL *tls_accept_new(SSL_CTX *ctx, int fd)
{
	SSL *ssl = SSL_new(ctx);

	if (ssl && tls_bio_attach(ssl, fd)) {
		SSL_free(ssl);
		return NULL;
	}
	if (ssl)
		SSL_set_accept_state(ssl);
	return ssl;
}

/* a step that did not finish: HX_AGAIN when it waits for I/O, -1 when it failed */
static int step_result(SSL *ssl, int r)
{
	switch (SSL_get_error(ssl, r)) {
	case SSL_ERROR_WANT_READ:
	case SSL_ERROR_WANT_WRITE:
		return HX_AGAIN;
	}
	ERR_clear_error();
	return -1;
}

int tls_handshake(SSL *ssl)
{
	int r = SSL_do_handshake(ssl);

	return r == 1 ? 0 : step_result(ssl, r);
}

int tls_read_early(SSL *ssl, char *buf, size_t *len)
{
	for (;;) {
		size_t n = 0;
		int r = SSL_read_early_data(ssl, buf + *len, TLS_EARLY_MAX - *len, &n);

		*len += n;
		if (r == SSL_READ_EARLY_DATA_FINISH)
			return 0;
		if (r != SSL_READ_EARLY_DATA_SUCCESS)
			return step_result(ssl, r);
	}
}

int tls_early_accepted(SSL *ssl)
{
	return SSL_get_early_data_status(ssl) == SSL_EARLY_DATA_ACCEPTED;
}

int tls_is_h2(SSL *ssl)
{
	const unsigned char *p;
	unsigned int n;

	SSL_get0_alpn_selected(ssl, &p, &n);
	return n == 2 && !memcmp(p, "h2", 2);
}

SSL_CTX *tls_client_ctx(const unsigned char *alpn, unsigned len)
{
	SSL_CTX *c;

	tls_builtin_ciphers(); /* WHY first: a context takes its ciphers when it is made */
	c = SSL_CTX_new(TLS_client_method());
	if (!c || tls_bio_init()) {
		SSL_CTX_free(c);
		return NULL;
	}
	SSL_CTX_set_read_ahead(c, 1);
	SSL_CTX_set_verify(c, SSL_VERIFY_NONE, NULL);
	SSL_CTX_set_mode(c, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	if (alpn && SSL_CTX_set_alpn_protos(c, alpn, len)) {
		SSL_CTX_free(c);
		return NULL;
	}
	return c;
}

void tls_close_notify(SSL *ssl)
{
	/* WHY the guards: SSL_shutdown during a handshake fails, and a second
	 * call would read for the peer's close_notify, which nobody waits for */
	if (!ssl || SSL_in_init(ssl) || (SSL_get_shutdown(ssl) & SSL_SENT_SHUTDOWN))
		return;
	/* WHY one call, its result unread: 0 is the alert sent; -1 is a full
	 * socket (or a record still pending in OpenSSL), and the alert is
	 * dropped rather than waited for, as a stalled peer would make us */
	if (SSL_shutdown(ssl) < 0)
		ERR_clear_error();
}

int tls_alpn_is(SSL *ssl, const char *proto)
{
	const unsigned char *p;
	unsigned int n;

	SSL_get0_alpn_selected(ssl, &p, &n);
	return n == strlen(proto) && !memcmp(p, proto, n);
}

/* TLS connections with OpenSSL: the handshake, ALPN, a client context; contexts are made by their program. */
#ifndef HX_TLS_H
#define HX_TLS_H

#include <stddef.h>

#include "common.h"

/* WHY not xprt.h: xprt calls tls_close_notify() */
typedef struct ssl_st SSL;

typedef struct ssl_ctx_st SSL_CTX;

/* A new server-side SSL on <fd> in <ctx>, or NULL. */
SSL *tls_accept_new(SSL_CTX *ctx, int fd);

/* Drives the handshake: 0 done, HX_AGAIN in progress (wait for I/O), -1 failed. */
int tls_handshake(SSL *ssl);

#define TLS_EARLY_MAX 16384 /* early data a server takes, at most */

/* Before the handshake, the client's early data (TLS 1.3 0-RTT) into
 * <buf> (TLS_EARLY_MAX bytes), <*len> so far: 0 when there is no more (none
 * sent or rejected included), HX_AGAIN wait for I/O, -1 failed. */
int tls_read_early(SSL *ssl, char *buf, size_t *len);

/* 1 when the early data of <ssl> was accepted */
int tls_early_accepted(SSL *ssl);

/* 1 when ALPN chose h2 */
int tls_is_h2(SSL *ssl);

/* A client context for hxload: no certificate check (a test target is
 * self-signed), ALPN <alpn> in wire format (NULL: none). */
SSL_CTX *tls_client_ctx(const unsigned char *alpn, unsigned len);

/* 1 when ALPN chose HTTP/1.1 or nothing */
int tls_alpn_is(SSL *ssl, const char *proto);

/* TLS's close_notify on a connection that ends cleanly: one try, never
 * waited for; nothing during a handshake or after one already sent */
void tls_close_notify(SSL *ssl);

#endif

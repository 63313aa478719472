/* TLS setup with OpenSSL: generated RSA + ECDSA certificates or --cert/--key, ALPN h2/http/1.1. */
#ifndef HX_TLS_H
#define HX_TLS_H

#include "xprt.h"

typedef struct ssl_ctx_st SSL_CTX;

/* Builds the server context once, before the workers start: loads
 * --cert/--key or generates an RSA key of cfg.rsa_bits and an ECDSA key on
 * cfg.curve, each with a self-signed certificate valid for a year.
 * Returns 0, or -1 after printing one line. */
int tls_init(void);
void tls_free(void);

/* A new server-side SSL on <fd>, or NULL. */
SSL *tls_new(int fd);

/* Drives the handshake: 1 done, 0 in progress (wait for I/O), -1 failed. */
int tls_handshake(SSL *ssl);

/* 1 when ALPN chose h2 */
int tls_is_h2(SSL *ssl);

/* A client context for hxload: no certificate check (a test target is
 * self-signed), ALPN <alpn> in wire format (NULL: none). */
SSL_CTX *tls_client_ctx(const unsigned char *alpn, unsigned len);

/* 1 when ALPN chose HTTP/1.1 or nothing */
int tls_alpn_is(SSL *ssl, const char *proto);

/* the PEM of the generated (or loaded) certificates and keys, for QUIC */
const char *tls_cert_pem(int idx);
const char *tls_key_pem(int idx);

#endif

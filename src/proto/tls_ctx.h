/* The server's TLS context: generated RSA + ECDSA certificates or --cert/--key, ALPN h2/http/1.1. */
#ifndef HX_TLS_CTX_H
#define HX_TLS_CTX_H

#include "tls.h"

/* Builds the server context once, before the workers start: loads
 * --cert/--key or generates an RSA key of cfg.rsa_bits and an ECDSA key on
 * cfg.curve, each with a self-signed certificate valid for a year.
 * Returns 0, or -1 after printing one line. */
int tls_init(void);
void tls_free(void);

/* A new server-side SSL on <fd>, or NULL. */
SSL *tls_new(int fd);

/* the PEM of the generated (or loaded) certificates and keys, for QUIC */
const char *tls_cert_pem(int idx);
const char *tls_key_pem(int idx);

#endif

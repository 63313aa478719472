/* Client certificates (--client-ca, --client-cert) on both TLS stacks: OpenSSL for TCP, GnuTLS for QUIC; asked for, verified, named. */
#ifndef HX_TLS_AUTH_H
#define HX_TLS_AUTH_H

#include <stddef.h>

#include <gnutls/gnutls.h>

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

/* Sets up <ctx> (TCP) to ask for client certificates and verify them
 * against --client-ca. Returns 0, or -1 after one line. Nothing when off. */
int tls_auth_openssl(SSL_CTX *ctx);

/* The same on QUIC's credentials, and on each of its server sessions (0;
 * an int to sit in its set-up chain) */
int tls_auth_gnutls(gnutls_certificate_credentials_t cred);
int tls_auth_gnutls_session(gnutls_session_t s);

/* The subject of the verified client certificate (RFC 4514), "" when none
 * came, into <buf> */
void tls_auth_subject(SSL *ssl, char *buf, size_t len);
void tls_auth_gnutls_subject(gnutls_session_t s, char *buf, size_t len);

#endif

/* Shared TLS session-ticket keys (--ticket-keys, reloaded on SIGHUP) and TLS 1.3 early data (--early-data) on the TCP context. */
#ifndef HX_TLS_KEYS_H
#define HX_TLS_KEYS_H

#include <gnutls/gnutls.h>

typedef struct ssl_ctx_st SSL_CTX;

/* Loads --ticket-keys into <ctx>'s ticket callback and turns early data on
 * with --early-data. Returns 0, or -1 after one line. Nothing when off. */
int tls_keys_setup(SSL_CTX *ctx);

/* SIGHUP: reads the file again; a bad file keeps the keys in use (one
 * line on stderr). Returns 0 or -1. */
int tls_keys_reload(void);

void tls_keys_free(void);

/* QUIC: session tickets on the server session <s> (GnuTLS), sealed with a
 * key derived from the file's first key, or the process's own; 0-RTT with
 * --early-data. Returns 0 or -1. */
int tls_keys_quic(gnutls_session_t s);

#endif

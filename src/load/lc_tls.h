/* hxload's TLS over TCP: a connection's SSL, why its handshake failed. */
#ifndef HX_LC_TLS_H
#define HX_LC_TLS_H

#include <stddef.h>

#include "lc_conn.h"

/* the client TLS context (https://) */
extern SSL_CTX *lc_tls;
/* makes lc_tls from the options (ALPN, certificates, verification, resumption) */
int lc_tls_init(void);
/* the server certificate's EC and RSA keys decoded by OpenSSL's built-in
 * methods, not 3.0's decoders (80 us a full handshake); 0 or -1 */
int lc_tls_builtin_keys(void);

/* a client SSL on <c>'s socket: SNI, the name to verify, the session to resume */
SSL *lc_tls_new(struct lc_conn *c);
/* <c>'s handshake done: the group the server chose is the one the next
 * connections offer a key share for; a HelloRetryRequest counted */
void lc_tls_up(struct lc_conn *c);
/* one phrase saying why the handshake on <ssl> failed */
void lc_tls_why(SSL *ssl, char *buf, size_t n);
/* what a failed handshake's line ends with when no SNI was sent (a server
 * that picks its certificate by name, Caddy's tls internal, has none for
 * an address): a hint of --sni; "" when one was */
const char *lc_sni_hint(void);
/* the alert that ended an established session on <ssl>, or NULL */
const char *lc_tls_alert(SSL *ssl);
/* the name of the TLS alert <alert> */
const char *lc_tls_alert_name(int alert);

#endif

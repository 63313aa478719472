/* hxload's TLS over TCP: the client context (ALPN, mTLS, verification), SNI, session resumption, why a handshake failed. */
#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "lc_thread.h"
#include "lc_tls.h"
#include "tls.h"
#include "tls_bio.h"

SSL_CTX *lc_tls;

/* a new session ticket: the thread keeps the newest LC_TICKETS */
static int new_session(SSL *ssl, SSL_SESSION *sess)
{
	struct lc_conn *c = SSL_get_app_data(ssl);
	struct lc_thread *t;

	if (!c || lc_o->no_resume)
		return 0;
	t = c->t;
	if (t->nsess == LC_TICKETS) {
		SSL_SESSION_free(t->sess[0]);
		memmove(t->sess, t->sess + 1, (LC_TICKETS - 1) * sizeof(t->sess[0]));
		t->nsess--;
	}
	t->sess[t->nsess++] = sess;
	return 1; /* WHY 1: we keep the reference */
}

/* the session the next connection offers, or NULL; the caller's reference
 * is its own: free it once SSL_set_session() took one */
static SSL_SESSION *ticket_take(struct lc_thread *t)
{
	while (t->nsess) {
		SSL_SESSION *s = t->sess[t->nsess - 1];

		if (!SSL_SESSION_is_resumable(s)) {
			SSL_SESSION_free(s);
			t->nsess--;
			continue;
		}
		/* WHY a TLS 1.3 ticket once: OpenSSL offers none a handshake
		 * already resumed with (RFC 8446 C.4), so with one ticket for
		 * all, a connection after another's resumption did a full
		 * handshake (1 in 10 with -c 4 --close); the last one stays,
		 * shared, until a resumption spends it. TLS 1.2 sessions stay */
		if (SSL_SESSION_get_protocol_version(s) >= TLS1_3_VERSION && t->nsess > 1)
			t->nsess--;
		else
			SSL_SESSION_up_ref(s);
		return s;
	}
	return NULL;
}

/* a fatal alert from the server: kept for the one line that says why */
static void on_info(const SSL *ssl, int where, int ret)
{
	struct lc_conn *c = SSL_get_app_data(ssl);

	if (c && (where & SSL_CB_READ_ALERT) && (ret >> 8) == SSL3_AL_FATAL)
		c->alert = ret & 0xff;
}

/* a ClientHello sent: a second on one connection answers the server's
 * HelloRetryRequest (WHY here, not in on_info: the state machine reports
 * a state more than once) */
static void on_msg(int write_p, int version, int type, const void *buf, size_t len, SSL *ssl, void *arg)
{
	struct lc_conn *c = SSL_get_app_data(ssl);

	(void)version, (void)arg;
	if (c && write_p && type == SSL3_RT_HANDSHAKE && len && *(const unsigned char *)buf == SSL3_MT_CLIENT_HELLO)
		c->hellos++;
}

static int offer_ticket(struct lc_conn *c, SSL *ssl)
{
	SSL_SESSION *s = lc_o->no_resume || !lc_hs_ticket(c) ? NULL : ticket_take(c->t);
	int ok = !s || SSL_set_session(ssl, s);

	c->hs_offered = s != NULL;
	if (s)
		SSL_SESSION_free(s);
	return ok ? 0 : -1;
}

/* WHY: without --cacert nothing reads the verdict, yet OpenSSL builds and
 * checks the chain on every full handshake */
static int trust_any(X509_STORE_CTX *x, void *arg)
{
	(void)x, (void)arg;
	return 1;
}

/* OpenSSL 3.0's default groups, its order (ssl/t1_lib.c) */
static const int groups_default[] = {
	NID_X25519,    NID_X9_62_prime256v1, NID_X448,      NID_secp521r1, NID_secp384r1,
	NID_ffdhe2048, NID_ffdhe3072,        NID_ffdhe4096, NID_ffdhe6144, NID_ffdhe8192,
};

/* WHY: OpenSSL sends a key share for the first group of its list alone; a
 * server that wants another answers HelloRetryRequest (a round trip and a
 * second key generation, every connection). As browsers do, a connection
 * offers first the group the server chose last; the others follow, so a
 * server that changed its mind may still ask for one */
static int offer_group(struct lc_conn *c, SSL *ssl)
{
	int g = c->t->tls_group, v[ARRAY_SIZE(groups_default) + 1], n = 1;

	if (!g || g == groups_default[0])
		return 0;
	v[0] = g;
	for (size_t i = 0; i < ARRAY_SIZE(groups_default); i++)
		if (groups_default[i] != g)
			v[n++] = groups_default[i];
	return SSL_set1_groups(ssl, v, n) == 1 ? 0 : -1;
}

void lc_tls_up(struct lc_conn *c)
{
	struct lc_thread *t = c->t;
	long g = SSL_get_negotiated_group(c->nc.x.ssl);

	if (SSL_version(c->nc.x.ssl) != TLS1_3_VERSION || g <= 0 || g > UINT16_MAX)
		return;
	t->tls_group = (int)g;
	if (c->hellos > 1 && lc_in_window(t, t->loop.now_us))
		t->st.hello_retries++;
}

int lc_tls_init(void)
{
	static const unsigned char alpn_any[] = "\x02h2\x08http/1.1", alpn_h2[] = "\x02h2",
				   alpn_h1[] = "\x08http/1.1";
	const unsigned char *alpn = alpn_any;
	unsigned len = sizeof(alpn_any) - 1;

	if (lc_tg->proto == LC_H2)
		alpn = alpn_h2, len = sizeof(alpn_h2) - 1;
	else if (lc_tg->proto == LC_H1 || lc_tg->proto == LC_WS)
		alpn = alpn_h1, len = sizeof(alpn_h1) - 1;
	if (lc_tls_builtin_keys() < 0 || !(lc_tls = tls_client_ctx(alpn, len)))
		return -1;
	SSL_CTX_set_session_cache_mode(lc_tls, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
	/* WHY: a close without close_notify is a fatal error to OpenSSL, which
	 * then makes the session unresumable; hxload checks framing itself */
	SSL_CTX_set_options(lc_tls, SSL_OP_IGNORE_UNEXPECTED_EOF);
	/* WHY: an idle connection gives its record buffers back (OpenSSL's
	 * 2 x 17 KiB and more at -c 3000 h2: 53.4 -> see the commit) */
	SSL_CTX_set_mode(lc_tls, SSL_MODE_RELEASE_BUFFERS);
	SSL_CTX_sess_set_new_cb(lc_tls, new_session);
	SSL_CTX_set_info_callback(lc_tls, on_info);
	SSL_CTX_set_msg_callback(lc_tls, on_msg);
	if (lc_o->cert && (SSL_CTX_use_certificate_chain_file(lc_tls, lc_o->cert) != 1 ||
			     SSL_CTX_use_PrivateKey_file(lc_tls, lc_o->key ? lc_o->key : lc_o->cert,
							 SSL_FILETYPE_PEM) != 1 ||
			     SSL_CTX_check_private_key(lc_tls) != 1))
		lc_die("--cert/--key: cannot use '%s' (PEM certificate and matching key expected)", lc_o->cert);
	if (lc_o->cacert) {
		if (SSL_CTX_load_verify_locations(lc_tls, lc_o->cacert, NULL) != 1)
			lc_die("--cacert: cannot read '%s' (PEM expected)", lc_o->cacert);
		SSL_CTX_set_verify(lc_tls, SSL_VERIFY_PEER, NULL);
	} else {
		SSL_CTX_set_cert_verify_callback(lc_tls, trust_any, NULL);
	}
	return 0;
}

/* the name the certificate must carry: the SNI, else the URL's host */
static int expect_name(SSL *ssl)
{
	const char *name = lc_tg->sni[0] ? lc_tg->sni : lc_tg->host;
	unsigned char a[16];

	if (inet_pton(AF_INET, name, a) == 1 || inet_pton(AF_INET6, name, a) == 1)
		return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) == 1 ? 0 : -1;
	return SSL_set1_host(ssl, name) == 1 ? 0 : -1;
}

SSL *lc_tls_new(struct lc_conn *c)
{
	SSL *ssl = SSL_new(lc_tls);

	if (!ssl || tls_bio_attach(ssl, c->nc.x.fd)) {
		SSL_free(ssl);
		return NULL;
	}
	SSL_set_app_data(ssl, c);
	c->alert = c->hellos = 0;
	SSL_set_connect_state(ssl);
	if ((lc_tg->sni[0] && !SSL_set_tlsext_host_name(ssl, lc_tg->sni)) ||
	    (lc_o->cacert && expect_name(ssl) < 0) ||
	    offer_ticket(c, ssl) < 0 || offer_group(c, ssl) < 0) {
		SSL_free(ssl);
		return NULL;
	}
	return ssl;
}

void lc_tls_why(SSL *ssl, char *buf, size_t n)
{
	unsigned long e = ERR_peek_last_error();
	long v = SSL_get_verify_result(ssl);

	if (lc_o->cacert && v != X509_V_OK)
		snprintf(buf, n, "the certificate does not verify: %s", X509_verify_cert_error_string(v));
	else if (ERR_GET_REASON(e) == SSL_R_WRONG_VERSION_NUMBER || ERR_GET_REASON(e) == SSL_R_PACKET_LENGTH_TOO_LONG)
		snprintf(buf, n, "TLS handshake failed: the server answered something that is not TLS "
			 "(plain HTTP? use http:// or h2c://)");
	else if (e)
		snprintf(buf, n, "TLS handshake failed: %s%s", ERR_reason_error_string(e), lc_sni_hint());
	else
		snprintf(buf, n, "TLS handshake failed: the server closed the connection%s", lc_sni_hint());
	ERR_clear_error();
}

const char *lc_sni_hint(void)
{
	return lc_tg->sni[0] ? "" : "; no SNI was sent (the URL's host is an address): --sni NAME sends one";
}

const char *lc_tls_alert_name(int alert)
{
	const char *s;

	/* WHY by hand: OpenSSL 3.0 names no TLS 1.3 alert */
	if (alert == 116)
		return "certificate required";
	s = SSL_alert_desc_string_long(alert);
	return strcmp(s, "unknown") ? s : "of an unknown kind";
}

const char *lc_tls_alert(SSL *ssl)
{
	struct lc_conn *c = SSL_get_app_data(ssl);

	return c && c->alert ? lc_tls_alert_name(c->alert) : NULL;
}

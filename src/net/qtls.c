/* QUIC's TLS 1.3 with GnuTLS (ngtcp2's crypto backend): the credentials, priorities and sessions both endpoints need. */
#include <gnutls/crypto.h>
#include <pthread.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>

#include "qtls.h"

/* WHY GnuTLS's global set-up at its first use, not by its constructor at
 * load: that left 0.8 MB resident (its ASN.1 trees, the system
 * priorities, the code they ran) in every hxterm, QUIC or not: 7.4 -> 6.6
 * MB at rest with a clear port alone. Each way into GnuTLS calls qtls_lib()
 * first: qtls_init() (every QUIC endpoint's set-up, before its sessions and
 * qinit_open()), the 0-RTT anti-replay, quic-flood's random Initials */
GNUTLS_SKIP_GLOBAL_INIT

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static int lib_ret = -1;

static void lib_init(void)
{
	lib_ret = gnutls_global_init();
}

int qtls_lib(void)
{
	pthread_once(&lib_once, lib_init);
	return lib_ret < 0 ? -1 : 0;
}

int qtls_init(struct qtls *t)
{
	if (qtls_lib() < 0 || gnutls_certificate_allocate_credentials(&t->cred) ||
	    gnutls_priority_init(&t->prio, "NORMAL:-VERS-ALL:+VERS-TLS1.3:%DISABLE_TLS13_COMPAT_MODE", NULL))
		return -1;
	return 0;
}

void qtls_free(struct qtls *t)
{
	if (t->cred)
		gnutls_certificate_free_credentials(t->cred);
	if (t->prio)
		gnutls_priority_deinit(t->prio);
	t->cred = NULL;
	t->prio = NULL;
}

void qtls_client_rand(uint8_t *dest, size_t len, const ngtcp2_rand_ctx *ctx)
{
	(void)ctx;
	gnutls_rnd(GNUTLS_RND_RANDOM, dest, len);
}

int qtls_client_new_cid(ngtcp2_conn *conn, ngtcp2_cid *cid, uint8_t *token, size_t len, void *user)
{
	(void)conn, (void)user;
	gnutls_rnd(GNUTLS_RND_RANDOM, cid->data, len);
	cid->datalen = len;
	gnutls_rnd(GNUTLS_RND_RANDOM, token, NGTCP2_STATELESS_RESET_TOKENLEN);
	return 0;
}

static ngtcp2_conn *get_conn(ngtcp2_crypto_conn_ref *ref)
{
	return *(ngtcp2_conn **)ref->user_data;
}

int qtls_session(const struct qtls *t, gnutls_session_t *s, int server, unsigned extra, ngtcp2_conn **connp,
		 ngtcp2_crypto_conn_ref *ref)
{
	static const gnutls_datum_t alpn = { (unsigned char *)"h3", 2 };
	/* WHY no auto ticket: the server sends its tickets once the handshake
	 * is done, in 1-RTT CRYPTO frames */
	unsigned flags = (server ? GNUTLS_SERVER | GNUTLS_NO_AUTO_SEND_TICKET : GNUTLS_CLIENT) | extra;

	if (gnutls_init(s, flags) || gnutls_priority_set(*s, t->prio) ||
	    (server ? ngtcp2_crypto_gnutls_configure_server_session(*s) :
		      ngtcp2_crypto_gnutls_configure_client_session(*s)) ||
	    gnutls_credentials_set(*s, GNUTLS_CRD_CERTIFICATE, t->cred) ||
	    gnutls_alpn_set_protocols(*s, &alpn, 1, GNUTLS_ALPN_MANDATORY))
		return -1;
	*ref = (ngtcp2_crypto_conn_ref){ get_conn, connp };
	gnutls_session_set_ptr(*s, ref);
	ngtcp2_conn_set_tls_native_handle(*connp, *s);
	return 0;
}

/* Client certificates on both TLS stacks: asked for (request) or demanded (require), verified against --client-ca, their subject named for X-Client. */
#include <gnutls/x509.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "tls_auth.h"

int tls_auth_openssl(SSL_CTX *ctx)
{
	STACK_OF(X509_NAME) *names;
	int mode = SSL_VERIFY_PEER;

	if (!cfg.client_cert)
		return 0;
	if (SSL_CTX_load_verify_locations(ctx, cfg.client_ca, NULL) != 1)
		return log_err("--client-ca %s: no PEM certificate could be loaded", cfg.client_ca), -1;
	/* WHY the list: a client with several certificates picks the one
	 * these CAs issued */
	if ((names = SSL_load_client_CA_file(cfg.client_ca)))
		SSL_CTX_set_client_CA_list(ctx, names);
	if (cfg.client_cert == CC_REQUIRE)
		mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
	SSL_CTX_set_verify(ctx, mode, NULL);
	/* WHY: a session resumed must have been verified in this context;
	 * without an id context OpenSSL refuses to resume it */
	SSL_CTX_set_session_id_context(ctx, (const unsigned char *)"hxterm", 6);
	return 0;
}

void tls_auth_subject(SSL *ssl, char *buf, size_t len)
{
	X509 *x = SSL_get0_peer_certificate(ssl);
	BIO *b;
	long n;
	char *data;

	buf[0] = 0;
	if (!x || !(b = BIO_new(BIO_s_mem())))
		return;
	X509_NAME_print_ex(b, X509_get_subject_name(x), 0, XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
	n = BIO_get_mem_data(b, &data);
	snprintf(buf, len, "%.*s", (int)n, data);
	BIO_free(b);
}

/* WHY a function: GnuTLS asks for a certificate but leaves verifying it to
 * the application; failing here fails the handshake with an alert */
static int gnutls_verify(gnutls_session_t s)
{
	unsigned status = 0;

	if (!gnutls_certificate_get_peers(s, &(unsigned){ 0 }))
		return cfg.client_cert == CC_REQUIRE ? GNUTLS_E_NO_CERTIFICATE_FOUND : 0;
	if (gnutls_certificate_verify_peers2(s, &status) < 0 || status)
		return GNUTLS_E_CERTIFICATE_ERROR;
	return 0;
}

int tls_auth_gnutls(gnutls_certificate_credentials_t cred)
{
	if (!cfg.client_cert)
		return 0;
	if (gnutls_certificate_set_x509_trust_file(cred, cfg.client_ca, GNUTLS_X509_FMT_PEM) <= 0)
		return log_err("--client-ca %s: GnuTLS (QUIC) loaded no certificate", cfg.client_ca), -1;
	gnutls_certificate_set_verify_function(cred, gnutls_verify);
	return 0;
}

int tls_auth_gnutls_session(gnutls_session_t s)
{
	if (cfg.client_cert)
		gnutls_certificate_server_set_request(s, cfg.client_cert == CC_REQUIRE ? GNUTLS_CERT_REQUIRE :
											  GNUTLS_CERT_REQUEST);
	return 0;
}

void tls_auth_gnutls_subject(gnutls_session_t s, char *buf, size_t len)
{
	unsigned n = 0;
	const gnutls_datum_t *certs = gnutls_certificate_get_peers(s, &n);
	gnutls_x509_crt_t crt;
	gnutls_datum_t dn = { NULL, 0 };

	buf[0] = 0;
	if (!certs || !n || gnutls_x509_crt_init(&crt) < 0)
		return;
	if (gnutls_x509_crt_import(crt, &certs[0], GNUTLS_X509_FMT_DER) >= 0 &&
	    gnutls_x509_crt_get_dn3(crt, &dn, 0) >= 0)
		snprintf(buf, len, "%.*s", (int)dn.size, (const char *)dn.data);
	gnutls_free(dn.data);
	gnutls_x509_crt_deinit(crt);
}

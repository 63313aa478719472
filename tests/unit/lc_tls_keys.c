/* Unit tests of hxload's built-in key methods: a certificate's EC and RSA keys decoded without OpenSSL 3.0's decoders, every signature still checked, a TLS 1.3 handshake whose CertificateVerify is wrong refused. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "lc_tls.h"
#include "tap.h"
#include "tls_pair.h"

static X509 *parse(const unsigned char *der, int n)
{
	return d2i_X509(NULL, &der, n);
}

/* <key> signs <msg> (RSA-PSS when <pss>, as TLS 1.3 does); 1 when <pub>'s check passes */
static int sig_checks(EVP_PKEY *key, EVP_PKEY *pub, const char *msg, const char *signed_msg, int pss)
{
	unsigned char sig[512];
	size_t len = sizeof(sig);
	EVP_MD_CTX *m = EVP_MD_CTX_new();
	EVP_PKEY_CTX *pc = NULL;
	int r = -1;

	if (EVP_DigestSignInit(m, &pc, EVP_sha256(), NULL, key) == 1 &&
	    (!pss || (EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PSS_PADDING) == 1 &&
		      EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, RSA_PSS_SALTLEN_DIGEST) == 1)) &&
	    EVP_DigestSign(m, sig, &len, (const unsigned char *)signed_msg, strlen(signed_msg)) == 1) {
		EVP_MD_CTX_reset(m);
		if (EVP_DigestVerifyInit(m, &pc, EVP_sha256(), NULL, pub) == 1 &&
		    (!pss || (EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PSS_PADDING) == 1 &&
			      EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, RSA_PSS_SALTLEN_DIGEST) == 1)))
			r = EVP_DigestVerify(m, sig, len, (const unsigned char *)msg, strlen(msg));
	}
	EVP_MD_CTX_free(m);
	ERR_clear_error();
	return r == 1;
}

/* why the client refused the last handshake: OpenSSL's reason code */
static int refused_for;

/* a TLS 1.3 handshake in memory between a server of <cert>/<key> and a
 * client that trusts any certificate (hxload without --cacert): 1 when it
 * completed, 0 when the client refused it; the client's view of the
 * server's key, provided or not, in *provided */
static int handshake(X509 *cert, EVP_PKEY *key, int *provided)
{
	SSL_CTX *sc = SSL_CTX_new(TLS_server_method()), *cc = SSL_CTX_new(TLS_client_method());
	SSL *s = NULL, *c = NULL;
	BIO *bs = NULL, *bc = NULL;
	int done = 0;

	*provided = -1;
	if (!sc || !cc || SSL_CTX_use_certificate(sc, cert) != 1 || SSL_CTX_use_PrivateKey(sc, key) != 1 ||
	    !SSL_CTX_set_min_proto_version(sc, TLS1_3_VERSION) || !(s = SSL_new(sc)) || !(c = SSL_new(cc)) ||
	    !BIO_new_bio_pair(&bs, 0, &bc, 0))
		goto out;
	SSL_set_bio(s, bs, bs);
	SSL_set_bio(c, bc, bc);
	SSL_set_accept_state(s);
	SSL_set_connect_state(c);
	/* WHY the client's verdict read before the server runs again: both
	 * share this thread's error queue, and the server's would come last */
	for (int i = 0; i < 20 && !done; i++) {
		int rc = SSL_do_handshake(c);

		if (rc <= 0 && SSL_get_error(c, rc) == SSL_ERROR_SSL) {
			refused_for = ERR_GET_REASON(ERR_peek_last_error());
			break;
		}
		int rs = SSL_do_handshake(s);

		if (rc == 1 && rs == 1)
			done = 1;
		else if (rs <= 0 && SSL_get_error(s, rs) == SSL_ERROR_SSL)
			break;
	}
	X509 *peer = SSL_get0_peer_certificate(c);

	if (peer)
		*provided = EVP_PKEY_get0_provider(X509_get0_pubkey(peer)) != NULL;
out:
	SSL_free(s);
	SSL_free(c);
	SSL_CTX_free(sc);
	SSL_CTX_free(cc);
	ERR_clear_error();
	return done;
}

int main(void)
{
	EVP_PKEY *ec = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256"), *ec2 = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	EVP_PKEY *rsa = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
	unsigned char *ec_der = NULL, *rsa_der = NULL;
	int ec_n = cert_der(ec, &ec_der), rsa_n = cert_der(rsa, &rsa_der), provided;
	X509 *x = parse(ec_der, ec_n);

	ok(ec && ec2 && rsa && ec_n > 0 && rsa_n > 0, "keys and certificates made");
	ok(x && EVP_PKEY_get0_provider(X509_get0_pubkey(x)), "before: a certificate's EC key is the provider's (3.0's decoders)");
	X509_free(x);

	is_int(lc_tls_builtin_keys(), 0, "the built-in key methods registered");
	is_int(lc_tls_builtin_keys(), 0, "... once: a second call changes nothing");

	x = parse(ec_der, ec_n);
	EVP_PKEY *pub = x ? X509_get0_pubkey(x) : NULL;

	ok(pub && !EVP_PKEY_get0_provider(pub) && EVP_PKEY_get_base_id(pub) == EVP_PKEY_EC,
	   "after: the EC key decoded by the built-in method");
	ok(pub && EVP_PKEY_eq(pub, ec) == 1, "... the certificate's key all the same");
	ok(sig_checks(ec, pub, "hello", "hello", 0), "ECDSA P-256: its key's signature verifies");
	ok(!sig_checks(ec, pub, "hello", "hellO", 0), "ECDSA: a signature of another message fails");
	ok(!sig_checks(ec2, pub, "hello", "hello", 0), "ECDSA: another key's signature fails");
	X509 *xr = parse(rsa_der, rsa_n);
	EVP_PKEY *rpub = xr ? X509_get0_pubkey(xr) : NULL;

	ok(rpub && !EVP_PKEY_get0_provider(rpub) && EVP_PKEY_get_base_id(rpub) == EVP_PKEY_RSA,
	   "the RSA key decoded by the built-in method");
	ok(sig_checks(rsa, rpub, "hello", "hello", 1), "RSA-PSS (TLS 1.3's): its key's signature verifies");
	ok(!sig_checks(rsa, rpub, "hello", "hellO", 1), "RSA-PSS: a signature of another message fails");

	is_int(handshake(x, ec, &provided), 1, "TLS 1.3 with the EC certificate: the handshake completes");
	is_int(provided, 0, "... the client checked CertificateVerify with the built-in key");
	is_int(handshake(xr, rsa, &provided), 1, "TLS 1.3 with the RSA certificate (RSA-PSS): completes");

	/* WHY a legacy EC_KEY whose scalar is changed once the server took
	 * it: OpenSSL refuses a certificate and key that differ at load, so
	 * this is the way to a server that signs with the wrong key */
	EC_KEY *k = EVP_PKEY_get1_EC_KEY(ec);
	EVP_PKEY *bad = EVP_PKEY_new();

	ok(k && bad && EVP_PKEY_assign_EC_KEY(bad, k), "a legacy copy of the EC key");
	is_int(handshake(x, bad, &provided), 1, "... a server of that copy: the handshake completes");
	EC_KEY *k2 = EVP_PKEY_get1_EC_KEY(ec2);

	if (k && k2)
		EC_KEY_set_private_key(k, EC_KEY_get0_private_key(k2));
	refused_for = 0;
	is_int(handshake(x, bad, &provided), 0, "a server whose CertificateVerify is signed by another key: refused");
	is_int(refused_for, SSL_R_BAD_SIGNATURE, "... for its bad signature");
	EC_KEY_free(k2);
	EVP_PKEY_free(bad);

	X509_free(x);
	X509_free(xr);
	OPENSSL_free(ec_der);
	OPENSSL_free(rsa_der);
	EVP_PKEY_free(ec);
	EVP_PKEY_free(ec2);
	EVP_PKEY_free(rsa);
	return done_testing();
}

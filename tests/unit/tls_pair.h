/* Test helpers for TLS in memory: a self-signed certificate of a key, as DER. */
#ifndef HX_TEST_TLS_PAIR_H
#define HX_TEST_TLS_PAIR_H

#include <openssl/evp.h>
#include <openssl/x509.h>

/* a self-signed certificate of <key> for "localhost", DER in *der: its length, or -1 */
static inline int cert_der(EVP_PKEY *key, unsigned char **der)
{
	X509 *x = X509_new();
	int n = -1;

	if (x && X509_set_version(x, 2) && ASN1_INTEGER_set(X509_get_serialNumber(x), 1) &&
	    X509_gmtime_adj(X509_getm_notBefore(x), -60) && X509_gmtime_adj(X509_getm_notAfter(x), 3600) &&
	    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC, (const unsigned char *)"localhost",
				       -1, -1, 0) &&
	    X509_set_issuer_name(x, X509_get_subject_name(x)) && X509_set_pubkey(x, key) &&
	    X509_sign(x, key, EVP_sha256()))
		n = i2d_X509(x, der);
	X509_free(x);
	return n;
}

#endif

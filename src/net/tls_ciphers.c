/* TLS records sealed by OpenSSL's built-in AES-GCM and ChaCha20-Poly1305, not through 3.0's provider calls. */
/* WHY deprecated calls: an ENGINE is OpenSSL 3.0's one way to this path */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <pthread.h>

#include <openssl/engine.h>
#include <openssl/evp.h>

#include "common.h"
#include "tls_ciphers.h"

/*
 * WHY: OpenSSL 3.0 seals each TLS record through its provider interface,
 * and every record asks the cipher context for its IV length, its tag and
 * its IV by OSSL_PARAM arrays that the provider walks by name (24
 * OSSL_PARAM_locate a small HTTP/1 exchange, 1,700 instructions, and as
 * many again around them: EVP_CIPHER_CTX_get_iv_length alone was 1,300).
 * 3.2 caches some of it; 3.0 takes its old direct calls when an ENGINE is
 * registered for the cipher. This one adds nothing of its own: the
 * ciphers it hands out are OpenSSL's built-in ones (EVP_aes_128_gcm() and
 * its kin), the same AES-NI and carry-less multiply code the default
 * provider wraps, so a record is sealed and checked as before (a changed
 * byte still fails its tag: tests/unit/tls_ciphers.c).
 */
static const int nids[] = {
	NID_aes_128_gcm, NID_aes_256_gcm,
#ifndef OPENSSL_NO_CHACHA
	NID_chacha20_poly1305,
#endif
};

static const EVP_CIPHER *builtin_of(int nid)
{
	switch (nid) {
	case NID_aes_128_gcm: return EVP_aes_128_gcm();
	case NID_aes_256_gcm: return EVP_aes_256_gcm();
#ifndef OPENSSL_NO_CHACHA
	case NID_chacha20_poly1305: return EVP_chacha20_poly1305();
#endif
	}
	return NULL;
}

static int ciphers(ENGINE *e, const EVP_CIPHER **c, const int **list, int nid)
{
	(void)e;
	if (!c) {
		*list = nids;
		return (int)ARRAY_SIZE(nids);
	}
	*c = builtin_of(nid);
	return *c != NULL;
}

/* WHY kept for the process: OpenSSL's table of registered engines points
 * at it and takes no reference of its own */
static ENGINE *builtin;
static int status = -1;

static void once(void)
{
	builtin = ENGINE_new();
	if (builtin && ENGINE_set_id(builtin, "hx-builtin-aead") &&
	    ENGINE_set_name(builtin, "OpenSSL's built-in AES-GCM and ChaCha20-Poly1305") &&
	    ENGINE_set_ciphers(builtin, ciphers) && ENGINE_register_ciphers(builtin)) {
		status = 0;
		return;
	}
	ENGINE_free(builtin);
	builtin = NULL;
}

int tls_builtin_ciphers(void)
{
	static pthread_once_t done = PTHREAD_ONCE_INIT;

	pthread_once(&done, once);
	return status;
}

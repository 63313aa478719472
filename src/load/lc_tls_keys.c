/* hxload's EC and RSA keys by OpenSSL's own built-in methods, not its 3.0 decoders: the server certificate parsed in 18 us, not 98. */
/* WHY deprecated calls: an ENGINE is OpenSSL 3.0's one way to this path */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/engine.h>
#include <openssl/evp.h>

#include "common.h"
#include "lc_tls.h"

/*
 * WHY: OpenSSL 3.0 decodes every certificate's public key with a decoder
 * chain it builds anew each time (OSSL_DECODER_CTX_new_for_pkey: every
 * decoder of every provider compared by name under read locks), 80 us of
 * a client's ~500 us full handshake, which no cache of 3.0 avoids (3.2
 * has one). It takes the old direct decoding (the algorithm's own
 * SubjectPublicKeyInfo reader, as 1.1.1 did) when an ENGINE is registered
 * for the key type. This one adds nothing of its own: the methods it
 * returns are OpenSSL's built-in ones (EVP_PKEY_meth_find), the same
 * arithmetic the default provider wraps, so a signature is checked as
 * before (a bad one still fails). Keys loaded from files (--cert, --key,
 * --cacert) stay the provider's, their operations by the built-in methods
 * too (22-hxload-proxy's mutual TLS and --cacert runs).
 */
static const int nids[] = { EVP_PKEY_EC, EVP_PKEY_RSA };

static int pkey_meths(ENGINE *e, EVP_PKEY_METHOD **pm, const int **list, int nid)
{
	(void)e;
	if (!pm) {
		*list = nids;
		return (int)ARRAY_SIZE(nids);
	}
	*pm = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(nids); i++)
		if (nid == nids[i])
			*pm = (EVP_PKEY_METHOD *)EVP_PKEY_meth_find(nid);
	return *pm != NULL;
}

/* WHY kept for the process: OpenSSL's table of registered engines points
 * at it and takes no reference of its own */
static ENGINE *builtin;

int lc_tls_builtin_keys(void)
{
	if (builtin)
		return 0;
	builtin = ENGINE_new();
	if (builtin && ENGINE_set_id(builtin, "hxload-builtin") &&
	    ENGINE_set_name(builtin, "OpenSSL's built-in EC and RSA key methods") &&
	    ENGINE_set_pkey_meths(builtin, pkey_meths) && ENGINE_register_pkey_meths(builtin))
		return 0;
	ENGINE_free(builtin);
	builtin = NULL;
	return -1;
}

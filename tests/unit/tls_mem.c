/* Unit tests of OpenSSL's allocator on szpool: installed before its first block (not under ASan), malloc's own blocks until tls_mem_pooled(), which empties the set-up thread's pools, OpenSSL's own rules for 0 bytes kept, a freed block reused. */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <malloc.h>
#include <string.h>

#include "szpool.h"
#include "tls_mem.h"
#include "tap.h"

int main(void)
{
	int r = tls_mem_init(0);
	unsigned char *p, *q, *e, *a, md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	size_t kept;

	is_int(r, SZP_POOLED ? 1 : 0, "installed before OpenSSL's first block (not under ASan)");
	e = OPENSSL_malloc(100);
	p = OPENSSL_malloc(100);
	ok(malloc_usable_size(e) < szp_class_size(100),
	   "before tls_mem_pooled() a block is malloc's own of the size asked, not a class's (%zu bytes of %zu)",
	   malloc_usable_size(e), szp_class_size(100));
	OPENSSL_free(e);
	OPENSSL_free(p);
	tls_mem_pooled();
	ok(szp_kept() == 0, "... and the set-up's freed blocks leave this thread's pools at tls_mem_pooled()");
	q = OPENSSL_malloc(100);
	OPENSSL_free(q);
	kept = szp_kept();
	ok(!SZP_POOLED || kept == 1, "from it a freed block goes to its pool");
	a = OPENSSL_malloc(100);
	ok(!SZP_POOLED || (a == q && szp_kept() == kept - 1), "... which gives it as the next of its class");
	OPENSSL_free(a);
	p = OPENSSL_malloc(100);
	OPENSSL_free(p);
	q = OPENSSL_malloc(100);
	ok(!SZP_POOLED || p == q, "a block OpenSSL frees is the next of its class");
	memset(q, 7, 100);
	p = OPENSSL_realloc(q, 3000);
	ok(p && p[0] == 7 && p[99] == 7, "OpenSSL's realloc keeps the bytes up a class");
	ok(OPENSSL_realloc(p, 0) == NULL, "realloc to 0 bytes frees and gives NULL, as OpenSSL's own");
	ok(OPENSSL_malloc(0) == NULL, "0 bytes give NULL, as OpenSSL's own");
	ok(EVP_Digest("abc", 3, md, &n, EVP_sha256(), NULL) && n == 32 && md[0] == 0xba && md[31] == 0xad,
	   "OpenSSL works on it: SHA-256 of 'abc' (its provider loaded on our blocks)");
	return done_testing();
}

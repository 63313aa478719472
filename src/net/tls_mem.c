/* OpenSSL's memory from per-thread pools by size class (szpool): a full TLS 1.3 handshake takes and frees ~2,300 blocks, which cost glibc's malloc and free ~530 k instructions of its ~5 M. */
#include <openssl/crypto.h>
#include <stdlib.h>

#include "szpool.h"
#include "tls_mem.h"

/* WHY 0 gives NULL, and realloc to 0 frees: OpenSSL's own functions do so,
 * and its callers were written for them */
static int pooled;

static void *tm_malloc(size_t num, const char *file, int line)
{
	(void)file, (void)line;
	if (!num)
		return NULL;
	return pooled ? szp_malloc(num) : malloc(num);
}

static void tm_free(void *p, const char *file, int line)
{
	(void)file, (void)line;
	szp_free(p);
}

static void *tm_realloc(void *p, size_t num, const char *file, int line)
{
	(void)file, (void)line;
	if (!num) {
		tm_free(p, file, line);
		return NULL;
	}
	return pooled ? szp_realloc(p, num) : realloc(p, num);
}

/* WHY the drain: the set-up's blocks freed went to this (the main)
 * thread's pools, which serve no connection */
void tls_mem_pooled(void)
{
	pooled = 1;
	szp_drain();
}

int tls_mem_init(int pooled_now)
{
	if (!SZP_POOLED)
		return 0;
	pooled = pooled_now;
	return CRYPTO_set_mem_functions(tm_malloc, tm_realloc, tm_free) ? 1 : -1;
}

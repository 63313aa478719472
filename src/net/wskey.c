/* RFC 6455's Sec-WebSocket-Accept (4.2.2): the server sends it, hxload checks it. */
#include <openssl/evp.h>

#include "wskey.h"

#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11" /* RFC 6455 1.3 */

void ws_accept_of(const char *key, size_t len, char out[29])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	EVP_MD_CTX *m = EVP_MD_CTX_new();

	out[0] = 0;
	if (m && EVP_DigestInit_ex(m, EVP_sha1(), NULL) == 1 && EVP_DigestUpdate(m, key, len) == 1 &&
	    EVP_DigestUpdate(m, WS_GUID, sizeof(WS_GUID) - 1) == 1 && EVP_DigestFinal_ex(m, md, &n) == 1)
		EVP_EncodeBlock((unsigned char *)out, md, (int)n);
	EVP_MD_CTX_free(m);
}

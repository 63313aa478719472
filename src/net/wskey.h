/* RFC 6455's Sec-WebSocket-Accept, the one computation both ends of a WebSocket handshake make. */
#ifndef HX_WSKEY_H
#define HX_WSKEY_H

#include <stddef.h>

/* base64(SHA-1(<key> and the RFC's GUID)) of the client's key (<len>
 * bytes) into <out>: 28 characters and a NUL, "" when OpenSSL fails */
void ws_accept_of(const char *key, size_t len, char out[29]);

#endif

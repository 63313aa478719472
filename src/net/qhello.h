/* A client's first QUIC Initial (a real TLS ClientHello through ngtcp2 and GnuTLS), written and forgotten: what a half-open flood sends. */
#ifndef HX_QHELLO_H
#define HX_QHELLO_H

#include <stddef.h>
#include <sys/socket.h>

#include "qtls.h"

/* One Initial datagram (1200 bytes or more) into <buf> for a new connection
 * with fresh connection IDs from <local> to <peer>; its state is gone when
 * this returns. The length, or -1. */
long qhello_write(const struct qtls *t, const char *sni, const struct sockaddr *local, socklen_t locallen,
		  const struct sockaddr *peer, socklen_t peerlen, uint8_t *buf, size_t cap);

#endif

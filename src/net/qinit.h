/* A client's QUIC v1 Initial opened before any connection state: keys from its DCID, header protection off, the AEAD tag checked. */
#ifndef HX_QINIT_H
#define HX_QINIT_H

#include <stddef.h>
#include <stdint.h>

/* <p> (<len> bytes) is a datagram whose first packet is a long-header
 * Initial. 0: it opens with the client's v1 Initial keys; -1: it does not
 * (garbage, truncated, forged); 1: another version, not checked here. Keeps
 * nothing. */
int qinit_open(const uint8_t *p, size_t len);

#endif

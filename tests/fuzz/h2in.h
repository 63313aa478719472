/* For the HTTP/2 fuzz drivers (h2, h2diff): an input as frames after a valid preface and SETTINGS, written to a connection of the worker. */
#ifndef HX_FUZZ_H2IN_H
#define HX_FUZZ_H2IN_H

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "srv.h"

/* A record: type, flags, stream (odd ids 1..255 from one byte, 0 when the
 * byte is 0), a length byte pair, then that many bytes (fewer at the end).
 * The frame header is written from it with the true length. */
static inline size_t h2in_frame(const uint8_t *p, size_t n, uint8_t *out)
{
	size_t len, sid;

	if (n < 5)
		return 0;
	sid = p[2] ? (size_t)(p[2] | 1) : 0;
	len = (size_t)(p[3] << 8 | p[4]) % 20000;
	if (len > n - 5)
		len = n - 5;
	out[0] = (uint8_t)(len >> 16), out[1] = (uint8_t)(len >> 8), out[2] = (uint8_t)len;
	out[3] = p[0] % 11 == 10 ? p[0] : p[0] % 11; /* WHY mostly known types: unknown ones are ignored */
	out[4] = p[1];
	out[5] = 0, out[6] = 0, out[7] = 0, out[8] = (uint8_t)sid;
	memcpy(out + 9, p + 5, len);
	return 5 + len;
}

/* the input on a new connection, a turn of the loop after each frame, then
 * its end; -1 when no connection could be made */
static inline int h2in_run(const uint8_t *data, size_t size)
{
	static uint8_t out[9 + 20000];
	static const char hello[] = H2_PREFACE "\0\0\0\4\0\0\0\0\0";
	size_t off = 0;
	int peer;

	if ((peer = srv_connect(0)) < 0)
		return -1;
	if (write(peer, hello, sizeof(hello) - 1) < 0)
		off = size;
	while (off < size) {
		size_t used = h2in_frame(data + off, size - off, out), len;

		if (!used)
			break;
		len = (size_t)(out[0] << 16 | out[1] << 8 | out[2]);
		if (write(peer, out, 9 + len) < 0)
			break;
		off += used;
		srv_spin(peer, 1);
	}
	srv_drain(peer, 256);
	srv_end(peer);
	return 0;
}

#endif

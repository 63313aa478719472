/* QUIC's variable-length integers (RFC 9000 16): read and written, for QUIC packets and HTTP/3 frames. */
#ifndef HX_QVARINT_H
#define HX_QVARINT_H

#include <stddef.h>
#include <stdint.h>

/* the integer at <*p> into <*v>, <*p> moved past it; -1 when <end> comes first */
static inline int qv_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	size_t n;

	if (*p >= end)
		return -1;
	n = (size_t)1 << (**p >> 6);
	if ((size_t)(end - *p) < n)
		return -1;
	*v = **p & 0x3f;
	for (size_t i = 1; i < n; i++)
		*v = *v << 8 | (*p)[i];
	*p += n;
	return 0;
}

/* the bytes <v> takes (v < 2^62) */
static inline size_t qv_len(uint64_t v)
{
	return v < 64 ? 1 : v < 16384 ? 2 : v < (1u << 30) ? 4 : 8;
}

/* <v> at <o>, in qv_len(v) bytes; returns the end */
static inline uint8_t *qv_put(uint8_t *o, uint64_t v)
{
	size_t n = qv_len(v);

	for (size_t i = n; i-- > 0; v >>= 8)
		o[i] = (uint8_t)v;
	o[0] |= (uint8_t)((n == 1 ? 0 : n == 2 ? 1 : n == 4 ? 2 : 3) << 6);
	return o + n;
}

#endif

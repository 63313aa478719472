/* HTTP/3 frames written (RFC 9114 7.2): a HEADERS frame over a field section of core/qpack, its type and length put in front once the section's length is known; both ends use it. */
#ifndef HX_H3FRAME_H
#define HX_H3FRAME_H

#include "qpack.h"
#include "qvarint.h"

#define H3F_DATA    0x00
#define H3F_HEADERS 0x01
#define H3F_HEAD    9 /* bytes a frame's type and length take at most */

/* The HEADERS frame of <f> in <b>, which has H3F_HEAD + qpk_bound(f, n)
 * bytes: the section is encoded at b + H3F_HEAD, the frame starts up to
 * H3F_HEAD bytes before it. Returns the frame's start, *len its length. */
static inline uint8_t *h3f_headers(uint8_t *b, const struct hpk_field *f, size_t n, size_t *len)
{
	size_t sec = qpk_encode(b + H3F_HEAD, f, n), hl = 1 + qv_len(sec);
	uint8_t *h = b + H3F_HEAD - hl;

	h[0] = H3F_HEADERS;
	qv_put(h + 1, sec);
	*len = hl + sec;
	return h;
}

#endif

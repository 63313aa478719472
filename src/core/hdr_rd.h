/* A header block read as HPACK and QPACK write it: integers with an n-bit prefix (RFC 7541 5.1) and strings, raw or Huffman-coded into a scratch (5.2). */
#ifndef HX_HDR_RD_H
#define HX_HDR_RD_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "huff.h"

/* where a block is read, and where its Huffman strings go */
struct rd {
	const uint8_t *p, *end;
	uint8_t *scr, *scr_end;
};

/* an integer with an <bits>-bit prefix (RFC 7541 5.1), at most 62 bits: 0, or -1 */
static inline int qint(struct rd *r, unsigned bits, uint64_t *v)
{
	uint64_t max = (1u << bits) - 1, x;
	unsigned shift = 0;
	uint8_t b;

	if (r->p >= r->end)
		return -1;
	x = *r->p++ & max;
	if (likely(x < max)) {
		*v = x;
		return 0;
	}
	do {
		if (r->p >= r->end || shift > 56)
			return -1;
		b = *r->p++;
		x += (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (x >> 62)
		return -1;
	*v = x;
	return 0;
}

/* a string whose length has a <bits>-bit prefix after its Huffman bit <h>
 * (RFC 7541 5.2, RFC 9204 4.1.2): in place, or decoded into the scratch. 0, or -1 */
static inline int rd_str(struct rd *r, unsigned bits, uint8_t h, const uint8_t **s, size_t *len)
{
	int huff;
	uint64_t l;
	ptrdiff_t d;

	if (r->p >= r->end)
		return -1;
	huff = *r->p & h;
	if (qint(r, bits, &l) || l > (uint64_t)(r->end - r->p))
		return -1;
	if (!huff) {
		*s = r->p;
		*len = (size_t)l;
	} else {
		if ((d = huff_decode(r->p, (size_t)l, r->scr, (size_t)(r->scr_end - r->scr))) < 0)
			return -1;
		*s = r->scr;
		*len = (size_t)d;
		r->scr += d;
	}
	r->p += l;
	return 0;
}

#endif

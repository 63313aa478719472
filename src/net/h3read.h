/* An HTTP/3 response stream read as it comes (RFC 9114 7): frames split anywhere, HEADERS decoded by core/qpack_dec, DATA handed on in place, unknown frames passed over. */
#ifndef HX_H3READ_H
#define HX_H3READ_H

#include <stddef.h>
#include <stdint.h>

#include "qpack_dec.h"

#define H3R_FIELDS_MAX (1u << 24) /* bytes a HEADERS frame may have */

/* what a stream's frames are handed to */
struct h3r_ops {
	/* a field line of a HEADERS frame (a head, an interim head, trailers) */
	qpk_line_fn line;
	/* <n> bytes of a DATA frame's payload */
	void (*data)(void *arg, const uint8_t *p, size_t n);
};

/* a stream's reading state; all zero is a stream not read yet */
struct h3r {
	uint64_t left; /* bytes of the frame's payload still to come */
	uint8_t *fb;   /* a HEADERS frame that came in pieces, gathered here */
	uint32_t fn;   /* its bytes so far */
	uint8_t st;    /* where it is (h3read.c) */
	uint8_t hn;    /* bytes of the frame's head so far */
	uint8_t hb[16]; /* the frame's head (type and length) when it came in pieces */
};

/* <n> more bytes of the stream. Returns 0, or -1 when the stream breaks
 * HTTP/3 (a frame a request stream may not carry, a bad field section, one
 * that names the dynamic table, a HEADERS frame past H3R_FIELDS_MAX): read
 * no more of it then. */
int h3r_feed(struct h3r *r, const uint8_t *p, size_t n, const struct h3r_ops *ops, void *arg);

/* 1 when the stream may end here (between frames), else 0 */
int h3r_at_end(const struct h3r *r);

/* what the state holds, freed; it may be fed again as a new stream */
void h3r_reset(struct h3r *r);

#endif

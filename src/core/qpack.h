/* A QPACK encoder for response heads (RFC 9204): static-table references and raw literals, no dynamic table, no Huffman; and a walk that counts a request field section's lines without decoding them. */
#ifndef HX_QPACK_H
#define HX_QPACK_H

#include <stddef.h>
#include <stdint.h>

#include "hpack.h"

/* WHY no dynamic table: its entries go on the encoder stream and a header
 * block that refers to them may wait for the peer (blocked streams); a
 * target's head is mostly static names and values that change with each
 * response, so a reference to an entry would save few bytes for that
 * state. The decoder's SETTINGS need nothing from us either way. */

/* the most bytes qpk_encode() may write for these fields */
size_t qpk_bound(const struct hpk_field *f, size_t n);

/* The field section of <f> (prefix and field lines) into <out>, which has
 * qpk_bound() bytes. Returns its length. A field with HPK_NO_INDEX is sent
 * with the N bit (RFC 9204 4.5.4): intermediaries must not index it. */
size_t qpk_encode(uint8_t *out, const struct hpk_field *f, size_t n);

/* the static table's entry <i> (0 to 98), for those who check the table */
int qpk_static_entry(unsigned i, const char **name, const char **value);
/* the same with their lengths, for a decoder: 0, or -1 past the table */
int qpk_static_field(unsigned i, const char **name, size_t *nlen, const char **value, size_t *vlen);

/* A request stream's bytes walked, as they come, up to the end of its first
 * HEADERS frame, to count the field lines of its section without decoding
 * them (no Huffman, no table): a decoder that drops an invalid field
 * (nghttp3 0.8 drops one whose name or value RFC 9110 5.5 forbids, CR, LF
 * and NUL among them) hands on fewer fields than the section holds. */
struct qpk_walk {
	uint64_t val;    /* the integer being read */
	uint64_t left;   /* bytes left in the frame */
	uint64_t skip;   /* bytes of a string (or of another frame) to pass */
	uint32_t lines;  /* field lines begun */
	uint8_t st;      /* where it is (qpack.c) */
	uint8_t after;   /* where it goes once the integer is read */
	uint8_t shift;   /* the integer's bits read so far; a QUIC varint's bytes left */
	uint8_t strs;    /* strings still to come in this field line */
	uint8_t is_len;  /* the integer is a string's length */
	uint8_t hdrs;    /* the frame is a HEADERS frame */
};

void qpk_walk_init(struct qpk_walk *w);
/* <n> more bytes of the stream. Returns 1 once the first HEADERS frame was
 * passed whole (<lines> is then its count, and nothing more is read), 0
 * while more is wanted, -1 when it is no field section (a line past the
 * frame's end, an integer over 62 bits, an empty HEADERS frame). */
int qpk_walk(struct qpk_walk *w, const uint8_t *p, size_t n);

#endif

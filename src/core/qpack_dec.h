/* A QPACK field section decoder (RFC 9204 4.5) for a peer that may use no dynamic table: static-table references and literals, Huffman-coded or not, each line handed to the caller. */
#ifndef HX_QPACK_DEC_H
#define HX_QPACK_DEC_H

#include <stddef.h>
#include <stdint.h>

#include "huff.h"

/* WHY no dynamic table: hxload's HTTP/3 client advertises
 * SETTINGS_QPACK_MAX_TABLE_CAPACITY 0 (nghttp3's default), so a section
 * that names an entry of it is the peer's error (RFC 9204 2.2.3) */

/* one field line: its name and value (in the section, the static table or
 * the caller's scratch; not NUL-terminated), and the static entry its name
 * came from (-1: a literal name) */
struct qpk_line {
	const uint8_t *name, *value;
	size_t nlen, vlen;
	int sidx;
};

typedef void (*qpk_line_fn)(void *arg, const struct qpk_line *l);

/* the scratch qpk_decode() may need for a section of <n> bytes: its
 * Huffman strings decoded */
#define QPK_SCRATCH(n) (HUFF_DECODED_MAX(n) + 1)

/* The field section at <p> (<n> bytes, whole) decoded: <fn> called for
 * each line in order; Huffman strings are decoded into <scratch> of <cap>
 * bytes (QPK_SCRATCH(n) is always enough). Returns 0, -1 when the section
 * is malformed (truncated, an integer past 62 bits, a bad Huffman string,
 * a static index past the table, too little scratch), -2 when it refers
 * to the dynamic table. Lines before the error were handed on. */
int qpk_decode(const uint8_t *p, size_t n, uint8_t *scratch, size_t cap, qpk_line_fn fn, void *arg);

#endif

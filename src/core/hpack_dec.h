/* An HPACK decoder (RFC 7541) for response heads: the static table, a dynamic table that holds only what the encoder put in it, Huffman strings into the caller's scratch. */
#ifndef HX_HPACK_DEC_H
#define HX_HPACK_DEC_H

#include <stddef.h>
#include <stdint.h>

#include "huff.h"

/* WHY the table grows as entries come, not at the size allowed: a load
 * generator holds thousands of connections, and the servers it drives
 * insert a few hundred bytes each (nghttp2's inflater takes ~9 KiB a
 * connection up front) */
struct hpd {
	uint8_t *tab;        /* entries, the oldest first: name length, value length (2 bytes each), name, value */
	uint32_t len;        /* bytes of <tab> in use */
	uint32_t size;       /* bytes of <tab> allocated */
	uint32_t used;       /* the table's size as RFC 7541 4.1 counts it */
	uint32_t max;        /* its maximum, as the last size update said */
	uint32_t cap;        /* the most an update may say: our SETTINGS_HEADER_TABLE_SIZE */
	uint32_t n;          /* entries */
	uint16_t *off;       /* where each entry starts in <tab>, the oldest first (WHY: a lookup in one step, where
				walking the entries was 456 of hxload's instructions an h2 answer) */
	uint32_t offcap;     /* entries <off> has room for */
};

typedef void (*hpd_field_fn)(void *arg, const uint8_t *name, size_t nlen, const uint8_t *value, size_t vlen);

/* the scratch hpd_decode() may need for a block of <n> bytes: its Huffman
 * strings decoded (a name of the table it copies before an insertion goes
 * there too when it fits, else to a block of its own) */
#define HPD_SCRATCH(n) (HUFF_DECODED_MAX(n) + 1)

/* <cap>: the table size we allow (4096 unless our SETTINGS said less) */
void hpd_init(struct hpd *d, uint32_t cap);
void hpd_free(struct hpd *d);

/* The header block at <p> (<n> bytes, whole) decoded: <fn> called for each
 * field in order, with strings in the block, the tables or <scratch>
 * (<cap> bytes, HPD_SCRATCH(n) always enough). Returns 0, or -1 when the
 * block is malformed (truncated, an index past the tables, a size update
 * past <cap> or after a field, a bad Huffman string) or memory ran out:
 * a COMPRESSION_ERROR (RFC 9113 4.3), the decoder unusable after it. */
int hpd_decode(struct hpd *d, const uint8_t *p, size_t n, uint8_t *scratch, size_t cap, hpd_field_fn fn,
	       void *arg);

#endif

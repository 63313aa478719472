/* An HPACK encoder for response heads (RFC 7541): static-table names, a few dynamic entries for fields that repeat, literal values, no Huffman. */
#ifndef HX_HPACK_H
#define HX_HPACK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HPK_SLOTS     16  /* dynamic entries we keep at most */
#define HPK_SLOT_MAX  128 /* bytes of name and value an entry may have */
#define HPK_NO_INDEX  0x01 /* the field is never indexed (RFC 7541 6.2.3) */
/* the name is a lower-case literal: its address names the same bytes for the
 * process's life (nghttp2's and nghttp3's NO_COPY_NAME bit) */
#define HPK_LITERAL_NAME 0x02
#define HPK_STATIC_N  61   /* entries of the static table (RFC 7541 A) */

/* the static table's names, index - 1 (hpack_dec.c has their values) */
extern const char *const hpk_static_names[HPK_STATIC_N];

/* a header field, laid out as nghttp2_nv and nghttp3_nv are */
struct hpk_field {
	const uint8_t *name;
	const uint8_t *value;
	size_t nlen;
	size_t vlen;
	uint8_t flags;
};

/* An entry of ours in the decoder's dynamic table: its field, its place
 * in insertion order, its size as the table counts it */
struct hpk_slot {
	uint32_t seq;
	uint16_t nlen, vlen;
	uint8_t live;
	uint8_t data[HPK_SLOT_MAX];
};

/* The encoder's view of the decoder's table. Each name not in the static
 * table (and content-type, content-length) enters it once, with its first
 * value: a later field of that name refers to the entry for its name, or
 * for all of it when its value is the same. */
struct hpk_enc {
	uint32_t cap;         /* the most we use (--h2-enc-table) */
	uint32_t max;         /* the size we use: the decoder's, at most <cap> */
	uint32_t low;         /* the smallest since the last block, for its updates */
	uint32_t used;        /* the table's size (32 + name + value an entry) */
	uint32_t seq;         /* entries inserted, ever */
	uint8_t update;       /* a size update is owed at the next block's start */
	uint8_t by_lit[16];   /* a literal name's slot + 1, by its address's hash (checked on use) */
	const uint8_t *lit[HPK_SLOTS]; /* the literal name slot i was made for (HPK_LITERAL_NAME), or NULL */
	struct hpk_slot slot[HPK_SLOTS];
};

/* a literal name's address (HPK_LITERAL_NAME) hashed to <bits> bits: the
 * keys of HPACK's slot map and QPACK's memo */
static inline unsigned hpk_lit_hash(const uint8_t *p, unsigned bits)
{
	return (unsigned)(((uintptr_t)p * 0x9e3779b97f4a7c15u) >> (64 - bits));
}

/* an integer with an <n>-bit prefix after the bits of <first> (RFC 7541
 * 5.1, which QPACK's are too, RFC 9204 4.1.1). WHY inline: a response
 * head writes a dozen of them. */
static inline uint8_t *hpk_int(uint8_t *o, uint8_t first, unsigned n, uint64_t v)
{
	uint64_t max = (1u << n) - 1;

	if (v < max) {
		*o++ = (uint8_t)(first | v);
		return o;
	}
	*o++ = (uint8_t)(first | max);
	for (v -= max; v >= 128; v >>= 7)
		*o++ = (uint8_t)(0x80 | (v & 0x7f));
	*o++ = (uint8_t)v;
	return o;
}

/* a string literal with a 7-bit length prefix, not Huffman-coded (5.2) */
static inline uint8_t *hpk_str(uint8_t *o, const uint8_t *s, size_t len)
{
	o = hpk_int(o, 0, 7, len);
	memcpy(o, s, len);
	return o + len;
}

/* <cap>: the most table to use (0: none, every field a literal) */
void hpk_init(struct hpk_enc *e, uint32_t cap);
/* the decoder's SETTINGS_HEADER_TABLE_SIZE */
void hpk_table_size(struct hpk_enc *e, uint32_t size);
/* the most bytes hpk_encode() may write for these fields */
size_t hpk_bound(const struct hpk_field *f, size_t n);
/* the header block of <f> into <out>; returns its length */
size_t hpk_encode(struct hpk_enc *e, uint8_t *out, const struct hpk_field *f, size_t n);

#endif

/* A QPACK encoder for response heads (RFC 9204): static-table references and raw literals, no dynamic table, no Huffman. */
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

#endif

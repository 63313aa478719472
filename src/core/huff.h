/* HPACK's Huffman code (RFC 7541 5.2, Appendix B), decoded: the strings HTTP/2 and HTTP/3 (QPACK) peers may send coded. */
#ifndef HX_HUFF_H
#define HX_HUFF_H

#include <stddef.h>
#include <stdint.h>

/* the most bytes <n> coded bytes decode to (5 bits the shortest code) */
#define HUFF_DECODED_MAX(n) ((n) * 8 / 5 + 1)

/* The <n> coded bytes at <in> decoded into <out>, which has room for
 * <cap> bytes. Returns the decoded length, or -1 when the string is no
 * valid code (EOS inside, padding longer than 7 bits or not all ones, RFC
 * 7541 5.2) or does not fit in <cap>. */
ptrdiff_t huff_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap);

#endif

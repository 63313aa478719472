/* HPACK's Huffman code (RFC 7541 5.2, Appendix B), decoded: the strings HTTP/2 and HTTP/3 (QPACK) peers may send coded. */
#include "huff.h"

/* WHY no table of 257 codes: the code is canonical (codes of one length
 * are consecutive, in symbol order, and each length's first code follows
 * the last of the length before, shifted), so the count of codes of each
 * length and the symbols in code order define it whole. A code of length
 * L is the L bits read when they are below the first code of L plus the
 * count; otherwise they are the prefix of a longer code. */
#define HUFF_MIN 5
#define HUFF_MAX 30
#define HUFF_EOS 256

static const uint8_t count[HUFF_MAX + 1] = {
	0, 0, 0, 0, 0, 10, 26, 32, 6, 0, 5, 3, 2, 6, 2, 3, 0, 0, 0, 3, 8, 13, 26, 29, 12, 4, 15, 19, 29, 0, 4,
};

/* the symbols in code order (by length, then code) */
static const uint16_t sym[257] = {
	48, 49, 50, 97, 99, 101, 105, 111, 115, 116, 32, 37, 45, 46, 47, 51, 52, 53, 54, 55, 56, 57, 61,
	65, 95, 98, 100, 102, 103, 104, 108, 109, 110, 112, 114, 117, 58, 66, 67, 68, 69, 70, 71, 72, 73,
	74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 89, 106, 107, 113, 118, 119, 120, 121, 122,
	38, 42, 44, 59, 88, 90, 33, 34, 40, 41, 63, 39, 43, 124, 35, 62, 0, 36, 64, 91, 93, 126, 94, 125,
	60, 96, 123, 92, 195, 208, 128, 130, 131, 162, 184, 194, 224, 226, 153, 161, 167, 172, 176, 177,
	179, 209, 216, 217, 227, 229, 230, 129, 132, 133, 134, 136, 146, 154, 156, 160, 163, 164, 169, 170,
	173, 178, 181, 185, 186, 187, 189, 190, 196, 198, 228, 232, 233, 1, 135, 137, 138, 139, 140, 141,
	143, 147, 149, 150, 151, 152, 155, 157, 158, 165, 166, 168, 174, 175, 180, 182, 183, 188, 191, 197,
	231, 239, 9, 142, 144, 145, 148, 159, 171, 206, 215, 225, 236, 237, 199, 207, 234, 235, 192, 193,
	200, 201, 202, 205, 210, 213, 218, 219, 238, 240, 242, 243, 255, 203, 204, 211, 212, 214, 221, 222,
	223, 241, 244, 245, 246, 247, 248, 250, 251, 252, 253, 254, 2, 3, 4, 5, 6, 7, 8, 11, 12, 14, 15,
	16, 17, 18, 19, 20, 21, 23, 24, 25, 26, 27, 28, 29, 30, 31, 127, 220, 249, 10, 13, 22, 256,
};

/* per length: its first code, and the place of its first symbol in sym[]
 * (each first code: the one before plus its count, shifted; every symbol
 * of nghttp3's coding decoded back by tests/unit/huff.c) */
static const struct huff_len {
	uint32_t first;
	uint16_t at;
} lens[HUFF_MAX + 1] = {
	{ 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0x0, 0 }, { 0x14, 10 }, { 0x5c, 36 },
	{ 0xf8, 68 }, { 0x1fc, 74 }, { 0x3f8, 74 }, { 0x7fa, 79 }, { 0xffa, 82 }, { 0x1ff8, 84 },
	{ 0x3ffc, 90 }, { 0x7ffc, 92 }, { 0xfffe, 95 }, { 0x1fffc, 95 }, { 0x3fff8, 95 }, { 0x7fff0, 95 },
	{ 0xfffe6, 98 }, { 0x1fffdc, 106 }, { 0x3fffd2, 119 }, { 0x7fffd8, 145 }, { 0xffffea, 174 },
	{ 0x1ffffec, 186 }, { 0x3ffffe0, 190 }, { 0x7ffffde, 205 }, { 0xfffffe2, 224 },
	{ 0x1ffffffe, 253 }, { 0x3ffffffc, 253 },
};

/* the symbol whose code heads the <bits> low bits of <acc>, *len its
 * length; -1 when those bits are only the prefix of a code */
static int next_sym(uint64_t acc, unsigned bits, unsigned *len)
{
	unsigned top = bits < HUFF_MAX ? bits : HUFF_MAX;

	for (unsigned l = HUFF_MIN; l <= top; l++) {
		uint32_t c = (uint32_t)(acc >> (bits - l)) & ((1u << l) - 1);

		if (c - lens[l].first < count[l]) {
			*len = l;
			return sym[lens[l].at + c - lens[l].first];
		}
	}
	return -1;
}

ptrdiff_t huff_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	uint64_t acc = 0;
	unsigned bits = 0, len;
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		int s;

		acc = acc << 8 | in[i];
		bits += 8;
		while (bits >= HUFF_MIN && (s = next_sym(acc, bits, &len)) >= 0) {
			if (s == HUFF_EOS || o == cap)
				return -1;
			out[o++] = (uint8_t)s;
			bits -= len;
		}
		if (bits >= HUFF_MAX)
			return -1; /* WHY unreachable: every 30 bits hold a code */
	}
	/* what is left is padding: under 8 bits, all ones (EOS's first bits) */
	if (bits > 7 || (acc & ((1u << bits) - 1)) != (1u << bits) - 1)
		return -1;
	return (ptrdiff_t)o;
}

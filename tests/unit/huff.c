/* Unit tests of the Huffman decoder: RFC 7541's examples, the empty string, padding and EOS refused, the output bound kept (every symbol is decoded back from nghttp3's coding in tests/unit/qpack_dec.c). */
#include <stdlib.h>
#include <string.h>

#include "huff.h"
#include "tap.h"

/* <hex> decoded: the text, or "<error>" */
static const char *dec(const char *hex, size_t cap)
{
	static char out[256];
	uint8_t in[128];
	size_t n = 0;
	ptrdiff_t d;

	for (; hex[0] && hex[1]; hex += 2)
		in[n++] = (uint8_t)strtoul((char[]){ hex[0], hex[1], 0 }, NULL, 16);
	d = huff_decode(in, n, (uint8_t *)out, cap);
	if (d < 0)
		return "<error>";
	out[d] = 0;
	return out;
}

/* coded bytes (hex), the room given, the text they decode to or "<error>" */
static const struct {
	const char *hex;
	size_t cap;
	const char *want, *what;
} rows[] = {
	/* RFC 7541 C.4.1 to C.4.3, C.6.1 */
	{ "f1e3c2e5f23a6ba0ab90f4ff", 255, "www.example.com", "C.4.1: www.example.com" },
	{ "a8eb10649cbf", 255, "no-cache", "C.4.2: no-cache" },
	{ "25a849e95ba97d7f", 255, "custom-key", "C.4.3: custom-key" },
	{ "25a849e95bb8e8b4bf", 255, "custom-value", "C.4.3: custom-value" },
	{ "6402", 255, "302", "C.6.1: 302" },
	{ "aec3771a4b", 255, "private", "C.6.1: private" },
	{ "d07abe941054d444a8200595040b8166e082a62d1bff", 255, "Mon, 21 Oct 2013 20:13:21 GMT",
	  "C.6.1: a date (codes of 5 to 8 bits)" },
	{ "", 255, "", "no bytes: the empty string" },
	{ "1f", 255, "a", "'a' (00011) and three bits of padding" },
	{ "18", 255, "<error>", "padding with a zero bit: refused" },
	{ "a8eb10649cbfff", 255, "<error>", "padding of 8 bits: refused" },
	{ "ff", 255, "<error>", "a byte of ones alone (padding only, 8 bits): refused" },
	{ "fffffffc", 255, "<error>", "EOS (30 ones) inside the string: refused" },
	{ "fffffebf", 255, "\x0e", "a 28-bit code (byte 14) and padding" },
	{ "a8eb10649cbf", 8, "no-cache", "an output of exactly its room" },
	{ "a8eb10649cbf", 7, "<error>", "one byte short of room: refused" },
	{ "0000", 255, "<error>", "three '0's (00000) and a zero bit left over: refused" },
	{ "0001", 255, "000", "three '0's and a one bit of padding" },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		is_str(dec(rows[i].hex, rows[i].cap), rows[i].want, "%s", rows[i].what);
	printf("1..%d\n", tap_n);
	return tap_fail != 0;
}

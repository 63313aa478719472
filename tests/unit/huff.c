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

int main(void)
{
	/* RFC 7541 C.4.1 to C.4.3, C.6.1 */
	is_str(dec("f1e3c2e5f23a6ba0ab90f4ff", 255), "www.example.com", "C.4.1: www.example.com");
	is_str(dec("a8eb10649cbf", 255), "no-cache", "C.4.2: no-cache");
	is_str(dec("25a849e95ba97d7f", 255), "custom-key", "C.4.3: custom-key");
	is_str(dec("25a849e95bb8e8b4bf", 255), "custom-value", "C.4.3: custom-value");
	is_str(dec("6402", 255), "302", "C.6.1: 302");
	is_str(dec("aec3771a4b", 255), "private", "C.6.1: private");
	is_str(dec("d07abe941054d444a8200595040b8166e082a62d1bff", 255), "Mon, 21 Oct 2013 20:13:21 GMT",
	       "C.6.1: a date (codes of 5 to 8 bits)");
	is_str(dec("", 255), "", "no bytes: the empty string");
	is_str(dec("1f", 255), "a", "'a' (00011) and three bits of padding");
	is_str(dec("18", 255), "<error>", "padding with a zero bit: refused");
	is_str(dec("a8eb10649cbfff", 255), "<error>", "padding of 8 bits: refused");
	is_str(dec("ff", 255), "<error>", "a byte of ones alone (padding only, 8 bits): refused");
	is_str(dec("fffffffc", 255), "<error>", "EOS (30 ones) inside the string: refused");
	is_str(dec("fffffebf", 255), "\x0e", "a 28-bit code (byte 14) and padding");
	is_str(dec("a8eb10649cbf", 8), "no-cache", "an output of exactly its room");
	is_str(dec("a8eb10649cbf", 7), "<error>", "one byte short of room: refused");
	is_str(dec("0000", 255), "<error>", "three '0's (00000) and a zero bit left over: refused");
	is_str(dec("0001", 255), "000", "three '0's and a one bit of padding");
	printf("1..%d\n", tap_n);
	return tap_fail != 0;
}

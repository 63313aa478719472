/* Unit tests of the PROXY protocol reader and writer: every form the spec allows, each malformation refused, every prefix waited for. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>

#include "common.h"
#include "pp.h"
#include "tap.h"

static const char *addr_text(const struct sockaddr_storage *ss, char *buf, size_t n)
{
	char ip[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)ss;

		inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
		snprintf(buf, n, "%s:%u", ip, ntohs(a->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)ss;

		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
		snprintf(buf, n, "[%s]:%u", ip, ntohs(a->sin6_port));
	} else {
		snprintf(buf, n, "none");
	}
	return buf;
}

/* <hdr> then "GET": the header's length, and every shorter prefix HX_AGAIN */
static long parse_all(const char *hdr, size_t len, struct pp_info *pi, const char **why)
{
	char buf[PP_MAX + 8];
	long r;

	memcpy(buf, hdr, len);
	memcpy(buf + len, "GET ", 4);
	for (size_t k = 0; k < len; k++)
		if ((r = pp_parse(buf, k, pi, why)) != HX_AGAIN) {
			printf("# prefix of %zu bytes gave %ld (%s)\n", k, r, r < 0 ? *why : "");
			return -100;
		}
	return pp_parse(buf, len + 4, pi, why);
}

static void v1_ok(const char *line, const char *src, const char *dst)
{
	struct pp_info pi;
	const char *why = "";
	char a[80], b[80];
	long r = parse_all(line, strlen(line), &pi, &why);

	is_int(r, (long)strlen(line), "v1 '%.*s' read whole, every prefix waited for", (int)strlen(line) - 2, line);
	if (src) {
		is_str(addr_text(&pi.src, a, sizeof(a)), src, "  its source");
		is_str(addr_text(&pi.dst, b, sizeof(b)), dst, "  its destination");
	} else {
		ok(pi.local, "  UNKNOWN: no addresses");
	}
}

/* <line> of <len> bytes, NULs and all, is refused for <want_why> */
static void v1_bad_n(const char *line, size_t len, const char *want_why)
{
	struct pp_info pi;
	const char *why = "";
	long r = pp_parse(line, len, &pi, &why);

	is_int(r, -1, "refused: '%.*s'", (int)strcspn(line, "\r\n"), line);
	ok(strstr(why, want_why) != NULL, "  because '%s' (got '%s')", want_why, why);
}

static void v1_bad(const char *line, const char *want_why)
{
	v1_bad_n(line, strlen(line), want_why);
}

/* a v2 header for <src>, <dst> with <tlv> (<tlen> bytes) appended */
static size_t v2_make(char *out, const struct sockaddr *src, const struct sockaddr *dst, const char *tlv,
		      size_t tlen)
{
	size_t n = pp_write(out, 2, src, dst);
	size_t hl = (size_t)(unsigned char)out[14] << 8 | (unsigned char)out[15];

	memcpy(out + n, tlv, tlen);
	hl += tlen;
	out[14] = (char)(hl >> 8);
	out[15] = (char)hl;
	return n + tlen;
}

static void test_v2(void)
{
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(40001) };
	struct sockaddr_in d4 = { .sin_family = AF_INET, .sin_port = htons(8000) };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(5555) };
	struct sockaddr_in6 d6 = { .sin6_family = AF_INET6, .sin6_port = htons(443) };
	char h[PP_MAX + 16], a[80];
	const char *why = "";
	struct pp_info pi;
	size_t n;

	inet_pton(AF_INET, "192.0.2.7", &s4.sin_addr);
	inet_pton(AF_INET, "198.51.100.1", &d4.sin_addr);
	inet_pton(AF_INET6, "2001:db8::5", &s6.sin6_addr);
	inet_pton(AF_INET6, "2001:db8::1", &d6.sin6_addr);

	n = pp_write(h, 2, (struct sockaddr *)&s4, (struct sockaddr *)&d4);
	is_int(n, 28, "v2 TCP4 is 28 bytes");
	is_int(parse_all(h, n, &pi, &why), n, "v2 TCP4 read whole, every prefix waited for");
	is_int(pi.version, 2, "  version 2");
	is_str(addr_text(&pi.src, a, sizeof(a)), "192.0.2.7:40001", "  its source");
	is_str(addr_text(&pi.dst, a, sizeof(a)), "198.51.100.1:8000", "  its destination");

	n = pp_write(h, 2, (struct sockaddr *)&s6, (struct sockaddr *)&d6);
	is_int(n, 52, "v2 TCP6 is 52 bytes");
	is_int(parse_all(h, n, &pi, &why), n, "v2 TCP6 read whole");
	is_str(addr_text(&pi.src, a, sizeof(a)), "[2001:db8::5]:5555", "  its source");

	/* TLVs: ALPN, authority, a NOOP, and a CRC32C over the whole header */
	{
		static const char tlv[] = "\x01\x00\x02h2" "\x02\x00\x0b" "example.org" "\x04\x00\x03xyz"
					  "\x03\x00\x04\0\0\0\0";
		size_t tl = sizeof(tlv) - 1;
		uint32_t crc;

		n = v2_make(h, (struct sockaddr *)&s4, (struct sockaddr *)&d4, tlv, tl);
		crc = pp_crc32c(h, n);
		h[n - 4] = (char)(crc >> 24), h[n - 3] = (char)(crc >> 16), h[n - 2] = (char)(crc >> 8),
		h[n - 1] = (char)crc;
		is_int(parse_all(h, n, &pi, &why), n, "v2 with ALPN, authority, NOOP and CRC32C TLVs");
		is_mem(pi.alpn, pi.alpn_len, "h2", "  ALPN h2");
		is_mem(pi.authority, pi.auth_len, "example.org", "  authority example.org");
		h[n - 1] ^= 1;
		is_int(pp_parse(h, n, &pi, &why), -1, "a CRC32C off by one bit is refused");
		is_str(why, "PROXY v2: CRC32C mismatch", "  named");
	}
	is_int(pp_crc32c("123456789", 9), 0xe3069283, "CRC-32C check value");

	/* LOCAL (a proxy's health check): addresses ignored */
	n = pp_write(h, 2, (struct sockaddr *)&s4, (struct sockaddr *)&d4);
	h[12] = 0x20;
	is_int(pp_parse(h, n, &pi, &why), n, "v2 LOCAL read");
	ok(pi.local, "  local: the socket's addresses apply");

	/* malformations */
	n = pp_write(h, 2, (struct sockaddr *)&s4, (struct sockaddr *)&d4);
	h[12] = 0x11;
	is_int(pp_parse(h, n, &pi, &why), -1, "version 1 in a v2 header refused");
	h[12] = 0x23;
	is_int(pp_parse(h, n, &pi, &why), -1, "command 3 refused");
	h[12] = 0x21, h[13] = 0x12;
	is_int(pp_parse(h, n, &pi, &why), -1, "UDP4 on a stream refused");
	h[13] = 0x41;
	is_int(pp_parse(h, n, &pi, &why), -1, "family 4 refused");
	h[13] = 0x21;
	is_int(pp_parse(h, n, &pi, &why), -1, "TCP6 with a 12-byte block refused (shorter than its addresses)");
	is_str(why, "PROXY v2: length shorter than its addresses", "  named");
	h[13] = 0x11, h[14] = 0x10, h[15] = 0x00;
	is_int(pp_parse(h, PP_MAX + 16, &pi, &why), -1, "a 4112-byte header refused");
	is_str(why, "PROXY v2: header over 4096 bytes", "  named");
	n = v2_make(h, (struct sockaddr *)&s4, (struct sockaddr *)&d4, "\x01\x00\x09h2", 5);
	is_int(pp_parse(h, n, &pi, &why), -1, "a TLV running past the header refused");
	n = v2_make(h, (struct sockaddr *)&s4, (struct sockaddr *)&d4, "\x01\x00", 2);
	is_int(pp_parse(h, n, &pi, &why), -1, "a truncated TLV refused");
	memcpy(h, "\r\n\r\n\0\r\nQUIX\n", 12);
	is_int(pp_parse(h, 12, &pi, &why), -1, "a wrong signature refused");
}

int main(void)
{
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(1) };
	struct sockaddr_in d4 = { .sin_family = AF_INET, .sin_port = htons(65535) };
	char out[PP_V1_MAX + 1];
	struct pp_info pi;
	const char *why;

	v1_ok("PROXY TCP4 192.0.2.1 198.51.100.2 56324 443\r\n", "192.0.2.1:56324", "198.51.100.2:443");
	v1_ok("PROXY TCP6 2001:db8::1 ::1 0 8000\r\n", "[2001:db8::1]:0", "[::1]:8000");
	v1_ok("PROXY UNKNOWN\r\n", NULL, NULL);
	v1_ok("PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535\r\n", NULL, NULL);
	v1_ok("PROXY TCP6 ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff 65535 65535\r\n",
	      "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535", "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535");

	v1_bad("PROXY TCP4 192.0.2.1 198.51.100.2 56324 443\n", "no CRLF");
	v1_bad("PROXY TCP4 192.0.2.1 198.51.100.2 56324 443\rX", "CR without LF");
	v1_bad("PROXY TCP5 192.0.2.1 198.51.100.2 1 2\r\n", "expected TCP4, TCP6 or UNKNOWN");
	v1_bad("PROXY TCP4 192.0.2.1 198.51.100.2 1\r\n", "expected 4 fields");
	v1_bad("PROXY TCP4 192.0.2.1  198.51.100.2 1 2\r\n", "bad IPv4");
	v1_bad("PROXY TCP4 ::1 ::1 1 2\r\n", "bad IPv4");
	/* WHY sizeof - 1: the NUL inside is part of the line */
	v1_bad_n("PROXY TCP4 192.0.2.7\0garbage 192.0.2.1 40001 443\r\n",
		 sizeof("PROXY TCP4 192.0.2.7\0garbage 192.0.2.1 40001 443\r\n") - 1, "bad IPv4");
	v1_bad_n("PROXY TCP4 192.0.2.7 192.0.2.1\0 40001 443\r\n",
		 sizeof("PROXY TCP4 192.0.2.7 192.0.2.1\0 40001 443\r\n") - 1, "bad IPv4");
	v1_bad_n("PROXY TCP6 ::1\0zzzz ::1 40001 443\r\n", sizeof("PROXY TCP6 ::1\0zzzz ::1 40001 443\r\n") - 1,
		 "bad IPv6");
	v1_bad("PROXY TCP6 1.2.3.4 ::1 1 2\r\n", "bad IPv6");
	v1_bad("PROXY TCP4 1.2.3.4 1.2.3.5 65536 2\r\n", "bad port");
	v1_bad("PROXY TCP4 1.2.3.4 1.2.3.5 01 2\r\n", "bad port");
	v1_bad("PROXY TCP4 1.2.3.4 1.2.3.5 1 2 3\r\n", "extra bytes");
	v1_bad("PROXY TCP4 1.2.3.4 1.2.3.5 1 2 \r\n", "extra bytes");
	v1_bad("GET / HTTP/1.1\r\n", "no PROXY header");
	v1_bad("PROXYTCP4\r\n", "no PROXY header");
	{
		char big[200];

		memset(big, 'x', sizeof(big));
		memcpy(big, "PROXY UNKNOWN ", 14);
		big[sizeof(big) - 1] = 0;
		v1_bad(big, "no CRLF within 107 bytes");
	}

	{
		static const char want[] = "PROXY TCP4 0.0.0.0 0.0.0.0 1 65535\r\n";
		size_t n = pp_write(out, 1, (struct sockaddr *)&s4, (struct sockaddr *)&d4);

		is_mem(out, n, want, "v1 written");
		is_int(pp_parse(out, n, &pi, &why), (long)n, "  and read back");
	}
	test_v2();
	return done_testing();
}

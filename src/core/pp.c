/* PROXY protocol v1 and v2: a strict reader (every field checked, nothing guessed) and a writer for hxload. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "pp.h"

static const char v2sig[12] = "\r\n\r\n\0\r\nQUIT\n";

#define PP2_LOCAL  0x0
#define PP2_PROXY  0x1
#define PP2_TYPE_ALPN      0x01
#define PP2_TYPE_AUTHORITY 0x02
#define PP2_TYPE_CRC32C    0x03

static uint32_t crc32c_upd(uint32_t crc, const unsigned char *p, size_t len)
{
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78U & (0U - (crc & 1)));
	}
	return crc;
}

uint32_t pp_crc32c(const void *buf, size_t len)
{
	return ~crc32c_upd(~0U, buf, len);
}

/* ---------- v1: "PROXY TCP4 <src> <dst> <sport> <dport>\r\n" ---------- */

/* one token of <line> up to a single space (or the end): its length */
static size_t v1_token(const char *p, const char *end)
{
	const char *s = p;

	while (p < end && *p != ' ')
		p++;
	return (size_t)(p - s);
}

/* a port: 1 to 5 digits, no leading zero, at most 65535 */
static int v1_port(const char *p, size_t n, uint16_t *port)
{
	unsigned v = 0;

	if (!n || n > 5 || (p[0] == '0' && n > 1))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(p[i] - '0');
	}
	if (v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

static int v1_addr(int fam, const char *p, size_t n, struct sockaddr_storage *ss)
{
	char ip[INET6_ADDRSTRLEN];

	const char *allowed = fam == AF_INET ? "0123456789." : "0123456789abcdefABCDEF:.";

	if (!n || n >= sizeof(ip))
		return -1;
	memcpy(ip, p, n);
	ip[n] = 0;
	/* WHY: a NUL (or any other byte) would end what inet_pton reads, and
	 * "192.0.2.7\0garbage" pass for 192.0.2.7 */
	if (strspn(ip, allowed) != n)
		return -1;
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = (sa_family_t)fam;
	if (fam == AF_INET)
		return inet_pton(AF_INET, ip, &((struct sockaddr_in *)ss)->sin_addr) == 1 ? 0 : -1;
	return inet_pton(AF_INET6, ip, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1 ? 0 : -1;
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/* the fields after "PROXY " of a line that ends at <end> (before CRLF) */
static int v1_fields(const char *p, const char *end, struct pp_info *pi, const char **why)
{
	size_t n = v1_token(p, end);
	struct sockaddr_storage *ss[2] = { &pi->src, &pi->dst };
	uint16_t port;
	int fam;

	if (n == 7 && !memcmp(p, "UNKNOWN", 7))
		return pi->local = 1, 0; /* WHY: the rest of the line is to be ignored */
	if (n != 4 || memcmp(p, "TCP", 3) || (p[3] != '4' && p[3] != '6'))
		return *why = "PROXY v1: expected TCP4, TCP6 or UNKNOWN", -1;
	fam = p[3] == '4' ? AF_INET : AF_INET6;
	p += n;
	for (int i = 0; i < 4; i++) {
		if (p >= end || *p != ' ')
			return *why = "PROXY v1: expected 4 fields after the protocol, one space apart", -1;
		n = v1_token(++p, end);
		if (i < 2 && v1_addr(fam, p, n, ss[i]) < 0)
			return *why = fam == AF_INET ? "PROXY v1: bad IPv4 address" : "PROXY v1: bad IPv6 address", -1;
		if (i >= 2) {
			if (v1_port(p, n, &port) < 0)
				return *why = "PROXY v1: bad port", -1;
			set_port(ss[i - 2], port);
		}
		p += n;
	}
	if (p != end)
		return *why = "PROXY v1: extra bytes after the ports", -1;
	return 0;
}

static long v1_parse(const char *buf, size_t len, struct pp_info *pi, const char **why)
{
	/* WHY - 1: the CR of a 107-byte line is its 106th byte */
	const char *cr = memchr(buf, '\r', MIN(len, (size_t)PP_V1_MAX - 1));

	if (!cr) {
		if (len < PP_V1_MAX - 1 && !memchr(buf, '\n', len))
			return HX_AGAIN;
		return *why = "PROXY v1: no CRLF within 107 bytes", -1;
	}
	if ((size_t)(cr - buf) + 1 >= len)
		return HX_AGAIN;
	if (cr[1] != '\n')
		return *why = "PROXY v1: CR without LF", -1;
	pi->version = 1;
	if (v1_fields(buf + 6, cr, pi, why) < 0)
		return -1;
	return (long)(cr - buf) + 2;
}

/* ---------- v2: binary, 16-byte head, addresses, TLVs ---------- */

static size_t v2_addr_len(uint8_t fam)
{
	switch (fam >> 4) {
	case 1: return 12;
	case 2: return 36;
	case 3: return 216;
	}
	return 0;
}

static void v2_addrs(const unsigned char *a, uint8_t fam, struct pp_info *pi)
{
	memset(&pi->src, 0, sizeof(pi->src));
	memset(&pi->dst, 0, sizeof(pi->dst));
	if ((fam >> 4) == 1) {
		struct sockaddr_in *s = (struct sockaddr_in *)&pi->src, *d = (struct sockaddr_in *)&pi->dst;

		s->sin_family = d->sin_family = AF_INET;
		memcpy(&s->sin_addr, a, 4);
		memcpy(&d->sin_addr, a + 4, 4);
		memcpy(&s->sin_port, a + 8, 2);
		memcpy(&d->sin_port, a + 10, 2);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&pi->src, *d = (struct sockaddr_in6 *)&pi->dst;

		s->sin6_family = d->sin6_family = AF_INET6;
		memcpy(&s->sin6_addr, a, 16);
		memcpy(&d->sin6_addr, a + 16, 16);
		memcpy(&s->sin6_port, a + 32, 2);
		memcpy(&d->sin6_port, a + 34, 2);
	}
}

/* the TLVs of a header of <total> bytes, from <off> */
static int v2_tlvs(const unsigned char *h, size_t off, size_t total, struct pp_info *pi, const char **why)
{
	while (off < total) {
		size_t vlen;
		const unsigned char *v;

		if (total - off < 3)
			return *why = "PROXY v2: truncated TLV", -1;
		vlen = (size_t)h[off + 1] << 8 | h[off + 2];
		v = h + off + 3;
		if (vlen > total - off - 3)
			return *why = "PROXY v2: a TLV runs past the header", -1;
		if (h[off] == PP2_TYPE_ALPN) {
			if (!vlen || vlen >= sizeof(pi->alpn))
				return *why = "PROXY v2: ALPN TLV empty or over 63 bytes", -1;
			memcpy(pi->alpn, v, vlen);
			pi->alpn_len = (uint8_t)vlen;
		} else if (h[off] == PP2_TYPE_AUTHORITY) {
			if (!vlen || vlen >= sizeof(pi->authority))
				return *why = "PROXY v2: authority TLV empty or over 255 bytes", -1;
			memcpy(pi->authority, v, vlen);
			pi->auth_len = (uint8_t)vlen;
		} else if (h[off] == PP2_TYPE_CRC32C) {
			uint32_t want, crc;

			if (vlen != 4)
				return *why = "PROXY v2: CRC32C TLV not 4 bytes", -1;
			want = (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8 | v[3];
			crc = crc32c_upd(~0U, h, (size_t)(v - h));
			crc = crc32c_upd(crc, (const unsigned char *)"\0\0\0\0", 4);
			crc = ~crc32c_upd(crc, v + 4, total - (size_t)(v - h) - 4);
			if (crc != want)
				return *why = "PROXY v2: CRC32C mismatch", -1;
		}
		off += 3 + vlen;
	}
	return 0;
}

static long v2_parse(const unsigned char *h, size_t len, struct pp_info *pi, const char **why)
{
	size_t total, alen;
	uint8_t cmd, fam;

	if (len < 16)
		return HX_AGAIN;
	if ((h[12] >> 4) != 2)
		return *why = "PROXY v2: version not 2", -1;
	cmd = h[12] & 0xf;
	fam = h[13];
	if (cmd != PP2_LOCAL && cmd != PP2_PROXY)
		return *why = "PROXY v2: command neither LOCAL nor PROXY", -1;
	if ((fam >> 4) > 3 || (fam & 0xf) > 2)
		return *why = "PROXY v2: unknown address family or protocol", -1;
	total = 16 + ((size_t)h[14] << 8 | h[15]);
	if (total > PP_MAX)
		return *why = "PROXY v2: header over 4096 bytes", -1;
	if (len < total)
		return HX_AGAIN;
	alen = v2_addr_len(fam);
	if (total - 16 < alen)
		return *why = "PROXY v2: length shorter than its addresses", -1;
	pi->version = 2;
	/* WHY local for UNSPEC and UNIX: the spec says to use the
	 * connection's own addresses for what it cannot carry on */
	pi->local = cmd == PP2_LOCAL || (fam >> 4) == 0 || (fam >> 4) == 3;
	if (cmd == PP2_PROXY && (fam & 0xf) == 2)
		return *why = "PROXY v2: a datagram address on a stream connection", -1;
	if (!pi->local)
		v2_addrs(h + 16, fam, pi);
	if (v2_tlvs(h, 16 + alen, total, pi, why) < 0)
		return -1;
	return (long)total;
}

long pp_parse(const char *buf, size_t len, struct pp_info *pi, const char **why)
{
	memset(pi, 0, offsetof(struct pp_info, alpn));
	if (!len)
		return HX_AGAIN;
	if (buf[0] == 'P') {
		if (memcmp(buf, "PROXY ", MIN(len, 6)))
			return *why = "no PROXY header (proxy listener)", -1;
		return len < 6 ? HX_AGAIN : v1_parse(buf, len, pi, why);
	}
	if (memcmp(buf, v2sig, MIN(len, sizeof(v2sig))))
		return *why = "no PROXY header (proxy listener)", -1;
	return len < sizeof(v2sig) ? HX_AGAIN : v2_parse((const unsigned char *)buf, len, pi, why);
}

/* ---------- writing ---------- */

/* the text of <sa>'s address into <ip>, its port: 0, or -1 when not IP */
static int ip_text(const struct sockaddr *sa, char *ip, size_t len, unsigned *port)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)sa;

		*port = ntohs(a->sin_port);
		return inet_ntop(AF_INET, &a->sin_addr, ip, (socklen_t)len) ? 0 : -1;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)sa;

		*port = ntohs(a->sin6_port);
		return inet_ntop(AF_INET6, &a->sin6_addr, ip, (socklen_t)len) ? 0 : -1;
	}
	return -1;
}

static size_t v1_write(char *out, const struct sockaddr *src, const struct sockaddr *dst)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	unsigned sp, dp;
	int n;

	if (src->sa_family == dst->sa_family && ip_text(src, s, sizeof(s), &sp) == 0 &&
	    ip_text(dst, d, sizeof(d), &dp) == 0)
		n = snprintf(out, PP_V1_MAX + 1, "PROXY TCP%c %s %s %u %u\r\n", src->sa_family == AF_INET ? '4' : '6',
			     s, d, sp, dp);
	else
		n = snprintf(out, PP_V1_MAX + 1, "PROXY UNKNOWN\r\n");
	return (size_t)n;
}

static size_t v2_write(char *out, const struct sockaddr *src, const struct sockaddr *dst)
{
	unsigned char *h = (unsigned char *)out;
	size_t alen = 0;

	memcpy(h, v2sig, sizeof(v2sig));
	h[12] = 0x21; /* version 2, PROXY */
	h[13] = 0x00;
	if (src->sa_family == AF_INET && dst->sa_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)src, *b = (const void *)dst;

		h[13] = 0x11;
		memcpy(h + 16, &a->sin_addr, 4);
		memcpy(h + 20, &b->sin_addr, 4);
		memcpy(h + 24, &a->sin_port, 2);
		memcpy(h + 26, &b->sin_port, 2);
		alen = 12;
	} else if (src->sa_family == AF_INET6 && dst->sa_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)src, *b = (const void *)dst;

		h[13] = 0x21;
		memcpy(h + 16, &a->sin6_addr, 16);
		memcpy(h + 32, &b->sin6_addr, 16);
		memcpy(h + 48, &a->sin6_port, 2);
		memcpy(h + 50, &b->sin6_port, 2);
		alen = 36;
	} else {
		h[12] = 0x20; /* LOCAL: a Unix socket has no address to carry */
	}
	h[14] = 0;
	h[15] = (unsigned char)alen;
	return 16 + alen;
}

size_t pp_write(char *out, int version, const struct sockaddr *src, const struct sockaddr *dst)
{
	return version == 1 ? v1_write(out, src, dst) : v2_write(out, src, dst);
}

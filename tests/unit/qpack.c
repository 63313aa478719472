/* Unit tests of the QPACK encoder, each field section decoded by nghttp3's decoder: the static table agrees with nghttp3's, the fields come back, the N bit carries over. */
#include <nghttp3/nghttp3.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "qpack.h"
#include "tap.h"

#define F(n, v) { (const uint8_t *)(n), (const uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, 0 }

/* decodes <len> bytes; 1 when the fields are <want>'s, in order, with the
 * never-index flag where <want> has HPK_NO_INDEX */
static int round_trip(nghttp3_qpack_decoder *dec, const uint8_t *in, size_t len,
		      const struct hpk_field *want, size_t n)
{
	nghttp3_qpack_stream_context *sc;
	size_t got = 0;
	int good = 1;

	if (nghttp3_qpack_stream_context_new(&sc, 0, nghttp3_mem_default()))
		return 0;
	for (;;) {
		nghttp3_qpack_nv nv;
		uint8_t fl = 0;
		nghttp3_ssize r = nghttp3_qpack_decoder_read_request(dec, sc, &nv, &fl, in, len, 1);

		if (r < 0) {
			printf("# decode error %td\n", (ptrdiff_t)r);
			good = 0;
			break;
		}
		in += r;
		len -= (size_t)r;
		if (fl & NGHTTP3_QPACK_DECODE_FLAG_EMIT) {
			nghttp3_vec nm = nghttp3_rcbuf_get_buf(nv.name), v = nghttp3_rcbuf_get_buf(nv.value);
			int never = !!(nv.flags & NGHTTP3_NV_FLAG_NEVER_INDEX);

			if (got >= n || nm.len != want[got].nlen || v.len != want[got].vlen ||
			    memcmp(nm.base, want[got].name, nm.len) || memcmp(v.base, want[got].value, v.len) ||
			    never != !!(want[got].flags & HPK_NO_INDEX)) {
				printf("# field %zu differs: %.*s: %.*s (never %d)\n", got, (int)nm.len, nm.base,
				       (int)v.len, v.base, never);
				good = 0;
			}
			nghttp3_rcbuf_decref(nv.name);
			nghttp3_rcbuf_decref(nv.value);
			got++;
		}
		if ((fl & NGHTTP3_QPACK_DECODE_FLAG_FINAL) || (!(fl & NGHTTP3_QPACK_DECODE_FLAG_EMIT) && !len))
			break;
	}
	nghttp3_qpack_stream_context_del(sc);
	return good && got == n;
}

static size_t enc(uint8_t *out, const struct hpk_field *f, size_t n)
{
	size_t len = qpk_encode(out, f, n);

	if (len > qpk_bound(f, n))
		printf("# over the bound: %zu\n", len);
	return len <= qpk_bound(f, n) ? len : 0;
}

/* ---------- the walk of a request's first HEADERS frame ---------- */

/* <in> walked in pieces of <step> bytes (0: whole): qpk_walk's answer, and
 * the lines it counted into <*lines> */
static int walk(const uint8_t *in, size_t len, size_t step, uint32_t *lines)
{
	struct qpk_walk w;
	int r = 0;

	qpk_walk_init(&w);
	for (size_t off = 0; off < len && !r; off += step ? step : len)
		r = qpk_walk(&w, in + off, MIN(step ? step : len, len - off));
	*lines = w.lines;
	return r;
}

/* a HEADERS frame of <sec> (after a reserved frame when <grease>) into <out>: its length */
static size_t frame(uint8_t *out, const uint8_t *sec, size_t n, int grease)
{
	uint8_t *o = out;

	if (grease) { /* type 0x21 (reserved, RFC 9114 7.2.8), three bytes */
		*o++ = 0x40 | 0; /* two-byte varint 0x21 */
		*o++ = 0x21;
		*o++ = 3;
		memcpy(o, "abc", 3);
		o += 3;
	}
	*o++ = 0x01;
	*o++ = (uint8_t)(0x40 | n >> 8); /* two-byte length */
	*o++ = (uint8_t)n;
	memcpy(o, sec, n);
	return (size_t)(o - out) + n;
}

/* every split of <in>: each walk ends at the frame's end with <want> lines */
static int every_split(const uint8_t *in, size_t len, uint32_t want)
{
	for (size_t step = 0; step <= len; step++) {
		uint32_t lines;
		int r = walk(in, len, step, &lines);

		if (r != 1 || lines != want) {
			printf("# pieces of %zu: %d, %u lines (want %u)\n", step, r, lines, want);
			return 0;
		}
	}
	return 1;
}

static void walks(void)
{
	const nghttp3_nv req[] = {
#define NV(n, v) { (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, 0 }
		NV(":method", "GET"), NV(":scheme", "https"), NV(":authority", "127.0.0.1:8443"),
		NV(":path", "/?s=20k&t=7"), NV("user-agent", "hxload/0.1"), NV("accept", "*/*"),
		NV("x-a", "a\rb"), NV("x-b", "c\0d\ne"), NV("X-Up", "v"), NV("", "empty name"),
#undef NV
	};
	size_t nreq = sizeof(req) / sizeof(req[0]);
	nghttp3_qpack_encoder *e;
	nghttp3_buf pb, rb, eb;
	uint8_t sec[4096], in[4200];
	size_t n, len;
	uint32_t lines;

	nghttp3_buf_init(&pb), nghttp3_buf_init(&rb), nghttp3_buf_init(&eb);
	ok(!nghttp3_qpack_encoder_new(&e, 0, nghttp3_mem_default()) &&
	   !nghttp3_qpack_encoder_encode(e, &pb, &rb, &eb, 0, req, nreq), "nghttp3's encoder writes a request with CR, LF, NUL, an upper-case and an empty name");
	n = nghttp3_buf_len(&pb);
	memcpy(sec, pb.pos, n);
	memcpy(sec + n, rb.pos, nghttp3_buf_len(&rb));
	n += nghttp3_buf_len(&rb);
	len = frame(in, sec, n, 0);
	ok(every_split(in, len, (uint32_t)nreq), "its HEADERS frame (Huffman strings): %zu lines, whole or in pieces of any size", nreq);
	len = frame(in, sec, n, 1);
	ok(every_split(in, len, (uint32_t)nreq), "after a reserved frame too");
	memcpy(in + len, "\x00\x05hello", 7);
	ok(walk(in, len + 7, 0, &lines) == 1 && lines == nreq, "a DATA frame after it is not read");
	ok(walk(in, len - 1, 0, &lines) == 0, "a frame one byte short: more wanted");
	nghttp3_buf_free(&pb, nghttp3_mem_default()), nghttp3_buf_free(&rb, nghttp3_mem_default());
	nghttp3_buf_free(&eb, nghttp3_mem_default());
	nghttp3_qpack_encoder_del(e);

	{
		/* each representation (RFC 9204 4.5.2-4.5.6), integers over their prefixes */
		static const uint8_t forms[] = {
			0x05, 0x83,                 /* Required Insert Count 5, Base 5 - 3 - 1 */
			0xbf, 0x02,                 /* indexed, dynamic, index 63 + 2 */
			0x5f, 0x10, 0x02, 'a', 'b', /* name reference, static 15 + 16, value "ab" */
			0x27, 0x01, 'n', 'a', 'm', 'e', '-', 'x', 'y', 'z', 0x81, 0xff, /* literal name of 7 + 1, Huffman value */
			0x1f, 0x00,                 /* indexed post-base, 15 */
			0x07, 0x00, 0x00,           /* post-base name reference 7, empty value */
		};
		uint8_t big[400];

		len = frame(in, forms, sizeof(forms), 0);
		ok(every_split(in, len, 5), "the five forms, indexed (dynamic, post-base), literal (name reference, post-base, literal name): 5 lines");
		len = frame(in, forms, sizeof(forms) - 1, 0);
		ok(walk(in, len, 0, &lines) == -1, "a line past the frame's end: no section");
		ok(walk((const uint8_t *)"\x01\x00", 2, 0, &lines) == -1, "an empty HEADERS frame: no section");
		memset(big, 0, sizeof(big));
		/* value length 127 + (0x2d + 1 << 7) = 300 */
		big[2] = 0x5f, big[3] = 0x00, big[4] = 0x7f, big[5] = 0x80 | 0x2d, big[6] = 0x01;
		len = frame(in, big, 7 + 300, 0);
		ok(every_split(in, len, 1), "a 300-byte value, its length over two more bytes: 1 line");
		static const uint8_t huge[] = { 0x01, 0x0c, 0, 0, 0x3f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f };
		ok(walk(huge, sizeof(huge), 0, &lines) == -1, "an index over 62 bits: no section");
	}
}

/* <f> encoded as given, then with the literal-name bit cleared: the same
 * bytes (the memo of literal names answers what a lookup answers) */
static int as_looked_up(const struct hpk_field *f, size_t n)
{
	struct hpk_field g[8];
	uint8_t a[512], b[512];
	size_t la, lb;

	for (size_t i = 0; i < n; i++) {
		g[i] = f[i];
		g[i].flags &= (uint8_t)~HPK_LITERAL_NAME;
	}
	la = enc(a, f, n);
	lb = enc(b, g, n);
	if (la && la == lb && !memcmp(a, b, la))
		return 1;
	printf("# %zu fields from %.*s: %zu and %zu bytes\n", n, (int)f[0].nlen, f[0].name, la, lb);
	return 0;
}

/* literal names over and over, their values changing: each section is what a
 * lookup gives, and the head decodes to itself */
static void literal_names(nghttp3_qpack_decoder *dec)
{
#define L(n, v) { (const uint8_t *)(n), (const uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, HPK_LITERAL_NAME }
	static const char ct[] = "content-typeX";
	const struct hpk_field seq[][3] = {
		{ L(":status", "200"), L("content-type", "text/plain"), L("x-req", "size=85") },
		{ L(":status", "404"), L("content-type", "text/html; charset=utf-8"), L("x-req", "size=86") },
		{ L(":status", "299"), L("content-type", "x/y"), L("x-rsp", "a") },
		{ L(":status", "200"), L("content-type", "text/plain"), L("x-req", "size=85") },
		{ L("strict-transport-security", "max-age=31536000; includesubdomains; preload"), L("content-length", "0"),
		  L("content-length", "100") },
		{ L("strict-transport-security", "max-age=31536000; includesubdomains; preload"), L("age", "0"),
		  L("age", "1") },
	};
	struct hpk_field cut[2] = { { (const uint8_t *)ct, (const uint8_t *)"text/plain", 12, 10, HPK_LITERAL_NAME },
				    { (const uint8_t *)ct, (const uint8_t *)"text/plain", 13, 10, HPK_LITERAL_NAME } };
	struct hpk_field many[8], never[2] = { L(":status", "200"), L("content-type", "text/plain") };
	static const char *const names[] = { "age", "etag", "vary", "link", "date", "x-a", "x-b", "x-c", "x-d",
					     "range", "cookie", "accept", "origin", "x-e", "x-f", "x-g", "x-h",
					     "location", "alt-svc", "forwarded", "x-i", "x-j", "x-k", "x-l" };
	int good = 1;
	uint8_t out[512];
	size_t len;

	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++)
			good &= as_looked_up(seq[i], 3);
	ok(good, "literal names, their values changing, three rounds: each section as a lookup gives it");
	len = enc(out, seq[1], 3);
	ok(len && round_trip(dec, out, len, seq[1], 3) && out[2] == (0xc0 | 27) && out[3] == (0xc0 | 52),
	   "after text/plain, text/html; charset=utf-8 is entry 52 and 404 entry 27, both indexed");
	ok(as_looked_up(&cut[0], 1) && as_looked_up(&cut[1], 1) && as_looked_up(&cut[0], 1),
	   "one address with two lengths: content-type, then a name the table lacks, then content-type again");
	good = 1;
	for (int round = 0; round < 4; round++)
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i += 8) {
			for (size_t k = 0; k < 8; k++)
				many[k] = (struct hpk_field){ (const uint8_t *)names[i + k], (const uint8_t *)(round & 1 ? "0" : "*"),
							      strlen(names[i + k]), 1, HPK_LITERAL_NAME };
			good &= as_looked_up(many, 8);
		}
	ok(good, "24 literal names, four rounds: each section as a lookup gives it");
	{
		/* WHY 99 table names and 100 others, each at its own address: more
		 * names than the memo's 64 slots, so slots are taken over */
		static char other[100][8];
		const char *tn, *tv;

		good = 1;
		for (int i = 0; i < 100; i++)
			snprintf(other[i], sizeof(other[i]), "x-%03d", i);
		for (int round = 0; round < 4; round++)
			for (unsigned i = 0; i + 4 <= 99; i += 4) {
				for (unsigned k = 0; k < 4; k++) {
					qpk_static_entry(i + k, &tn, &tv);
					many[2 * k] = (struct hpk_field){ (const uint8_t *)tn, (const uint8_t *)(round & 1 ? "zz" : tv),
									  strlen(tn), round & 1 ? 2 : strlen(tv), HPK_LITERAL_NAME };
					many[2 * k + 1] = (struct hpk_field){ (const uint8_t *)other[i + k], (const uint8_t *)"v",
									      5, 1, HPK_LITERAL_NAME };
				}
				good &= as_looked_up(many, 8);
			}
		ok(good, "199 literal names over the 64 slots, table values and others in turn: each section as a lookup gives it");
	}
	as_looked_up(never, 2);
	never[0].flags |= HPK_NO_INDEX;
	never[1].flags |= HPK_NO_INDEX;
	len = enc(out, never, 2);
	ok(len && out[2] == (0x50 | 0x20 | 0x0f) && round_trip(dec, out, len, never, 2),
	   "a literal name the memo has whole, never indexed: a literal with the N bit");
#undef L
}

int main(void)
{
	struct hpk_field head[] = {
		F(":status", "200"), F("content-length", "100"), F("content-type", "text/plain"),
		F("x-req", "size=112, time=0.029 ms"), F("x-rsp", "id=vm, code=200, size=100, time=0 ms"),
		F("server-timing", "wait;dur=0, gen;dur=0.005"), F("cache-control", "no-cache"),
	};
	nghttp3_qpack_decoder *dec;
	uint8_t out[4096];
	size_t len;
	int bad = 0;

	ok(nghttp3_qpack_decoder_new(&dec, 0, 0, nghttp3_mem_default()) == 0, "a decoder without a dynamic table");

	/* every static entry, whole: one indexed line, which nghttp3 decodes to the same field */
	for (unsigned i = 0; i < 99; i++) {
		const char *n, *v;
		struct hpk_field f;

		qpk_static_entry(i, &n, &v);
		f = (struct hpk_field){ (const uint8_t *)n, (const uint8_t *)v, strlen(n), strlen(v), 0 };
		len = enc(out, &f, 1);
		if (len != (i < 63 ? 3u : 4u) || !round_trip(dec, out, len, &f, 1)) {
			printf("# static entry %u (%s: %s): %zu bytes\n", i, n, v, len);
			bad++;
		}
	}
	ok(!bad, "each of the 99 static entries is one indexed line that decodes to itself");
	ok(qpk_static_entry(99, &(const char *){ 0 }, &(const char *){ 0 }) < 0, "the table ends at 98");

	len = enc(out, head, sizeof(head) / sizeof(head[0]));
	ok(len && round_trip(dec, out, len, head, sizeof(head) / sizeof(head[0])), "a response head comes back whole");
	ok(out[0] == 0 && out[1] == 0, "its prefix: no dynamic table (0, 0)");
	ok(out[2] == (0xc0 | 25), ":status 200 is static entry 25, indexed");
	ok(out[3] == (0x50 | 4) && out[4] == 3 && !memcmp(out + 5, "100", 3),
	   "content-length refers to entry 4's name, its value a raw literal");
	ok(out[8] == (0xc0 | 53), "content-type: text/plain is static entry 53, indexed");

	{
		struct hpk_field lit[] = { F("x-req", "a") }, nv[] = { F("x-secret", "s"), F("set-cookie", "k=v") };

		len = enc(out, lit, 1);
		ok(len == 2 + 1 + 5 + 1 + 1 && out[2] == (0x20 | 5) && !memcmp(out + 3, "x-req", 5) && out[8] == 1,
		   "a name the table lacks is a literal: 3-bit length, raw bytes, no H bit");
		nv[0].flags = nv[1].flags = HPK_NO_INDEX;
		len = enc(out, nv, 2);
		ok(len && round_trip(dec, out, len, nv, 2), "HPK_NO_INDEX comes back as never-index, literal name and name reference");
		ok(out[2] == (0x20 | 0x10 | 7) && out[3] == 1, "the N bit of a literal name, its length past the 3-bit prefix");
	}
	{
		struct hpk_field st[] = { F(":status", "200") };

		st[0].flags = HPK_NO_INDEX;
		len = enc(out, st, 1);
		ok(len == 2 + 2 + 1 + 3 && out[2] == (0x50 | 0x20 | 0x0f) && out[3] == 24 - 15 && round_trip(dec, out, len, st, 1),
		   "a never-indexed field the table has whole is a literal with the N bit, not an indexed line (the name of entry 24)");
	}
	{
		static uint8_t big[60000];
		struct hpk_field f[] = { F("x-pad", ""), F("server", ""), F("", "") };
		char name[250];

		memset(big, 'x', sizeof(big));
		memset(name, 'n', sizeof(name));
		f[0].value = big, f[0].vlen = sizeof(big);
		f[1].value = big, f[1].vlen = 127;
		f[2] = (struct hpk_field){ (const uint8_t *)name, big, sizeof(name), 0, 0 };
		{
			uint8_t *o = malloc(qpk_bound(f, 3));

			len = o ? qpk_encode(o, f, 3) : 0;
			ok(len && len <= qpk_bound(f, 3) && round_trip(dec, o, len, f, 3),
			   "a 60,000-byte value (nghttp3 takes 64 KiB at most), a 127-byte one and a 250-byte name (its limit 256) with an empty value come back");
			free(o);
		}
	}
	literal_names(dec);
	nghttp3_qpack_decoder_del(dec);
	walks();
	return done_testing();
}

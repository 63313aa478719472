/* Unit tests of the QPACK field section decoder: our encoder's heads and nghttp3's (every literal Huffman-coded, every byte value) decoded back, every truncation refused or short, the dynamic table's forms refused, integers past 62 bits refused. */
#include <nghttp3/nghttp3.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "qpack.h"
#include "qpack_dec.h"
#include "tap.h"

#define F(n, v) { (const uint8_t *)(n), (const uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, 0 }

/* the lines decoded, copied out */
struct got {
	size_t n;
	int sidx[32];
	char name[32][64], value[32][300];
};

static void keep(void *arg, const struct qpk_line *l)
{
	struct got *g = arg;

	if (g->n < 32 && l->nlen < 64 && l->vlen < 300) {
		g->sidx[g->n] = l->sidx;
		memcpy(g->name[g->n], l->name, l->nlen);
		g->name[g->n][l->nlen] = 0;
		memcpy(g->value[g->n], l->value, l->vlen);
		g->value[g->n][l->vlen] = 0;
	}
	g->n++;
}

static int decode(const uint8_t *p, size_t n, struct got *g)
{
	uint8_t scr[4096];

	memset(g, 0, sizeof(*g));
	return qpk_decode(p, n, scr, sizeof(scr), keep, g);
}

/* nghttp3's encoder (no dynamic table): the section of <nv> into <out>, its length */
static size_t ng_encode(uint8_t *out, const nghttp3_nv *nv, size_t n)
{
	nghttp3_qpack_encoder *e;
	nghttp3_buf pb, rb, eb;
	size_t len = 0;

	nghttp3_buf_init(&pb), nghttp3_buf_init(&rb), nghttp3_buf_init(&eb);
	if (!nghttp3_qpack_encoder_new(&e, 0, nghttp3_mem_default()) &&
	    !nghttp3_qpack_encoder_encode(e, &pb, &rb, &eb, 0, nv, n)) {
		len = nghttp3_buf_len(&pb);
		memcpy(out, pb.pos, len);
		memcpy(out + len, rb.pos, nghttp3_buf_len(&rb));
		len += nghttp3_buf_len(&rb);
		nghttp3_qpack_encoder_del(e);
	}
	nghttp3_buf_free(&pb, nghttp3_mem_default()), nghttp3_buf_free(&rb, nghttp3_mem_default());
	nghttp3_buf_free(&eb, nghttp3_mem_default());
	return len;
}

/* every byte value amid 'a's (so that nghttp3 finds Huffman shorter) */
static void every_symbol(void)
{
	int bad = 0;

	for (int s = 0; s < 256; s++) {
		char v[32];
		nghttp3_nv nv[1] = { { (uint8_t *)"x-sym", (uint8_t *)v, 5, 25, 0 } };
		uint8_t sec[128];
		struct got g;
		size_t len;

		memset(v, 'a', 25);
		v[20] = (char)s;
		len = ng_encode(sec, nv, 1);
		if (!len || !(sec[2] & 0x08) || !(sec[2 + 1 + 4] & 0x80) || decode(sec, len, &g) || g.n != 1 ||
		    strcmp(g.name[0], "x-sym") || memcmp(g.value[0], v, 25) || g.sidx[0] != -1) {
			printf("# byte %d: %zu bytes, %zu lines\n", s, len, g.n);
			bad++;
		}
	}
	ok(!bad, "each of the 256 byte values in a Huffman-coded value of nghttp3's, name Huffman-coded too: decoded back");
}

/* our encoder's head (static references, raw literals) and nghttp3's */
static void heads(void)
{
	struct hpk_field head[] = {
		F(":status", "200"), F("content-length", "100"), F("content-type", "text/plain"),
		F("x-req", "size=112, time=0.029 ms"), F("x-rsp", "id=vm, code=200, size=100, time=0 ms"),
		F(":status", "429"), F("cache-control", "no-cache"), F("x-empty", ""),
	};
	size_t n = sizeof(head) / sizeof(head[0]), len;
	uint8_t sec[1024];
	nghttp3_nv nv[8];
	struct got g;
	int same = 1;

	len = qpk_encode(sec, head, n);
	ok(!decode(sec, len, &g) && g.n == n, "our encoder's head: %zu lines", n);
	for (size_t i = 0; i < n && i < g.n; i++)
		same &= !strcmp(g.name[i], (const char *)head[i].name) && !strcmp(g.value[i], (const char *)head[i].value);
	ok(same, "... each field as it went in");
	ok(g.sidx[0] == 25 && g.sidx[5] == 24 && g.sidx[3] == -1, ":status 200 indexed (25), :status 429 by name (24), x-req literal");
	for (size_t i = 0; i < n; i++)
		nv[i] = (nghttp3_nv){ (uint8_t *)head[i].name, (uint8_t *)head[i].value, head[i].nlen, head[i].vlen, 0 };
	len = ng_encode(sec, nv, n);
	same = !decode(sec, len, &g) && g.n == n;
	for (size_t i = 0; i < n && i < g.n; i++)
		same &= !strcmp(g.name[i], (const char *)head[i].name) && !strcmp(g.value[i], (const char *)head[i].value);
	ok(same, "nghttp3's encoding of it (Huffman): each field back");

	/* every truncation: refused, or whole lines only (a cut between lines) */
	same = 1;
	for (size_t cut = 0; cut < len; cut++) {
		int rv = decode(sec, cut, &g);

		same &= cut < 2 ? rv == -1 : (rv == -1 || (rv == 0 && g.n < n));
	}
	ok(same, "each of its %zu truncations: refused, or fewer lines", len);
	{
		uint8_t small[8];

		ok(qpk_decode(sec, len, small, sizeof(small), keep, &g) == -1, "too little scratch for its Huffman strings: refused");
	}
}

static void refused(void)
{
	static const struct {
		const char *what;
		uint8_t b[16];
		size_t n;
		int rv;
	} rows[] = {
		{ "Required Insert Count 1", { 0x01, 0x00, 0xd9 }, 3, -2 },
		{ "an indexed line of the dynamic table", { 0x00, 0x00, 0x80 }, 3, -2 },
		{ "a name reference to the dynamic table", { 0x00, 0x00, 0x40, 0x00 }, 4, -2 },
		{ "an indexed post-base line", { 0x00, 0x00, 0x10 }, 3, -2 },
		{ "a post-base name reference", { 0x00, 0x00, 0x00, 0x00 }, 4, -2 },
		{ "static index 99 (past the table)", { 0x00, 0x00, 0xff, 0x24 }, 4, -1 },
		{ "an index over 62 bits", { 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f }, 13, -1 },
		{ "an index whose bytes never end", { 0x00, 0x00, 0xff, 0xff, 0xff }, 5, -1 },
		{ "a value longer than the section", { 0x00, 0x00, 0x5f, 0x0a, 0x05, 'a', 'b' }, 7, -1 },
		{ "a literal name cut", { 0x00, 0x00, 0x23, 'a', 'b' }, 5, -1 },
		{ "a bad Huffman value (padding 0)", { 0x00, 0x00, 0x5f, 0x0a, 0x81, 0x18 }, 6, -1 },
		{ "a one-byte section", { 0x00 }, 1, -1 },
	};
	struct got g;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		is_int(decode(rows[i].b, rows[i].n, &g), rows[i].rv, "refused: %s", rows[i].what);
	ok(!decode((const uint8_t *)"\x00\x00", 2, &g) && g.n == 0, "an empty section (prefix only): no lines");
	ok(!decode((const uint8_t *)"\x00\x00\x5f\x10\x81\x1f", 6, &g) && g.n == 1 && !strcmp(g.name[0], "accept-encoding") &&
	   g.sidx[0] == 31 && !strcmp(g.value[0], "a"), "a name reference (accept-encoding, 15 + 16 over two bytes) with a Huffman value");
}

int main(void)
{
	every_symbol();
	heads();
	refused();
	printf("1..%d\n", tap_n);
	return tap_fail != 0;
}

/* Unit tests of the HPACK decoder: nghttp2's deflater (Huffman, indexing, evictions, size updates) decoded back block after block, our encoder's heads, RFC 7541's examples, the malformed forms refused, the table held to what entered. */
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "hpack.h"
#include "hpack_dec.h"
#include "tap.h"

#define F(n, v) { (const uint8_t *)(n), (const uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, 0 }

/* the fields decoded, copied out */
struct got {
	size_t n;
	char name[64][64], value[64][300];
};

static void keep(void *arg, const uint8_t *n, size_t nl, const uint8_t *v, size_t vl)
{
	struct got *g = arg;

	if (g->n < 64 && nl < 64 && vl < 300) {
		memcpy(g->name[g->n], n, nl);
		g->name[g->n][nl] = 0;
		memcpy(g->value[g->n], v, vl);
		g->value[g->n][vl] = 0;
	}
	g->n++;
}

static int decode(struct hpd *d, const uint8_t *p, size_t n, struct got *g)
{
	uint8_t scr[8192];

	memset(g, 0, sizeof(*g));
	return hpd_decode(d, p, n, scr, sizeof(scr), keep, g);
}

static int same(const struct got *g, const nghttp2_nv *nv, size_t n)
{
	if (g->n != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strlen(g->name[i]) != nv[i].namelen || memcmp(g->name[i], nv[i].name, nv[i].namelen) ||
		    strlen(g->value[i]) != nv[i].valuelen || memcmp(g->value[i], nv[i].value, nv[i].valuelen))
			return 0;
	return 1;
}

/* responses as a server's deflater writes them, a table of <size>: each
 * block decoded back, and our table's size always the deflater's */
static void deflater(size_t size, int rounds)
{
	nghttp2_hd_deflater *df;
	struct hpd d;
	int bad = 0, sizes = 0;
	char val[8][300];

	nghttp2_hd_deflate_new(&df, size);
	hpd_init(&d, 4096);
	srand(7);
	for (int r = 0; r < rounds; r++) {
		nghttp2_nv nv[8];
		uint8_t blk[4096];
		struct got g;
		size_t n = 0;
		ssize_t len;

		snprintf(val[0], sizeof(val[0]), "%d", r % 3 ? 200 : 404 + r % 7);
		snprintf(val[1], sizeof(val[1]), "%d", rand() % 100000);
		snprintf(val[2], sizeof(val[2]), "id=vm, code=200, size=%d, time=%d.%03d ms", rand() % 1000, r, rand() % 1000);
		for (int k = 0; k < 40 + rand() % 200; k++)
			val[3][k] = (char)(' ' + rand() % 95), val[3][k + 1] = 0;
		snprintf(val[4], sizeof(val[4]), "%u", (unsigned)r * 2654435761u);
#define NV(a, b) nv[n++] = (nghttp2_nv){ (uint8_t *)(a), (uint8_t *)(b), strlen(a), strlen(b), NGHTTP2_NV_FLAG_NONE }
		NV(":status", val[0]);
		NV("content-length", val[1]);
		NV("content-type", "text/plain");
		NV("x-rsp", val[2]);
		if (r % 2)
			NV("x-long", val[3]);
		if (r % 5 == 0)
			nv[n] = (nghttp2_nv){ (uint8_t *)"set-cookie", (uint8_t *)val[4], 10, strlen(val[4]), NGHTTP2_NV_FLAG_NO_INDEX }, n++;
		NV("server", "hxterm");
#undef NV
		if (r == rounds / 2)
			nghttp2_hd_deflate_change_table_size(df, size / 2); /* a size update at the next block's start */
		len = nghttp2_hd_deflate_hd(df, blk, sizeof(blk), nv, n);
		if (len < 0 || decode(&d, blk, (size_t)len, &g) || !same(&g, nv, n)) {
			if (!bad++)
				printf("# round %d: %zd bytes, %zu fields of %zu\n", r, len, g.n, n);
		}
		sizes += d.used == nghttp2_hd_deflate_get_dynamic_table_size(df);
	}
	ok(!bad, "%d blocks of nghttp2's deflater (table %zu, then %zu): each field back", rounds, size, size / 2);
	is_int(sizes, rounds, "... our table's size the deflater's after each");
	ok(d.used <= d.max && d.len <= d.size && d.size <= 4096 + 4 * 128,
	   "... our table at most its size (%u of %u; %u bytes held)", d.used, d.max, d.size);
	hpd_free(&d);
	nghttp2_hd_deflate_del(df);
}

/* RFC 7541 C.4: three requests, Huffman-coded, in one table */
static void rfc_c4(void)
{
	static const uint8_t b1[] = { 0x82, 0x86, 0x84, 0x41, 0x8c, 0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab, 0x90, 0xf4, 0xff };
	static const uint8_t b2[] = { 0x82, 0x86, 0x84, 0xbe, 0x58, 0x86, 0xa8, 0xeb, 0x10, 0x64, 0x9c, 0xbf };
	static const uint8_t b3[] = { 0x82, 0x87, 0x85, 0xbf, 0x40, 0x88, 0x25, 0xa8, 0x49, 0xe9, 0x5b, 0xa9, 0x7d, 0x7f,
				      0x89, 0x25, 0xa8, 0x49, 0xe9, 0x5b, 0xb8, 0xe8, 0xb4, 0xbf };
	struct hpd d;
	struct got g;

	hpd_init(&d, 4096);
	ok(!decode(&d, b1, sizeof(b1), &g) && g.n == 4 && !strcmp(g.name[3], ":authority") &&
	   !strcmp(g.value[3], "www.example.com") && !strcmp(g.value[0], "GET"), "C.4.1: 4 fields, :authority www.example.com");
	is_int(d.used, 57, "... table size 57");
	ok(!decode(&d, b2, sizeof(b2), &g) && g.n == 5 && !strcmp(g.value[3], "www.example.com") &&
	   !strcmp(g.name[4], "cache-control") && !strcmp(g.value[4], "no-cache"), "C.4.2: :authority from the table, cache-control no-cache");
	is_int(d.used, 110, "... table size 110");
	ok(!decode(&d, b3, sizeof(b3), &g) && g.n == 5 && !strcmp(g.value[1], "https") && !strcmp(g.value[2], "/index.html") &&
	   !strcmp(g.value[3], "www.example.com") && !strcmp(g.name[4], "custom-key") && !strcmp(g.value[4], "custom-value"),
	   "C.4.3: custom-key custom-value, the table's first entry now its third");
	is_int(d.used, 164, "... table size 164");
	hpd_free(&d);
}

/* our own encoder's heads, its dynamic entries and size updates */
static void ours(void)
{
	struct hpk_field head[] = {
		F(":status", "200"), F("content-length", "100"), F("content-type", "text/plain"),
		F("x-req", "size=112, time=0.029 ms"), F("x-rsp", "id=vm, code=200, size=100, time=0 ms"),
	};
	struct hpk_enc e;
	struct hpd d;
	int good = 1;

	hpk_init(&e, 4096);
	hpd_init(&d, 1024);
	hpk_table_size(&e, 1024);
	for (int r = 0; r < 50; r++) {
		uint8_t blk[1024];
		char v[64];
		struct got g;
		size_t len;

		snprintf(v, sizeof(v), "id=vm, code=200, size=100, time=%d ms", r);
		head[4].value = (const uint8_t *)v, head[4].vlen = strlen(v);
		len = hpk_encode(&e, blk, head, ARRAY_SIZE(head));
		good &= !decode(&d, blk, len, &g) && g.n == ARRAY_SIZE(head) && !strcmp(g.value[4], v) &&
			!strcmp(g.name[3], "x-req") && !strcmp(g.value[2], "text/plain");
	}
	ok(good, "50 heads of our encoder (its table 1024): each field back");
	hpd_free(&d);
}

static void refused(void)
{
	static const struct {
		const char *what;
		uint8_t b[8];
		size_t n;
	} bad[] = {
		{ "index 0", { 0x80 }, 1 },
		{ "an index past the static table, none dynamic", { 0xbe }, 1 },
		{ "a size update past our table", { 0x3f, 0xe2, 0x1f }, 3 }, /* 4097 */
		{ "a size update after a field", { 0x82, 0x20 }, 2 },
		{ "a truncated literal", { 0x04, 0x05, 'a', 'b' }, 4 },
		{ "a truncated integer", { 0xff }, 1 },
		{ "a Huffman string with EOS", { 0x04, 0x84, 0xff, 0xff, 0xff, 0xff }, 6 },
		{ "a name by index 0 literal, then nothing", { 0x40 }, 1 },
	};
	struct hpd d;
	struct got g;
	int good = 1;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		hpd_init(&d, 4096);
		if (decode(&d, bad[i].b, bad[i].n, &g) != -1) {
			printf("# not refused: %s\n", bad[i].what);
			good = 0;
		}
		hpd_free(&d);
	}
	ok(good, "%zu malformed blocks refused (index 0 and past the tables, size updates past ours or late, truncations, EOS)",
	   ARRAY_SIZE(bad));

	/* a size update to 0 empties the table; an entry bigger than the table empties it too */
	hpd_init(&d, 4096);
	{
		static const uint8_t add[] = { 0x40, 0x01, 'a', 0x01, 'b' }, zero[] = { 0x20, 0x82 };
		uint8_t big[300] = { 0x40, 0x01, 'a', 0x7f, 0x81, 0x01 }; /* a value of 256 bytes */

		ok(!decode(&d, add, sizeof(add), &g) && d.n == 1 && d.used == 34, "an entry in: 34 bytes");
		ok(!decode(&d, zero, sizeof(zero), &g) && d.n == 0 && d.used == 0 && d.max == 0, "a size update to 0: the table empty");
		memset(big + 6, 'v', 256);
		ok(!decode(&d, (const uint8_t *)"\x3f\xe1\x01", 3, &g) && d.max == 256, "... back to 256");
		ok(!decode(&d, add, sizeof(add), &g) && d.n == 1, "... an entry in");
		ok(!decode(&d, big, 6 + 256, &g) && g.n == 1 && strlen(g.value[0]) == 256 && d.n == 0 && d.used == 0,
		   "an entry bigger than the table: handed on, the table emptied (4.4)");
	}
	hpd_free(&d);
}

int main(void)
{
	deflater(4096, 400);
	deflater(256, 400);
	rfc_c4();
	ours();
	refused();
	return done_testing();
}

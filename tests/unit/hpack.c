/* Unit tests of the HPACK encoder, each block decoded by nghttp2's decoder: the fields come back, repeats shrink, the table follows size changes. */
#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>

#include "hpack.h"
#include "tap.h"

#define F(n, v) { (const uint8_t *)(n), (const uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, 0 }

/* decodes <len> bytes; 1 when the fields are <want>'s, in order */
static int round_trip(nghttp2_hd_inflater *inf, const uint8_t *in, size_t len, const struct hpk_field *want, size_t n)
{
	size_t got = 0;

	for (;;) {
		nghttp2_nv nv;
		int fl = 0;
		ssize_t r = nghttp2_hd_inflate_hd2(inf, &nv, &fl, in, len, 1);

		if (r < 0)
			return printf("# decode error %zd\n", r), 0;
		in += r;
		len -= (size_t)r;
		if (fl & NGHTTP2_HD_INFLATE_EMIT) {
			if (got >= n || nv.namelen != want[got].nlen || nv.valuelen != want[got].vlen ||
			    memcmp(nv.name, want[got].name, nv.namelen) || memcmp(nv.value, want[got].value, nv.valuelen))
				return printf("# field %zu differs: %.*s: %.*s\n", got, (int)nv.namelen, nv.name,
					      (int)nv.valuelen, nv.value), 0;
			got++;
		}
		if (fl & NGHTTP2_HD_INFLATE_FINAL) {
			nghttp2_hd_inflate_end_headers(inf);
			break;
		}
		if (!(fl & NGHTTP2_HD_INFLATE_EMIT) && !len)
			break;
	}
	return got == n;
}

static size_t enc(struct hpk_enc *e, uint8_t *out, const struct hpk_field *f, size_t n)
{
	size_t len = hpk_encode(e, out, f, n);

	if (len > hpk_bound(f, n))
		printf("# over the bound: %zu\n", len);
	return len;
}

/* literal names (HPK_LITERAL_NAME): encoder <a> takes them flagged, <b> the
 * same fields unflagged; over many blocks, with a small table that evicts,
 * both write the same bytes and nghttp2 reads them back */
static void literal_names(void)
{
	static char names[24][8];
	static const char ct[] = "content-typeX";
	struct hpk_enc a, b;
	nghttp2_hd_inflater *inf;
	uint8_t oa[1024], ob[1024];
	int same = 1, back = 1;

	for (int i = 0; i < 24; i++)
		snprintf(names[i], sizeof(names[i]), "x-%02d", i);
	for (int cap = 0; cap < 2; cap++) {
		hpk_init(&a, cap ? 4096 : 200);
		hpk_init(&b, cap ? 4096 : 200);
		nghttp2_hd_inflate_new(&inf);
		nghttp2_hd_inflate_change_table_size(inf, cap ? 4096 : 200);
		for (int round = 0; round < 60; round++) {
			struct hpk_field f[6], g[6];
			char v[16];
			size_t la, lb;

			snprintf(v, sizeof(v), "v%d", round % 3);
			f[0] = (struct hpk_field){ (const uint8_t *)":status", (const uint8_t *)"200", 7, 3, HPK_LITERAL_NAME };
			f[1] = (struct hpk_field){ (const uint8_t *)ct, (const uint8_t *)"text/plain", (round & 1) ? 13 : 12, 10,
						   HPK_LITERAL_NAME };
			for (int k = 2; k < 6; k++)
				f[k] = (struct hpk_field){ (const uint8_t *)names[(round * 5 + k) % 24], (const uint8_t *)v, 4,
							   strlen(v), HPK_LITERAL_NAME };
			for (int k = 0; k < 6; k++) {
				g[k] = f[k];
				g[k].flags = 0;
			}
			la = enc(&a, oa, f, 6);
			lb = enc(&b, ob, g, 6);
			if (la != lb || memcmp(oa, ob, la)) {
				printf("# table %d, block %d: %zu and %zu bytes\n", cap ? 4096 : 200, round, la, lb);
				same = 0;
			}
			back &= round_trip(inf, oa, la, f, 6);
		}
		nghttp2_hd_inflate_del(inf);
	}
	ok(same, "literal names, 60 blocks over 24 of them and one address with two lengths, tables of 200 and 4096 bytes: the bytes of the same fields unflagged");
	ok(back, "and nghttp2 reads each block back");
}

int main(void)
{
	struct hpk_field head[] = {
		F(":status", "200"), F("content-length", "100"), F("content-type", "text/plain"),
		F("x-req", "size=112, time=0.029 ms"), F("x-rsp", "id=vm, code=200, size=100, time=0 ms"),
		F("server-timing", "wait;dur=0, gen;dur=0.005"),
	};
	struct hpk_field head2[] = {
		F(":status", "503"), F("content-length", "100"), F("content-type", "text/plain"),
		F("x-req", "size=113, time=0.031 ms"), F("x-rsp", "id=vm, code=503, size=100, time=1 ms"),
		F("server-timing", "wait;dur=1, gen;dur=0.007"), F("cache-control", "no-cache"),
	};
	nghttp2_hd_inflater *inf;
	struct hpk_enc e;
	uint8_t out[4096], big[300];
	size_t l1, l2, l3, l0;

	ok(nghttp2_hd_inflate_new(&inf) == 0, "a decoder");
	hpk_init(&e, 1024);
	l1 = enc(&e, out, head, 6);
	ok(round_trip(inf, out, l1, head, 6), "a head comes back whole (%zu bytes)", l1);
	ok(out[0] == 0x3f, "the first block starts with a size update (1024 < 4096)");
	l2 = enc(&e, out, head, 6);
	ok(round_trip(inf, out, l2, head, 6), "the same head again");
	ok(l2 == 6, "... is 6 bytes, each field indexed (%zu)", l2);
	l3 = enc(&e, out, head2, 7);
	ok(round_trip(inf, out, l3, head2, 7), "other values: names from the table, values literal (%zu bytes)", l3);
	ok(out[0] == 0x08 && out[1] == 3 && !memcmp(out + 2, "503", 3), ":status 503: a literal with the static name");

	/* the decoder's table shrinks to 0, then grows: the entries are gone */
	hpk_table_size(&e, 0);
	hpk_table_size(&e, 4096);
	l2 = enc(&e, out, head, 6);
	ok(out[0] == 0x20 && out[1] == 0x3f, "0 then 1024: both updates, the smaller first");
	ok(nghttp2_hd_inflate_change_table_size(inf, 4096) == 0 && round_trip(inf, out, l2, head, 6),
	   "after the table was emptied, the head comes back");
	ok(l2 > 60, "... its fields entered again (%zu bytes)", l2);

	/* no table at all: literals every time, the same length */
	hpk_init(&e, 0);
	nghttp2_hd_inflate_del(inf);
	nghttp2_hd_inflate_new(&inf);
	l0 = enc(&e, out, head, 6);
	ok(round_trip(inf, out, l0, head, 6), "table 0: the head comes back");
	l1 = enc(&e, out, head, 6);
	ok(round_trip(inf, out, l1, head, 6) && l1 + 1 == l0, "table 0: every block literal (%zu; the first %zu, with its 1-byte update)", l1, l0);

	/* a field too long to enter, and one never to be indexed */
	memset(big, 'p', sizeof(big));
	{
		struct hpk_field f[] = { { (const uint8_t *)"x-pad", big, 5, sizeof(big), 0 },
					 { (const uint8_t *)"set-cookie", (const uint8_t *)"a=b", 10, 3, HPK_NO_INDEX } };

		hpk_init(&e, 4096);
		l1 = enc(&e, out, f, 2);
		ok(round_trip(inf, out, l1, f, 2), "a 300-byte value and a never-indexed field come back");
		l2 = enc(&e, out, f, 2);
		ok(l2 == l1 && e.seq == 0, "... and neither entered the table (%zu, %zu)", l1, l2);
		ok((out[l2 - 5 - 1] & 0xf0) == 0x10, "set-cookie goes never-indexed");
	}

	/* many names: the oldest entries make room, the decoder agrees */
	hpk_init(&e, 256);
	nghttp2_hd_inflate_del(inf);
	nghttp2_hd_inflate_new(&inf);
	nghttp2_hd_inflate_change_table_size(inf, 256);
	{
		int all = 1;

		for (int round = 0; round < 40; round++) {
			char name[16], val[16];
			struct hpk_field f[3];

			for (int i = 0; i < 3; i++) {
				snprintf(name, sizeof(name), "x-h%d", (round * 3 + i) % 11);
				snprintf(val, sizeof(val), "v%d", round % 4);
				f[i] = (struct hpk_field){ (const uint8_t *)strdup(name), (const uint8_t *)strdup(val),
							   strlen(name), strlen(val), 0 };
			}
			l1 = enc(&e, out, f, 3);
			all &= round_trip(inf, out, l1, f, 3);
			all &= e.used <= e.max;
			for (int i = 0; i < 3; i++)
				free((void *)f[i].name), free((void *)f[i].value);
		}
		ok(all, "40 blocks over 11 names in a 256-byte table: every one decodes");
	}
	nghttp2_hd_inflate_del(inf);
	literal_names();
	return done_testing();
}

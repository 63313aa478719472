/* libFuzzer driver: the input as a run of HPACK blocks (a length byte before each) through core/hpack_dec beside nghttp2's inflater, one table each across the blocks: what nghttp2 reads, ours reads alike, field by field, and our table's size stays its own. */
#include <nghttp2/nghttp2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hpack_dec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* what a block handed on, folded: a hash of each field, a count */
struct seen {
	uint64_t h;
	size_t n;
};

static void mix(struct seen *s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		s->h = (s->h ^ p[i]) * 0x100000001b3ull;
}

static void on_field(void *arg, const uint8_t *n, size_t nl, const uint8_t *v, size_t vl)
{
	struct seen *s = arg;

	mix(s, n, nl);
	mix(s, (const uint8_t *)"\0", 1);
	mix(s, v, vl);
	mix(s, (const uint8_t *)"\n", 1);
	s->n++;
}

/* nghttp2's fields of block <p>, folded: 0, or -1 when it refuses it */
static int ng_block(nghttp2_hd_inflater *inf, const uint8_t *p, size_t n, struct seen *s)
{
	for (;;) {
		nghttp2_nv nv;
		int fl = 0;
		ssize_t r = nghttp2_hd_inflate_hd2(inf, &nv, &fl, p, n, 1);

		if (r < 0)
			return -1;
		p += r;
		n -= (size_t)r;
		if (fl & NGHTTP2_HD_INFLATE_EMIT)
			on_field(s, nv.name, nv.namelen, nv.value, nv.valuelen);
		if (fl & NGHTTP2_HD_INFLATE_FINAL) {
			nghttp2_hd_inflate_end_headers(inf);
			return 0;
		}
		if (!(fl & NGHTTP2_HD_INFLATE_EMIT) && !n)
			return -1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	nghttp2_hd_inflater *inf;
	struct hpd d;

	if (nghttp2_hd_inflate_new(&inf))
		return 0;
	hpd_init(&d, 4096);
	while (size) {
		size_t bl = data[0] < size - 1 ? data[0] : size - 1;
		const uint8_t *b = data + 1;
		struct seen a = { 0xcbf29ce484222325ull, 0 }, o = a;
		uint8_t *scr = malloc(HPD_SCRATCH(bl));

		data += 1 + bl;
		size -= 1 + bl;
		/* WHY one way: after a block nghttp2 refuses the two tables may differ */
		if (!scr || ng_block(inf, b, bl, &a) < 0) {
			free(scr);
			break;
		}
		if (hpd_decode(&d, b, bl, scr, HPD_SCRATCH(bl), on_field, &o) || o.h != a.h || o.n != a.n)
			abort(); /* a block nghttp2 read, ours read otherwise */
		if (d.used > d.max || d.len > d.size)
			abort(); /* our table past its own bounds */
		free(scr);
	}
	hpd_free(&d);
	nghttp2_hd_inflate_del(inf);
	return 0;
}

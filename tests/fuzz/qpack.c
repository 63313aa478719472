/* libFuzzer driver: field lists through our QPACK encoder and back through nghttp3's decoder (every field returns, in order, with its never-index flag, within the bound); the input as a request stream for qpk_walk (the same walk whatever the pieces), as a response stream for net/h3read (the same lines and bytes whatever the pieces), and as a section for core/qpack_dec beside nghttp3's decoder (what nghttp3 reads, ours reads alike). */
#include <nghttp3/nghttp3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "h3read.h"
#include "qpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FIELDS 64

/* literal names for bit 1 (HPK_LITERAL_NAME): the encoder keeps their
 * lookups by address, so a literal's bytes never change */
static const char *const lits[] = { ":status", "content-type", "content-length", "x-req", "x-rsp",
				    "server-timing", "age", "cache-control", "x-a", "" };

/* the input as fields: a flags byte (bit 0: never index; bit 1: the name is
 * literal number <name length byte> % 10, cut to its first <flags byte >> 2>
 * bytes when that is shorter, the name bytes still skipped), a name length
 * byte, the name, a two-byte value length, the value; short tails dropped */
static size_t fields_of(const uint8_t *d, size_t n, struct hpk_field *f)
{
	size_t k = 0;

	while (k < FIELDS && n >= 2) {
		size_t nl = d[1], vl;

		if (n < 2 + nl + 2)
			break;
		vl = (size_t)d[2 + nl] << 8 | d[3 + nl];
		if (n < 4 + nl + vl)
			break;
		f[k] = (struct hpk_field){ d + 2, d + 4 + nl, nl, vl, (uint8_t)(d[0] & 1 ? HPK_NO_INDEX : 0) };
		if (d[0] & 2) {
			const char *l = lits[d[1] % 10];
			size_t cut = d[0] >> 2;

			f[k].name = (const uint8_t *)l;
			f[k].nlen = cut && cut < strlen(l) ? cut : strlen(l);
			f[k].flags |= HPK_LITERAL_NAME;
		}
		k++;
		d += 4 + nl + vl;
		n -= 4 + nl + vl;
	}
	return k;
}

static void check(nghttp3_qpack_decoder *dec, const uint8_t *in, size_t len, const struct hpk_field *f, size_t n)
{
	nghttp3_qpack_stream_context *sc;
	size_t got = 0;

	if (nghttp3_qpack_stream_context_new(&sc, 0, nghttp3_mem_default()))
		return;
	for (;;) {
		nghttp3_qpack_nv nv;
		uint8_t fl = 0;
		nghttp3_ssize r = nghttp3_qpack_decoder_read_request(dec, sc, &nv, &fl, in, len, 1);

		if (r < 0)
			abort(); /* nghttp3 refused what we wrote */
		in += r;
		len -= (size_t)r;
		if (fl & NGHTTP3_QPACK_DECODE_FLAG_EMIT) {
			nghttp3_vec nm = nghttp3_rcbuf_get_buf(nv.name), v = nghttp3_rcbuf_get_buf(nv.value);

			if (got >= n || nm.len != f[got].nlen || v.len != f[got].vlen ||
			    (nm.len && memcmp(nm.base, f[got].name, nm.len)) || (v.len && memcmp(v.base, f[got].value, v.len)) ||
			    !(nv.flags & NGHTTP3_NV_FLAG_NEVER_INDEX) != !(f[got].flags & HPK_NO_INDEX))
				abort(); /* a field came back otherwise */
			nghttp3_rcbuf_decref(nv.name);
			nghttp3_rcbuf_decref(nv.value);
			got++;
		}
		if (fl & NGHTTP3_QPACK_DECODE_FLAG_FINAL)
			break;
		if (!(fl & NGHTTP3_QPACK_DECODE_FLAG_EMIT) && !len)
			abort(); /* the section ended without its end */
	}
	nghttp3_qpack_stream_context_del(sc);
	if (got != n || len)
		abort(); /* a field lost, or bytes after the section */
}

/* <in> walked (qpk_walk) in pieces of <step> bytes: its answer, its lines into <*lines> */
static int walk(const uint8_t *in, size_t len, size_t step, uint32_t *lines)
{
	struct qpk_walk w;
	int r = 0;

	qpk_walk_init(&w);
	for (size_t off = 0; off < len && !r; off += step)
		r = qpk_walk(&w, in + off, len - off < step ? len - off : step);
	*lines = w.lines;
	return r;
}

/* the walk of a request stream: the same answer and count whatever the
 * pieces; of our section in a HEADERS frame: its end, one line a field */
static void walk_check(const uint8_t *data, size_t size, const uint8_t *sec, size_t len, size_t n)
{
	uint8_t *fr = malloc(len + 9), *o = fr;
	uint32_t l1, l2, l3;
	int r = walk(data, size, size ? size : 1, &l1);

	if (walk(data, size, 1, &l2) != r || walk(data, size, 7, &l3) != r || l2 != l1 || l3 != l1)
		abort(); /* the pieces changed the walk */
	if (!fr)
		return;
	*o++ = 0x01;
	o = (uint8_t *)memcpy(o + 8, sec, len) - 8;
	o[0] = 0xc0; /* an 8-byte varint length */
	for (int i = 7; i > 0; i--)
		o[i] = (uint8_t)(len >> (8 * (7 - i)));
	if (walk(fr, len + 9, 1, &l1) != 1 || l1 != n)
		abort(); /* our section miscounted */
	free(fr);
}

/* what a reading handed on, folded: a hash of each line and DATA byte, counts */
struct seen {
	uint64_t h;
	size_t lines, data;
};

static void mix(struct seen *s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		s->h = (s->h ^ p[i]) * 0x100000001b3ull;
}

static void on_line(void *arg, const struct qpk_line *l)
{
	struct seen *s = arg;

	mix(s, l->name, l->nlen);
	mix(s, (const uint8_t *)"\0", 1);
	mix(s, l->value, l->vlen);
	s->lines++;
}

static void on_data(void *arg, const uint8_t *p, size_t n)
{
	struct seen *s = arg;

	mix(s, p, n);
	s->data += n;
}

static const struct h3r_ops ops = { on_line, on_data };

/* <data> fed in pieces of <step>: the answer (-1, or 0 / 1 by h3r_at_end), *s what came */
static int read_in(const uint8_t *data, size_t size, size_t step, struct seen *s)
{
	struct h3r r = { 0 };
	int rv = 0;

	*s = (struct seen){ 0xcbf29ce484222325ull, 0, 0 };
	for (size_t off = 0; off < size && !rv; off += step)
		rv = h3r_feed(&r, data + off, size - off < step ? size - off : step, &ops, s);
	if (!rv)
		rv = h3r_at_end(&r);
	h3r_reset(&r);
	return rv;
}

/* WHY only when it stays whole: a refusal may come after some lines, at a
 * point that depends on where the pieces end (a HEADERS frame whole is
 * decoded as it comes, a gathered one at its end) */
static void pieces(const uint8_t *data, size_t size)
{
	struct seen a, b;
	int r = read_in(data, size, size ? size : 1, &a);

	if (r < 0)
		return;
	for (size_t step = 1; step <= 7; step += 3)
		if (read_in(data, size, step, &b) != r || b.h != a.h || b.lines != a.lines || b.data != a.data)
			abort(); /* the pieces changed the reading */
}

/* nghttp3's lines of section <p>, folded; -1 when it refuses the section */
static int ng_lines(nghttp3_qpack_decoder *dec, const uint8_t *p, size_t n, struct seen *s)
{
	nghttp3_qpack_stream_context *sc;
	int rv = 0;

	*s = (struct seen){ 0xcbf29ce484222325ull, 0, 0 };
	if (nghttp3_qpack_stream_context_new(&sc, 0, nghttp3_mem_default()))
		return -1;
	for (;;) {
		nghttp3_qpack_nv nv;
		uint8_t fl = 0;
		nghttp3_ssize r = nghttp3_qpack_decoder_read_request(dec, sc, &nv, &fl, p, n, 1);

		if (r < 0) {
			rv = -1;
			break;
		}
		p += r;
		n -= (size_t)r;
		if (fl & NGHTTP3_QPACK_DECODE_FLAG_EMIT) {
			nghttp3_vec nm = nghttp3_rcbuf_get_buf(nv.name), v = nghttp3_rcbuf_get_buf(nv.value);

			mix(s, nm.base, nm.len);
			mix(s, (const uint8_t *)"\0", 1);
			mix(s, v.base, v.len);
			s->lines++;
			nghttp3_rcbuf_decref(nv.name);
			nghttp3_rcbuf_decref(nv.value);
		}
		if (fl & NGHTTP3_QPACK_DECODE_FLAG_FINAL)
			break;
		if ((!(fl & NGHTTP3_QPACK_DECODE_FLAG_EMIT) && !n) || (fl & NGHTTP3_QPACK_DECODE_FLAG_BLOCKED)) {
			rv = -1;
			break;
		}
	}
	nghttp3_qpack_stream_context_del(sc);
	return rv;
}

/* WHY one way: nghttp3 refuses a few sections ours reads (an empty name,
 * say); what it reads, ours must read alike */
static void beside_nghttp3(const uint8_t *data, size_t size)
{
	static nghttp3_qpack_decoder *dec;
	struct seen a, b;
	uint8_t *scr;

	if (!size || (!dec && nghttp3_qpack_decoder_new(&dec, 0, 0, nghttp3_mem_default())))
		return;
	if (ng_lines(dec, data, size, &a) < 0 || !(scr = malloc(QPK_SCRATCH(size))))
		return;
	b = (struct seen){ 0xcbf29ce484222325ull, 0, 0 };
	if (qpk_decode(data, size, scr, QPK_SCRATCH(size), on_line, &b) || b.h != a.h || b.lines != a.lines)
		abort(); /* a section nghttp3 read, ours read otherwise */
	free(scr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static nghttp3_qpack_decoder *dec;
	struct hpk_field f[FIELDS];
	size_t n = fields_of(data, size, f), bound = qpk_bound(f, n), len;
	uint8_t *out;

	if (!dec && nghttp3_qpack_decoder_new(&dec, 0, 0, nghttp3_mem_default()))
		return 0;
	if (!(out = malloc(bound)))
		return 0;
	len = qpk_encode(out, f, n);
	if (len > bound)
		abort();
	check(dec, out, len, f, n);
	walk_check(data, size, out, len, n);
	free(out);
	pieces(data, size);
	beside_nghttp3(data, size);
	return 0;
}

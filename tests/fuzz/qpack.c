/* libFuzzer driver: field lists through our QPACK encoder and back through nghttp3's decoder: every field returns, in order, with its never-index flag, within the bound. */
#include <nghttp3/nghttp3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FIELDS 64

/* the input as fields: a flags byte (bit 0: never index), a name length
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
		f[k++] = (struct hpk_field){ d + 2, d + 4 + nl, nl, vl, (uint8_t)(d[0] & 1 ? HPK_NO_INDEX : 0) };
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
	free(out);
	return 0;
}

/* Our HTTP/2 engine at rest: the work state back to the thread's pool, the HPACK decoder folded into the header block that rebuilds its table, both taken back when requests come again. */
#include "h2x.h"
#include "session-t.h"

/* the decoder's table as a header block: a size update to its size, then
 * its entries, oldest first, each a literal with incremental indexing (RFC
 * 7541 6.2.1, 6.3), which rebuild the same table in a new decoder. WHY:
 * nghttp2's decoder is ~1.3 KB (its ring of 128 entries) for a table that
 * holds a few; -1 out of memory (the decoder stays) */
static int table_fold(struct h2x *h)
{
	size_t n = nghttp2_hd_inflate_get_num_table_entries(h->inf), len = 6;
	uint8_t *p, *o;

	for (size_t i = 62; i <= n; i++) {
		const nghttp2_nv *nv = nghttp2_hd_inflate_get_table_entry(h->inf, i);

		len += 1 + 2 * 6 + nv->namelen + nv->valuelen; /* a length: at most 6 bytes (5.1) */
	}
	if (!(p = malloc(len)))
		return -1;
	o = hpk_int(p, 0x20, 5, nghttp2_hd_inflate_get_max_dynamic_table_size(h->inf));
	for (size_t i = n; i >= 62; i--) {
		const nghttp2_nv *nv = nghttp2_hd_inflate_get_table_entry(h->inf, i);

		*o++ = 0x40;
		o = hpk_str(o, nv->name, nv->namelen);
		o = hpk_str(o, nv->value, nv->valuelen);
	}
	nghttp2_hd_inflate_del(h->inf);
	h->inf = NULL;
	h->table = (struct buf){ .p = p, .n = (uint32_t)(o - p), .cap = (uint32_t)len };
	return 0;
}

/* a new decoder, as our acknowledged SETTINGS say, its table rebuilt */
static int table_unfold(struct h2x *h)
{
	const uint8_t *in = h->table.p;
	size_t n = h->table.n;

	if (nghttp2_hd_inflate_new(&h->inf))
		return h->inf = NULL, -1;
	if (!h->acks_owed && nghttp2_hd_inflate_change_table_size(h->inf, cfg.h2_table))
		return -1;
	for (;;) {
		nghttp2_nv nv;
		int fl = 0;
		ssize_t r = nghttp2_hd_inflate_hd2(h->inf, &nv, &fl, in, n, 1);

		if (r < 0)
			return -1;
		in += r;
		n -= (size_t)r;
		if (fl & NGHTTP2_HD_INFLATE_FINAL)
			break;
		if (!(fl & NGHTTP2_HD_INFLATE_EMIT) && !n)
			break;
	}
	nghttp2_hd_inflate_end_headers(h->inf);
	free(h->table.p);
	h->table = (struct buf){ 0 };
	return 0;
}

struct hxw *hx_work_take(struct h2x *h)
{
	struct hxw *w;

	if (!h->inf && table_unfold(h) < 0) {
		hx_conn_err(h, H2E_INTERNAL);
		return NULL;
	}
	if (!(w = h2c_work_get(h->c))) {
		hx_conn_err(h, H2E_INTERNAL);
		return NULL;
	}
	hpk_init(&w->def, cfg.h2_enc_table);
	/* WHY 0 then the size: the entries the decoder holds of ours are gone
	 * with the slots, so they are evicted by a size update (RFC 7541 4.2) */
	w->def.max = h->enc_max;
	w->def.low = h->enc_low;
	w->def.update = h->enc_update;
	w->memo.x.valid = w->memo.x.rec = 0;
	w->closed_n = 0;
	h->w = w;
	return w;
}

/* the work state back to the pool, the buffers freed, the decoder folded,
 * once the connection rested HX_REST_MS (no stream open, nothing to send) */
uint64_t hx_rest(struct h2c *c)
{
	struct h2x *h = HX(c);
	uint64_t now = c->t.w->loop.now_ms, at = c->t.nc.last_act + HX_REST_MS;

	if (!h->w && !h->ctl.p && !h->enc.p && !h->fb.p)
		return UINT64_MAX;
	if (now < at)
		return at;
	if (h->hb_sid || h->ctl.n || h->fb.n)
		return now + HX_REST_MS; /* a header block or a frame under way */
	if (h->w) {
		struct hpk_enc *e = &h->w->def;

		h->enc_max = e->max;
		h->enc_low = e->used ? 0 : e->low;
		h->enc_update = e->update || e->used;
		h2c_work_put(c, h->w);
		h->w = NULL;
	}
	/* WHY not under a smaller table: nghttp2's decoder would no longer
	 * insist on the size update it may still await */
	if (h->inf && cfg.h2_table >= 4096)
		(void)table_fold(h);
	free(h->ctl.p);
	free(h->enc.p);
	free(h->fb.p);
	h->ctl = h->enc = h->fb = (struct buf){ 0 };
	return UINT64_MAX;
}

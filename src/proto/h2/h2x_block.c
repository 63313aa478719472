/* Our HTTP/2 engine's request header blocks: HEADERS and CONTINUATION decoded by nghttp2's HPACK, the fields checked (RFC 9113 8.1-8.3), a repeated head replayed from the memo. */
#include "h2x.h"
#include "session-t.h"


static int is(const uint8_t *n, size_t nl, const char *lit, size_t ll)
{
	return nl == ll && !memcmp(n, lit, ll);
}
#define IS(n, nl, lit) is(n, nl, lit, sizeof(lit) - 1)

static unsigned pseudo_bit(const uint8_t *n, size_t nl)
{
	return IS(n, nl, ":method") ? PS_METHOD : IS(n, nl, ":scheme") ? PS_SCHEME :
	       IS(n, nl, ":path") ? PS_PATH : IS(n, nl, ":authority") ? PS_AUTH :
	       IS(n, nl, ":protocol") ? PS_PROTO : IS(n, nl, "host") ? PS_HOST : 0;
}

static int caseeq(const uint8_t *v, size_t vl, const char *lit)
{
	size_t n = strlen(lit);

	if (vl != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((v[i] | 0x20) != lit[i])
			return 0;
	return 1;
}

/* a scheme (RFC 3986 3.1) */
static int scheme_ok(const uint8_t *v, size_t vl)
{
	if (!vl || !((v[0] | 0x20) >= 'a' && (v[0] | 0x20) <= 'z'))
		return 0;
	for (size_t i = 1; i < vl; i++) {
		uint8_t c = v[i] | 0x20;

		if (!((c >= 'a' && c <= 'z') || (v[i] >= '0' && v[i] <= '9') || v[i] == '+' || v[i] == '-' ||
		      v[i] == '.'))
			return 0;
	}
	return 1;
}

/* whether a value is valid for its field, as nghttp2's session checks it */
static int value_ok(unsigned bit, const uint8_t *val, size_t vl)
{
	switch (bit) {
	case PS_METHOD: return nghttp2_check_method(val, vl);
	case PS_PATH: return nghttp2_check_path(val, vl);
	case PS_AUTH:
	case PS_HOST: return nghttp2_check_authority(val, vl);
	case PS_SCHEME: return scheme_ok(val, vl);
	default: return nghttp2_check_header_value_rfc9113(val, vl);
	}
}

/* a pseudo-header field (or host): once, not empty; what it says noted */
static int pseudo_ok(struct hv *v, unsigned bit, const uint8_t *val, size_t vl)
{
	if ((v->seen & bit) || !vl)
		return 0;
	v->seen |= (uint8_t)bit;
	if (bit == PS_METHOD) {
		v->connect = IS(val, vl, "CONNECT");
		v->options = IS(val, vl, "OPTIONS");
	} else if (bit == PS_PATH) {
		v->star = IS(val, vl, "*");
		v->slash = val[0] == '/';
	} else if (bit == PS_SCHEME) {
		v->http = caseeq(val, vl, "http") || caseeq(val, vl, "https");
	}
	return 1;
}

/* content-length: digits, once */
static int length_ok(struct h2s *s, const uint8_t *val, size_t vl)
{
	uint64_t n = 0;

	if (!vl || vl > 19 || HXS(s)->cl != UINT64_MAX)
		return 0;
	for (size_t i = 0; i < vl; i++) {
		if (val[i] < '0' || val[i] > '9')
			return 0;
		n = n * 10 + (uint64_t)(val[i] - '0');
	}
	HXS(s)->cl = n;
	return 1;
}

/* One field of a request's header list (trailers: of its trailers), with
 * the rules of nghttp2's session (nghttp2_http.c; with no callback for
 * invalid fields, it resets the stream on any), so that both engines answer
 * alike: 1 when it breaks them (the stream is then reset), else 0 */
static int field(struct hv *v, struct h2s *s, const nghttp2_nv *nv, int trailers)
{
	const uint8_t *n = nv->name, *val = nv->value;
	size_t nl = nv->namelen, vl = nv->valuelen;
	unsigned bit = pseudo_bit(n, nl);

	if (!nghttp2_check_header_name(n, nl) || !value_ok(bit, val, vl))
		return 1;
	if (n[0] == ':' && (trailers || v->regular || !bit))
		return 1;
	if (bit) {
		if (!pseudo_ok(v, bit, val, vl))
			return 1;
	} else if (IS(n, nl, "content-length")) {
		if (!length_ok(s, val, vl))
			return 1;
	} else if (IS(n, nl, "connection") || IS(n, nl, "keep-alive") || IS(n, nl, "proxy-connection") ||
		   IS(n, nl, "transfer-encoding") || IS(n, nl, "upgrade") ||
		   (IS(n, nl, "te") && !caseeq(val, vl, "trailers"))) {
		return 1; /* connection-specific fields (8.2.2) */
	}
	if (n[0] != ':')
		v->regular = 1;
	if (!trailers)
		xs_header(&s->x, n, nl, val, vl);
	return 0;
}

/* the pseudo-header fields a request needs (RFC 9113 8.3.1, 8.5; RFC 8441 4),
 * and its authority (:authority or host), as nghttp2's session asks */
static int pseudo_complete(const struct hv *v, struct h2s *s)
{
	if (v->connect && !(v->seen & PS_PROTO)) {
		HXS(s)->cl = UINT64_MAX; /* WHY: a tunnel's length is not the request's */
		return (v->seen & (PS_SCHEME | PS_PATH | PS_AUTH)) == PS_AUTH;
	}
	if ((v->seen & (PS_METHOD | PS_SCHEME | PS_PATH)) != (PS_METHOD | PS_SCHEME | PS_PATH) ||
	    !(v->seen & (PS_AUTH | PS_HOST)))
		return 0;
	if ((v->seen & PS_PROTO) && (!v->connect || !(v->seen & PS_AUTH)))
		return 0;
	return !v->http || v->slash || (v->options && v->star);
}

/* the request's end (END_STREAM), its length checked against content-length */
void hx_remote_end(struct h2x *h, struct h2s *s)
{
	int32_t sid = s->id;

	HXS(s)->st |= H2S_RCLOSED;
	if (HXS(s)->cl != UINT64_MAX && s->x.body_read != HXS(s)->cl)
		return hx_rst(s, H2E_PROTOCOL);
	h2s_end_in(s);
	if ((s = hx_find(h, sid)) && (HXS(s)->st & H2S_LCLOSED) && list_empty(&HXS(s)->ready))
		list_add(&h->ready, &HXS(s)->ready); /* swept at the next send */
}

/* A piece of the header block under way (h->hb_*), decoded as it comes, as
 * nghttp2's session does: its fields go to the stream (for the table's sake
 * only when it has none). <last>: END_HEADERS. Returns -1 on a compression
 * error (the connection is then closing). */
/* an HPACK integer with an <bits>-bit prefix at <*p> (RFC 7541 5.1), or -1 */
static int64_t hp_int(const uint8_t **p, const uint8_t *end, unsigned bits)
{
	uint64_t max = (1u << bits) - 1, v = **p & max;
	unsigned shift = 0;

	if ((*p)++, v < max)
		return (int64_t)v;
	while (*p < end && shift < 28) {
		uint8_t b = *(*p)++;

		v += (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return (int64_t)v;
		shift += 7;
	}
	return -1;
}

/* skips a string literal (5.2); -1 when it runs past the block */
static int hp_skip_str(const uint8_t **p, const uint8_t *end)
{
	int64_t len;

	if (*p >= end || (len = hp_int(p, end, 7)) < 0 || len > end - *p)
		return -1;
	*p += len;
	return 0;
}

/* whether the block leaves the decoder's table as it was: indexed fields
 * and literals not indexed only (6.1, 6.2.2, 6.2.3), no size update */
static int table_neutral(const uint8_t *in, size_t n)
{
	const uint8_t *p = in, *end = in + n;

	while (p < end) {
		uint8_t b = *p;

		if (b & 0x80) {
			if (hp_int(&p, end, 7) < 0)
				return 0;
		} else if (b & 0x60) {
			return 0; /* with incremental indexing, or a size update */
		} else {
			int64_t idx = hp_int(&p, end, 4);

			if (idx < 0 || (!idx && hp_skip_str(&p, end) < 0) || hp_skip_str(&p, end) < 0)
				return 0;
		}
	}
	return n > 0;
}

/* A request head in one frame: replayed from the memo when it is the same
 * block (1: done), else recorded when it leaves the table as it was, and any
 * other block moves the table's generation on. */
static int memo_try(struct h2x *h, struct h2s *s, const uint8_t *in, size_t n, int last)
{
	struct memo *m = &h->w->memo;

	m->x.rec = 0;
	if (!(last && h->hb_kind == HB_OPEN && s && !h->hb_conts && n <= XM_BLOCK && table_neutral(in, n))) {
		h->gen++; /* WHY every other block: it may have changed the table */
		return 0;
	}
	if (m->gen == h->gen && xm_hit(&m->x, in, n)) {
		xm_replay(&m->x, &s->x);
		h->hv = m->hv;
		HXS(s)->cl = m->cl;
		return 1;
	}
	m->gen = h->gen;
	xm_record(&m->x, in, n);
	return 0;
}

/* the recorded block may be replayed if its fields broke no rule */
static void memo_end(struct h2x *h, struct h2s *s)
{
	struct memo *m = &h->w->memo;

	if (!m->x.rec)
		return;
	xm_end(&m->x, !h->hb_bad);
	m->hv = h->hv;
	m->cl = HXS(s)->cl;
}

int hx_block_part(struct h2x *h, const uint8_t *in, size_t n, int last)
{
	int kind = h->hb_kind;
	struct h2s *s = kind == HB_OPEN || kind == HB_TRAILERS ? hx_find(h, h->hb_sid) : NULL;

	if (!hx_work(h))
		return -1;
	if (memo_try(h, s, in, n, last))
		return 0;
	for (;;) {
		nghttp2_nv nv;
		int fl = 0;
		ssize_t r = nghttp2_hd_inflate_hd2(h->inf, &nv, &fl, in, n, last);

		if (r < 0) {
			hx_conn_err(h, H2E_COMPRESSION);
			return -1;
		}
		in += r;
		n -= (size_t)r;
		if ((fl & NGHTTP2_HD_INFLATE_EMIT) && s && !h->hb_bad) {
			h->hb_bad = (uint8_t)field(&h->hv, s, &nv, kind == HB_TRAILERS);
			xm_field(&h->w->memo.x, nv.name, nv.namelen, nv.value, nv.valuelen);
		}
		if (fl & NGHTTP2_HD_INFLATE_FINAL) {
			nghttp2_hd_inflate_end_headers(h->inf);
			break;
		}
		if (!(fl & NGHTTP2_HD_INFLATE_EMIT) && !n)
			break;
	}
	memo_end(h, s);
	return 0;
}

/* the header block on <sid> ended (END_HEADERS): what it was for follows */
void hx_block_done(struct h2x *h)
{
	int32_t sid = h->hb_sid;
	int kind = h->hb_kind, end = h->hb_end;
	struct h2s *s = kind == HB_OPEN || kind == HB_TRAILERS ? hx_find(h, sid) : NULL;

	h->hb_sid = 0;
	if (kind == HB_REFUSED) /* WHY not remembered: nghttp2 never opened it either */
		return hx_rst_id(h, sid, H2E_REFUSED);
	if (!s)
		return;
	if (kind == HB_OPEN) {
		if (h->hb_bad) /* WHY no END_STREAM then: nghttp2 stops at the field */
			return hx_rst(s, H2E_PROTOCOL);
		if (end)
			HXS(s)->st |= H2S_RCLOSED;
		if (!pseudo_complete(&h->hv, s) || (end && HXS(s)->cl != UINT64_MAX && HXS(s)->cl))
			return hx_rst(s, H2E_PROTOCOL);
		return h2s_head_in(s, end); /* WHY last: it may answer, and the stream be done */
	}
	/* trailers of the request */
	if (h->hb_bad)
		return hx_rst(s, H2E_PROTOCOL);
	if (HXS(s)->st & H2S_RCLOSED)
		return hx_rst(s, H2E_STREAM_CLOSED);
	if (!end)
		return hx_rst(s, H2E_PROTOCOL);
	hx_remote_end(h, s);
}


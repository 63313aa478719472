/* The HTTP/2 engine of our own (--h2-engine hx): framing, stream states, flow control and flood limits, over nghttp2's HPACK codec. */
#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "h2_eng.h"
#include "hpack.h"
#include "log.h"
#include "plan.h"
#include "session-t.h"
#include "ws_stream.h"
#include "xmemo.h"

/* frame types and flags (RFC 9113 6) */
enum { FR_DATA, FR_HEADERS, FR_PRIORITY, FR_RST, FR_SETTINGS, FR_PUSH, FR_PING, FR_GOAWAY, FR_WINDOW, FR_CONT };
#define FL_END_STREAM  0x01
#define FL_ACK         0x01
#define FL_END_HEADERS 0x04
#define FL_PADDED      0x08
#define FL_PRIORITY    0x20

#define WIN_MAX        0x7fffffff

/* flood limits, as nghttp2's session has them */
#define HX_MAX_ACKS     1000 /* SETTINGS and PING acks unsent (its max_outbound_ack) */
#define HX_MAX_SETTINGS 32   /* entries in one SETTINGS frame (its max_settings) */
#define HX_MAX_CONTS    8    /* CONTINUATION frames in a header block (its max_continuations) */
#define HX_MAX_GLITCHES 1000 /* empty DATA or CONTINUATION frames a second */
#define HX_CLOSED       128  /* closed streams remembered, as nghttp2 keeps them (at most --h2-streams) */

/* WHY: xstream's never-indexed flag is nghttp2's, and our encoder's */
_Static_assert(HPK_NO_INDEX == NGHTTP2_NV_FLAG_NO_INDEX, "never-indexed flag");

/* h2s.st */
#define H2S_RCLOSED 0x01     /* END_STREAM received */
#define H2S_LCLOSED 0x02     /* END_STREAM staged: the stream goes once the peer's side is closed */
#define H2S_RESET   0x04     /* RST_STREAM staged: the stream goes at the next send */

/* h2x.gone */
#define HX_SENT     0x01     /* our GOAWAY is staged: new streams are ignored */
#define HX_RECV     0x02     /* the peer's GOAWAY came */
#define HX_CLOSING  0x04     /* the connection ends once what is staged went out */

static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
#define PREFACE_LEN 24

struct buf {
	uint8_t *p;
	uint32_t n, cap;
};

#define PS_METHOD 0x01
#define PS_SCHEME 0x02
#define PS_PATH   0x04
#define PS_AUTH   0x08
#define PS_PROTO  0x10
#define PS_HOST   0x20 /* not a pseudo-header, but checked as one */

/* what a header list said, to check it (RFC 9113 8.1.1, 8.2, 8.3) */
struct hv {
	uint8_t seen;     /* PS_* */
	uint8_t regular;  /* a regular field came */
	uint8_t connect;  /* :method CONNECT */
	uint8_t options;  /* :method OPTIONS */
	uint8_t star;     /* :path * */
	uint8_t slash;    /* :path starts with / */
	uint8_t http;     /* :scheme http or https */
};

/* The last request head that left the decoder's table as it was (indexed
 * fields, literals not indexed), and what it decoded to: the same bytes
 * decode the same for as long as no other block changed the table (<gen>). */
struct memo {
	uint32_t gen;            /* the table's generation it was decoded in */
	uint64_t cl;             /* what its fields set on the stream */
	struct hv hv;
	struct xmemo x;
};

struct h2x {
	struct h2c *c;
	nghttp2_hd_inflater *inf;
	struct hpk_enc def;      /* the response heads' encoder */
	uint32_t pre;            /* bytes of the client preface matched */
	uint8_t fh[9];           /* the frame header being read */
	uint8_t fh_n;
	uint8_t ftype, fflags;
	uint32_t flen;
	int32_t fsid;
	struct buf fb;           /* a frame's payload split across reads */
	int32_t hb_sid;          /* the stream of a header block under way, 0: none */
	uint8_t hb_end;          /* its HEADERS frame had END_STREAM */
	uint8_t hb_conts;
	uint8_t hb_kind;         /* HB_*: what it is for */
	uint8_t hb_bad;          /* a field broke the rules */
	struct hv hv;            /* what its fields said so far */
	uint8_t gone;            /* HX_* */
	uint32_t peer_last;      /* the last stream of the peer's GOAWAY, which may only go down */
	uint8_t settings;        /* the client's first SETTINGS came */
	uint8_t acks_owed;       /* our SETTINGS not yet acknowledged (0: they were) */
	uint8_t nopri;           /* the peer's SETTINGS_NO_RFC7540_PRIORITIES, 2: not said */
	uint32_t closed_n;       /* streams closed, ever */
	struct {
		int32_t id;
		uint8_t rd;      /* it had ended its side (END_STREAM, RST_STREAM) */
	} closed[HX_CLOSED];
	struct buf ctl;          /* frames for the next send, in their order */
	struct buf enc;          /* a header block to split into frames */
	int32_t last_sid;        /* the highest stream the client opened */
	int64_t win_out;         /* the connection's window for our DATA */
	int64_t win_in;          /* ours for the peer's */
	uint32_t peer_iwin;      /* its SETTINGS_INITIAL_WINDOW_SIZE */
	uint32_t peer_frame;     /* its SETTINGS_MAX_FRAME_SIZE */
	uint32_t acks;           /* acks in <ctl> */
	uint32_t glitches;
	uint64_t glitch_sec;
	struct list ready;       /* streams with DATA to send, or to sweep */
	uint32_t gen;            /* the decoder's table generation */
	struct memo memo;
};

#define HX(c) ((struct h2x *)(c)->sess)

/* ---------- bytes ---------- */

static int buf_room(struct buf *b, size_t more)
{
	size_t need = (size_t)b->n + more, cap;
	uint8_t *p;

	if (need <= b->cap)
		return 0;
	if (need > UINT32_MAX / 2)
		return -1;
	cap = MAX(need, (size_t)b->cap * 2);
	cap = MAX(cap, 256);
	if (!(p = realloc(b->p, cap)))
		return -1;
	b->p = p;
	b->cap = (uint32_t)cap;
	return 0;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static void fr_head(uint8_t *o, size_t len, uint8_t type, uint8_t flags, int32_t sid)
{
	o[0] = (uint8_t)(len >> 16), o[1] = (uint8_t)(len >> 8), o[2] = (uint8_t)len;
	o[3] = type, o[4] = flags;
	put32(o + 5, (uint32_t)sid);
}

/* a control frame for the next send; out of memory ends the connection */
static void ctl_frame(struct h2x *h, uint8_t type, uint8_t flags, int32_t sid, const void *p, size_t len)
{
	if (buf_room(&h->ctl, 9 + len) < 0) {
		h->c->flags |= H2C_DEAD;
		return;
	}
	fr_head(h->ctl.p + h->ctl.n, len, type, flags, sid);
	if (len)
		memcpy(h->ctl.p + h->ctl.n + 9, p, len);
	h->ctl.n += (uint32_t)(9 + len);
}

/* ---------- errors ---------- */

/* a connection error (RFC 9113 5.4.1): GOAWAY, then the end */
static void conn_err(struct h2x *h, uint32_t code)
{
	uint8_t p[8];

	if (h->gone & HX_CLOSING)
		return;
	if (cfg.debug && code)
		log_debug("thread %d fd %d: HTTP/2 connection error %u, GOAWAY", h->c->w->id, h->c->ev.fd, code);
	put32(p, (uint32_t)h->last_sid);
	put32(p + 4, code);
	ctl_frame(h, FR_GOAWAY, 0, 0, p, 8);
	h->gone |= HX_SENT | HX_CLOSING;
	h2c_sent_goaway(h->c, code);
}

/* whether <sid> is a stream nghttp2's session would still know as closed
 * after the peer's side ended: what it sends there is then a connection
 * error; on other closed streams it is ignored */
static int closed_rd(const struct h2x *h, int32_t sid)
{
	uint32_t keep = cfg.h2_streams > h->c->nstreams ? cfg.h2_streams - h->c->nstreams : 0;

	keep = MIN(MIN(keep, h->closed_n), HX_CLOSED);
	for (uint32_t i = 0; i < keep; i++) {
		uint32_t k = (h->closed_n - 1 - i) % HX_CLOSED;

		if (h->closed[k].id == sid)
			return h->closed[k].rd;
	}
	return 0;
}

static void closed_add(struct h2x *h, int32_t sid, int rd)
{
	uint32_t k = h->closed_n++ % HX_CLOSED;

	h->closed[k].id = sid;
	h->closed[k].rd = (uint8_t)rd;
}

/* a stream of ours gone, remembered as closed */
static void gone(struct h2x *h, struct h2s *s, int rd)
{
	closed_add(h, s->id, rd || (s->st & H2S_RCLOSED));
	h2s_put(s);
}

/* a stream the peer may not name yet: one of ours (even), or above its last */
static int idle(const struct h2x *h, int32_t sid)
{
	return !(sid & 1) || sid > h->last_sid;
}

/* RST_STREAM for a stream we do not hold (refused, or gone) */
static void rst_id(struct h2x *h, int32_t sid, uint32_t code)
{
	uint8_t p[4];

	put32(p, code);
	ctl_frame(h, FR_RST, 0, sid, p, 4);
	h2c_sent_rst(h->c, code);
}

/* a stream error (RFC 9113 5.4.2): RST_STREAM; the stream goes at the next
 * send, so that whoever called holds no freed stream */
static void hx_rst(struct h2s *s, uint32_t code)
{
	struct h2x *h = HX(s->c);

	if (s->st & H2S_RESET)
		return;
	rst_id(h, s->id, code);
	s->st |= H2S_RESET;
	if (!list_empty(&s->ready))
		list_del(&s->ready);
	list_add(&h->ready, &s->ready);
}

/* an empty frame that does nothing: too many a second end the connection */
static int glitch(struct h2x *h)
{
	uint64_t sec = h->c->w->loop.now_ms / 1000;

	if (sec != h->glitch_sec) {
		h->glitch_sec = sec;
		h->glitches = 0;
	}
	if (++h->glitches <= HX_MAX_GLITCHES)
		return 0;
	conn_err(h, H2E_CALM);
	return 1;
}

/* ---------- streams ---------- */

/* the stream <sid>, reset ones too */
static struct h2s *find_any(struct h2x *h, int32_t sid)
{
	struct list *n, *tmp;

	list_each_safe(n, tmp, &h->c->streams) {
		struct h2s *s = list_elem(n, struct h2s, node);

		if (s->id == sid)
			return s;
	}
	return NULL;
}

/* the stream <sid>, NULL when it is gone or being reset */
static struct h2s *find(struct h2x *h, int32_t sid)
{
	struct h2s *s = find_any(h, sid);

	return s && !(s->st & H2S_RESET) ? s : NULL;
}

/* our END_STREAM is staged: the stream goes now or once the peer's side closes */
static void local_end(struct h2x *h, struct h2s *s)
{
	s->st |= H2S_LCLOSED;
	if (!list_empty(&s->ready))
		list_del(&s->ready);
	if (s->st & H2S_RCLOSED)
		list_add(&h->ready, &s->ready); /* swept at the next send */
}

static void stream_init(struct h2x *h, struct h2s *s)
{
	s->win_out = h->peer_iwin;
	/* WHY: until our SETTINGS are acknowledged, the peer may use 65535 */
	s->win_in = !h->acks_owed ? cfg.h2_window : MAX(cfg.h2_window, 65535);
	s->st = 0;
}

/* ---------- the request: a header block ---------- */

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

	if (!vl || vl > 19 || s->cl != UINT64_MAX)
		return 0;
	for (size_t i = 0; i < vl; i++) {
		if (val[i] < '0' || val[i] > '9')
			return 0;
		n = n * 10 + (uint64_t)(val[i] - '0');
	}
	s->cl = n;
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
		s->cl = UINT64_MAX; /* WHY: a tunnel's length is not the request's */
		return (v->seen & (PS_SCHEME | PS_PATH | PS_AUTH)) == PS_AUTH;
	}
	if ((v->seen & (PS_METHOD | PS_SCHEME | PS_PATH)) != (PS_METHOD | PS_SCHEME | PS_PATH) ||
	    !(v->seen & (PS_AUTH | PS_HOST)))
		return 0;
	if ((v->seen & PS_PROTO) && (!v->connect || !(v->seen & PS_AUTH)))
		return 0;
	return !v->http || v->slash || (v->options && v->star);
}

/* what a header block is for, known from its HEADERS frame */
enum { HB_OPEN, HB_REFUSED, HB_IGNORED, HB_TRAILERS };

/* A HEADERS frame on <sid>: what its block is for. A new stream is held at
 * once, so that a block never ended times out as a stream (--head-timeout). */
static int block_kind(struct h2x *h, int32_t sid, int selfdep)
{
	struct h2c *c = h->c;
	struct h2s *s = find_any(h, sid);

	if (!(sid & 1))
		return conn_err(h, H2E_PROTOCOL), HB_IGNORED;
	if (s && (s->st & H2S_RCLOSED)) /* WHY before a reset under way: as nghttp2's session */
		return conn_err(h, H2E_STREAM_CLOSED), HB_IGNORED;
	if (s)
		return s->st & H2S_RESET ? HB_IGNORED : HB_TRAILERS;
	if (sid <= h->last_sid) {
		if (h2_sids_skipped(&c->sids, sid))
			conn_err(h, H2E_PROTOCOL); /* WHY: a new stream below an open one (RFC 9113 5.1.1) */
		else if (closed_rd(h, sid))
			conn_err(h, H2E_STREAM_CLOSED);
		return HB_IGNORED;
	}
	h->last_sid = sid;
	h2_sids_open(&c->sids, sid);
	/* WHY a connection error over an acknowledged limit, and the order of
	 * these: as nghttp2's session, so that both engines answer alike */
	if (!h->acks_owed && c->nstreams >= cfg.h2_streams)
		return conn_err(h, H2E_PROTOCOL), HB_IGNORED;
	if (h->gone & HX_SENT) /* after our GOAWAY, new streams are not processed (RFC 9113 6.8) */
		return HB_IGNORED;
	if (selfdep)
		return conn_err(h, H2E_PROTOCOL), HB_IGNORED;
	if (c->nstreams >= cfg.h2_streams || !(s = h2s_get(c, sid)))
		return HB_REFUSED;
	stream_init(h, s);
	return HB_OPEN;
}

/* the request's end (END_STREAM), its length checked against content-length */
static void remote_end(struct h2x *h, struct h2s *s)
{
	int32_t sid = s->id;

	s->st |= H2S_RCLOSED;
	if (s->cl != UINT64_MAX && s->x.body_read != s->cl)
		return hx_rst(s, H2E_PROTOCOL);
	h2s_end_in(s);
	if ((s = find(h, sid)) && (s->st & H2S_LCLOSED) && list_empty(&s->ready))
		list_add(&h->ready, &s->ready); /* swept at the next send */
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
	struct memo *m = &h->memo;

	m->x.rec = 0;
	if (!(last && h->hb_kind == HB_OPEN && s && !h->hb_conts && n <= XM_BLOCK && table_neutral(in, n))) {
		h->gen++; /* WHY every other block: it may have changed the table */
		return 0;
	}
	if (m->gen == h->gen && xm_hit(&m->x, in, n)) {
		xm_replay(&m->x, &s->x);
		h->hv = m->hv;
		s->cl = m->cl;
		return 1;
	}
	m->gen = h->gen;
	xm_record(&m->x, in, n);
	return 0;
}

/* the recorded block may be replayed if its fields broke no rule */
static void memo_end(struct h2x *h, struct h2s *s)
{
	struct memo *m = &h->memo;

	if (!m->x.rec)
		return;
	xm_end(&m->x, !h->hb_bad);
	m->hv = h->hv;
	m->cl = s->cl;
}

static int block_part(struct h2x *h, const uint8_t *in, size_t n, int last)
{
	int kind = h->hb_kind;
	struct h2s *s = kind == HB_OPEN || kind == HB_TRAILERS ? find(h, h->hb_sid) : NULL;

	if (memo_try(h, s, in, n, last))
		return 0;
	for (;;) {
		nghttp2_nv nv;
		int fl = 0;
		ssize_t r = nghttp2_hd_inflate_hd2(h->inf, &nv, &fl, in, n, last);

		if (r < 0) {
			conn_err(h, H2E_COMPRESSION);
			return -1;
		}
		in += r;
		n -= (size_t)r;
		if ((fl & NGHTTP2_HD_INFLATE_EMIT) && s && !h->hb_bad) {
			h->hb_bad = (uint8_t)field(&h->hv, s, &nv, kind == HB_TRAILERS);
			xm_field(&h->memo.x, nv.name, nv.namelen, nv.value, nv.valuelen);
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
static void block_done(struct h2x *h)
{
	int32_t sid = h->hb_sid;
	int kind = h->hb_kind, end = h->hb_end;
	struct h2s *s = kind == HB_OPEN || kind == HB_TRAILERS ? find(h, sid) : NULL;

	h->hb_sid = 0;
	if (kind == HB_REFUSED) /* WHY not remembered: nghttp2 never opened it either */
		return rst_id(h, sid, H2E_REFUSED);
	if (!s)
		return;
	if (kind == HB_OPEN) {
		if (h->hb_bad) /* WHY no END_STREAM then: nghttp2 stops at the field */
			return hx_rst(s, H2E_PROTOCOL);
		if (end)
			s->st |= H2S_RCLOSED;
		if (!pseudo_complete(&h->hv, s) || (end && s->cl != UINT64_MAX && s->cl))
			return hx_rst(s, H2E_PROTOCOL);
		return h2s_head_in(s, end); /* WHY last: it may answer, and the stream be done */
	}
	/* trailers of the request */
	if (h->hb_bad)
		return hx_rst(s, H2E_PROTOCOL);
	if (s->st & H2S_RCLOSED)
		return hx_rst(s, H2E_STREAM_CLOSED);
	if (!end)
		return hx_rst(s, H2E_PROTOCOL);
	remote_end(h, s);
}

/* ---------- frames in ---------- */

/* strips the padding; -1 when it is longer than the frame (the connection ends) */
static int unpad(struct h2x *h, const uint8_t **p, uint32_t *len)
{
	uint8_t pad;

	if (!(h->fflags & FL_PADDED))
		return 0;
	if (*len < 1 || (pad = (*p)[0]) >= *len) {
		conn_err(h, H2E_PROTOCOL);
		return -1;
	}
	*p += 1;
	*len -= 1u + pad;
	return 0;
}

/* our windows for the peer's DATA, opened again once half used */
static void refill(struct h2x *h, struct h2s *s)
{
	uint8_t p[4];

	if (h->win_in < cfg.h2_conn_window / 2) {
		put32(p, (uint32_t)(cfg.h2_conn_window - h->win_in));
		ctl_frame(h, FR_WINDOW, 0, 0, p, 4);
		h->win_in = cfg.h2_conn_window;
	}
	if (s && !(s->st & H2S_RCLOSED) && s->win_in < cfg.h2_window / 2) {
		put32(p, (uint32_t)(cfg.h2_window - s->win_in));
		ctl_frame(h, FR_WINDOW, 0, s->id, p, 4);
		s->win_in = cfg.h2_window;
	}
}

static void fr_data(struct h2x *h, const uint8_t *p, uint32_t len)
{
	uint32_t flow = len; /* WHY: the padding counts against the windows too */
	int32_t sid = h->fsid;
	struct h2s *s;

	if (!sid)
		return conn_err(h, H2E_PROTOCOL);
	if (flow > h->win_in)
		return conn_err(h, H2E_FLOW);
	h->win_in -= flow;
	/* WHY the stream before the padding, and these errors: as nghttp2's
	 * session, which ignores a frame on a stream being reset, or closed
	 * before its peer's side ended, whatever its padding says */
	if (idle(h, sid))
		return conn_err(h, H2E_PROTOCOL);
	s = find_any(h, sid);
	if ((s && (s->st & H2S_RCLOSED)) || (!s && closed_rd(h, sid)))
		return conn_err(h, H2E_STREAM_CLOSED);
	if (!s || (s->st & H2S_RESET))
		return refill(h, NULL);
	if (unpad(h, &p, &len) < 0)
		return;
	if (flow > s->win_in) {
		hx_rst(s, H2E_FLOW);
		return refill(h, NULL);
	}
	s->win_in -= flow;
	if (!len && !(h->fflags & FL_END_STREAM) && glitch(h))
		return;
	if (s->cl != UINT64_MAX && s->x.body_read + len > s->cl)
		return hx_rst(s, H2E_PROTOCOL);
	if (len)
		h2s_data_in(s, p, len);
	if (!(s = find(h, sid)))
		return refill(h, NULL);
	if (h->fflags & FL_END_STREAM)
		remote_end(h, s);
	refill(h, find(h, sid));
}

static void fr_headers(struct h2x *h, const uint8_t *p, uint32_t len)
{
	int32_t sid = h->fsid;
	int kind, selfdep = 0;

	if (!sid)
		return conn_err(h, H2E_PROTOCOL);
	if (unpad(h, &p, &len) < 0)
		return;
	if (h->fflags & FL_PRIORITY) {
		if (len < 5)
			return conn_err(h, H2E_FRAME_SIZE);
		selfdep = (int32_t)(get32(p) & WIN_MAX) == sid;
		p += 5;
		len -= 5;
	}
	kind = block_kind(h, sid, selfdep);
	if (h->gone & HX_CLOSING)
		return;
	h->hb_sid = sid;
	h->hb_kind = (uint8_t)kind;
	h->hb_end = h->fflags & FL_END_STREAM;
	h->hb_conts = 0;
	h->hb_bad = 0;
	memset(&h->hv, 0, sizeof(h->hv));
	if (block_part(h, p, len, h->fflags & FL_END_HEADERS) == 0 && (h->fflags & FL_END_HEADERS))
		block_done(h);
}

static void fr_cont(struct h2x *h, const uint8_t *p, uint32_t len)
{
	if (!h->hb_sid)
		return conn_err(h, H2E_PROTOCOL);
	if (++h->hb_conts > HX_MAX_CONTS)
		return conn_err(h, H2E_CALM);
	if (!len && !(h->fflags & FL_END_HEADERS) && glitch(h))
		return;
	if (block_part(h, p, len, h->fflags & FL_END_HEADERS) == 0 && (h->fflags & FL_END_HEADERS))
		block_done(h);
}

static void fr_priority(struct h2x *h, const uint8_t *p, uint32_t len)
{
	if (!h->fsid)
		return conn_err(h, H2E_PROTOCOL);
	if (len != 5) /* WHY not the stream error 6.3 asks: nghttp2's session ends the connection */
		return conn_err(h, H2E_FRAME_SIZE);
	if ((int32_t)(get32(p) & WIN_MAX) == h->fsid) /* WHY a connection error: as nghttp2's session */
		conn_err(h, H2E_PROTOCOL);
}

static void fr_rst(struct h2x *h, const uint8_t *p, uint32_t len)
{
	struct h2s *s;

	if (len != 4)
		return conn_err(h, H2E_FRAME_SIZE);
	if (!h->fsid || idle(h, h->fsid))
		return conn_err(h, H2E_PROTOCOL);
	if ((s = find(h, h->fsid)))
		gone(h, s, 1);
	h2c_recv_rst(h->c, get32(p));
}

/* one of the peer's settings: 0, or -1 with the connection closing */
static int setting(struct h2x *h, uint16_t id, uint32_t v)
{
	struct list *n, *tmp;

	switch (id) {
	case NGHTTP2_SETTINGS_HEADER_TABLE_SIZE:
		hpk_table_size(&h->def, v);
		break;
	case NGHTTP2_SETTINGS_ENABLE_PUSH:
	case NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL:
		if (v > 1)
			return conn_err(h, H2E_PROTOCOL), -1;
		break;
	case NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE:
		if (v > WIN_MAX)
			return conn_err(h, H2E_FLOW), -1;
		/* WHY every stream: the change applies to the windows open now (6.9.2) */
		list_each_safe(n, tmp, &h->c->streams) {
			struct h2s *s = list_elem(n, struct h2s, node);

			s->win_out += (int64_t)v - h->peer_iwin;
			if (s->win_out > WIN_MAX)
				return conn_err(h, H2E_FLOW), -1;
		}
		h->peer_iwin = v;
		break;
	case NGHTTP2_SETTINGS_MAX_FRAME_SIZE:
		if (v < 16384 || v > 16777215)
			return conn_err(h, H2E_PROTOCOL), -1;
		h->peer_frame = v;
		break;
	case NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES:
		if (v > 1 || (h->nopri != 2 && h->nopri != v)) /* set once (RFC 9218 2.1) */
			return conn_err(h, H2E_PROTOCOL), -1;
		h->nopri = (uint8_t)v;
		break;
	}
	return 0;
}

/* The peer's settings (a SETTINGS frame, or HTTP2-Settings): 0, or -1 with
 * the connection closing. WHY the last of each, and the smallest table size
 * first: nghttp2's session takes them so (RFC 7541 4.2 wants the smallest). */
static int settings_apply(struct h2x *h, const uint8_t *p, size_t len)
{
	struct { uint16_t id; uint32_t v; } iv[10];
	size_t n = 0, tab = SIZE_MAX;
	uint32_t low = UINT32_MAX;

	if (len % 6)
		return conn_err(h, H2E_FRAME_SIZE), -1;
	if (len / 6 > HX_MAX_SETTINGS)
		return conn_err(h, H2E_CALM), -1;
	for (; len; p += 6, len -= 6) {
		uint16_t id = (uint16_t)(p[0] << 8 | p[1]);
		uint32_t v = get32(p + 2);
		size_t i;

		if (!id || id > NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES || id == 7)
			continue; /* unknown: ignored (6.5.2) */
		for (i = 0; i < n && iv[i].id != id; i++)
			;
		if (i == n)
			n++;
		iv[i].id = id;
		iv[i].v = v;
		if (id == NGHTTP2_SETTINGS_HEADER_TABLE_SIZE) {
			tab = i;
			low = MIN(low, v);
		}
	}
	if (tab != SIZE_MAX && low < iv[tab].v) {
		iv[n].id = NGHTTP2_SETTINGS_HEADER_TABLE_SIZE;
		iv[n++].v = iv[tab].v;
		iv[tab].v = low;
	}
	for (size_t i = 0; i < n; i++)
		if (setting(h, iv[i].id, iv[i].v) < 0)
			return -1;
	if (h->nopri == 2)
		h->nopri = 0;
	return 0;
}

static void fr_settings(struct h2x *h, const uint8_t *p, uint32_t len)
{
	if (h->fsid)
		return conn_err(h, H2E_PROTOCOL);
	if (h->fflags & FL_ACK) {
		if (len)
			return conn_err(h, H2E_FRAME_SIZE);
		if (!h->acks_owed)
			return conn_err(h, H2E_PROTOCOL); /* an ACK of nothing */
		h->acks_owed--; /* WHY once: we send one SETTINGS, a second ACK was refused above */
		if (nghttp2_hd_inflate_change_table_size(h->inf, cfg.h2_table))
			return conn_err(h, H2E_INTERNAL);
		h->gen++;
		return;
	}
	if (settings_apply(h, p, len) < 0)
		return;
	if (!h->settings && cfg.h2_conn_window > 65535) {
		/* WHY only now: a client that never sent its preface gets the
		 * GOAWAY, nothing more than our SETTINGS before it */
		uint8_t inc[4];

		put32(inc, cfg.h2_conn_window - 65535);
		ctl_frame(h, FR_WINDOW, 0, 0, inc, 4);
	}
	h->settings = 1;
	ctl_frame(h, FR_SETTINGS, FL_ACK, 0, NULL, 0);
	if (++h->acks > HX_MAX_ACKS)
		conn_err(h, H2E_CALM);
}

static void fr_ping(struct h2x *h, const uint8_t *p, uint32_t len)
{
	if (len != 8)
		return conn_err(h, H2E_FRAME_SIZE);
	if (h->fsid)
		return conn_err(h, H2E_PROTOCOL);
	if (h->fflags & FL_ACK)
		return;
	ctl_frame(h, FR_PING, FL_ACK, 0, p, 8);
	if (++h->acks > HX_MAX_ACKS)
		conn_err(h, H2E_CALM);
}

static void fr_goaway(struct h2x *h, const uint8_t *p, uint32_t len)
{
	if (h->fsid)
		return conn_err(h, H2E_PROTOCOL);
	if (len < 8)
		return conn_err(h, H2E_FRAME_SIZE);
	if (get32(p) & WIN_MAX & 1) /* WHY: its last stream is one of ours, and we open none */
		return conn_err(h, H2E_PROTOCOL);
	/* WHY: an endpoint must not raise it (RFC 9113 6.8); nghttp2's session
	 * ends the connection when a later GOAWAY does (found by h2diff) */
	if ((get32(p) & WIN_MAX) > h->peer_last)
		return conn_err(h, H2E_PROTOCOL);
	h->peer_last = get32(p) & WIN_MAX;
	h->gone |= HX_RECV;
}

static void fr_window(struct h2x *h, const uint8_t *p, uint32_t len)
{
	uint32_t inc;
	struct h2s *s;

	if (len != 4)
		return conn_err(h, H2E_FRAME_SIZE);
	inc = get32(p) & WIN_MAX;
	if (!h->fsid) {
		if (!inc)
			return conn_err(h, H2E_PROTOCOL);
		if (h->win_out + inc > WIN_MAX)
			return conn_err(h, H2E_FLOW);
		h->win_out += inc;
		return;
	}
	if (idle(h, h->fsid))
		return conn_err(h, H2E_PROTOCOL);
	if (!(s = find(h, h->fsid)))
		return;
	if (!inc) /* WHY a connection error: as nghttp2's session */
		return conn_err(h, H2E_PROTOCOL);
	if (s->win_out + inc > WIN_MAX)
		return hx_rst(s, H2E_FLOW);
	s->win_out += inc;
}

static void frame(struct h2x *h, const uint8_t *p, uint32_t len)
{
	switch (h->ftype) {
	case FR_DATA: return fr_data(h, p, len);
	case FR_HEADERS: return fr_headers(h, p, len);
	case FR_PRIORITY: return fr_priority(h, p, len);
	case FR_RST: return fr_rst(h, p, len);
	case FR_SETTINGS: return fr_settings(h, p, len);
	case FR_PUSH: return conn_err(h, H2E_PROTOCOL); /* a client never promises */
	case FR_PING: return fr_ping(h, p, len);
	case FR_GOAWAY: return fr_goaway(h, p, len);
	case FR_WINDOW: return fr_window(h, p, len);
	case FR_CONT: return fr_cont(h, p, len);
	default: return; /* WHY: unknown types are ignored (RFC 9113 5.5) */
	}
}

/* a frame header read: whether its frame may follow (else the connection ends) */
static int frame_head(struct h2x *h)
{
	h->flen = (uint32_t)h->fh[0] << 16 | (uint32_t)h->fh[1] << 8 | h->fh[2];
	h->ftype = h->fh[3];
	h->fflags = h->fh[4];
	h->fsid = (int32_t)(get32(h->fh + 5) & WIN_MAX);
	if (h->flen > cfg.h2_frame)
		return conn_err(h, H2E_FRAME_SIZE), 0;
	/* WHY: a header block is one piece: nothing comes between its frames (6.10) */
	if (h->hb_sid && (h->ftype != FR_CONT || h->fsid != h->hb_sid))
		return conn_err(h, H2E_PROTOCOL), 0;
	if (!h->settings && (h->ftype != FR_SETTINGS || (h->fflags & FL_ACK))) /* the preface ends with SETTINGS (3.4) */
		return conn_err(h, H2E_PROTOCOL), 0;
	return 1;
}

static int hx_recv(struct h2c *c, const uint8_t *p, size_t n)
{
	struct h2x *h = HX(c);

	while (n && !(h->gone & HX_CLOSING) && !(c->flags & H2C_DEAD)) {
		size_t k;

		if (h->pre < PREFACE_LEN) {
			k = MIN(n, PREFACE_LEN - h->pre);
			if (memcmp(p, preface + h->pre, k)) {
				h->ctl.n = 0; /* WHY: a bad preface gets a GOAWAY, nothing else */
				return -1;
			}
			h->pre += (uint32_t)k;
			p += k, n -= k;
			continue;
		}
		if (h->fh_n < 9) {
			k = MIN(n, 9u - h->fh_n);
			memcpy(h->fh + h->fh_n, p, k);
			h->fh_n = (uint8_t)(h->fh_n + k);
			p += k, n -= k;
			if (h->fh_n < 9 || !frame_head(h))
				continue;
			h->fb.n = 0;
		}
		if (!h->fb.n && n >= h->flen) { /* all of it here: read in place */
			h->fh_n = 0;
			frame(h, p, h->flen);
			p += h->flen, n -= h->flen;
			continue;
		}
		if (buf_room(&h->fb, h->flen - h->fb.n) < 0)
			return -1;
		k = MIN(n, h->flen - h->fb.n);
		memcpy(h->fb.p + h->fb.n, p, k);
		h->fb.n += (uint32_t)k;
		p += k, n -= k;
		if (h->fb.n == h->flen) {
			h->fh_n = 0;
			h->fb.n = 0;
			frame(h, h->fb.p, h->flen);
		}
	}
	return 0;
}

/* ---------- frames out ---------- */

/* a header list as HEADERS and CONTINUATION frames into <ctl> */
static int headers_out(struct h2x *h, int32_t sid, const struct xs_nv *nv, size_t n, uint8_t flags)
{
	const struct hpk_field *f = xs_hpk(nv);
	size_t bound = hpk_bound(f, n), off = 0, len;
	uint8_t type = FR_HEADERS, *at;

	if (buf_room(&h->ctl, 9 + bound + 9 * (bound / h->peer_frame + 1)) < 0)
		return -1;
	at = h->ctl.p + h->ctl.n;
	len = hpk_encode(&h->def, at + 9, f, n);
	if (len <= h->peer_frame) { /* WHY the usual case: encoded in place, one frame */
		fr_head(at, len, FR_HEADERS, flags | FL_END_HEADERS, sid);
		h->ctl.n += (uint32_t)(9 + len);
		return 0;
	}
	h->enc.n = 0;
	if (buf_room(&h->enc, len) < 0)
		return -1;
	memcpy(h->enc.p, at + 9, len);
	do {
		size_t k = MIN(len - off, h->peer_frame);
		uint8_t fl = (uint8_t)((type == FR_HEADERS ? flags : 0) | (off + k == len ? FL_END_HEADERS : 0));

		fr_head(h->ctl.p + h->ctl.n, k, type, fl, sid);
		memcpy(h->ctl.p + h->ctl.n + 9, h->enc.p + off, k);
		h->ctl.n += (uint32_t)(9 + k);
		off += k;
		type = FR_CONT;
	} while (off < len);
	return 0;
}

static int hx_respond(struct h2s *s, const struct xs_nv *nv, size_t n, int body)
{
	struct h2x *h = HX(s->c);

	if (headers_out(h, s->id, nv, n, body ? 0 : FL_END_STREAM) < 0)
		return -1;
	if (!body) {
		local_end(h, s);
		return 0;
	}
	if (list_empty(&s->ready))
		list_add(h->ready.prev, &s->ready);
	return 0;
}

static int hx_info(struct h2s *s)
{
	static const struct xs_nv cont[] = { { (uint8_t *)":status", (uint8_t *)"100", 7, 3, 0 } };

	return headers_out(HX(s->c), s->id, cont, 1, 0);
}

static void hx_resume(struct h2s *s)
{
	struct h2x *h = HX(s->c);

	if (list_empty(&s->ready) && !(s->st & (H2S_LCLOSED | H2S_RESET)))
		list_add(h->ready.prev, &s->ready);
}

/* the body ended: its trailers <nv>, or an empty DATA with END_STREAM
 * when no frame carried it */
static void body_end(struct h2x *h, struct h2s *s, const struct xs_nv *nv, size_t nt, int carried)
{
	if (nt) {
		if (headers_out(h, s->id, nv, nt, FL_END_STREAM) < 0)
			return hx_rst(s, H2E_INTERNAL);
	} else if (!carried) {
		ctl_frame(h, FR_DATA, FL_END_STREAM, s->id, NULL, 0);
	}
	local_end(h, s);
}

/* one DATA frame of at most <max> bytes from the generator */
static void body_frame(struct h2x *h, struct h2s *s, size_t max)
{
	struct xs_nv nv[PLAN_MAX_FIELDS];
	char lbuf[PLAN_DEC_SIZE];
	struct ex_action a;
	uint8_t hd[9];
	enum h2_next r = h2s_next(s, max, &a);
	size_t nt = 0;

	switch (r) {
	case H2N_RESET:
		return hx_rst(s, H2E_INTERNAL);
	case H2N_WAIT:
		list_del(&s->ready); /* WHY: back on the list by ops->resume */
		return;
	case H2N_END:
		return body_end(h, s, nv, xs_trailers_nv(&s->x, nv, lbuf), 0);
	case H2N_LAST:
		nt = xs_trailers_nv(&s->x, nv, lbuf);
		break;
	case H2N_DATA:
		break;
	}
	fr_head(hd, a.len, FR_DATA, r == H2N_LAST && !nt ? FL_END_STREAM : 0, s->id);
	h2s_stage_body(h->c, s, hd, &a);
	s->win_out -= (int64_t)a.len;
	h->win_out -= (int64_t)a.len;
	if (r == H2N_LAST)
		body_end(h, s, nv, nt, 1);
}

/* one DATA frame of the WebSocket session's bytes, copied */
static int ws_frame(struct h2x *h, struct h2s *s, size_t max)
{
	struct oq *q = &h->c->oq;
	size_t room = oq_sc_room(q);
	uint8_t *hd;
	int eof = 0;
	size_t n;

	if (room < 9 + 1)
		return -1;
	hd = (uint8_t *)q->sc + q->sc_used;
	n = wss_out(s->wss, hd + 9, MIN(max, room - 9), &eof);
	if (!n && !eof) {
		list_del(&s->ready); /* WHY: back on the list by ws_kick */
		return 0;
	}
	fr_head(hd, n, FR_DATA, eof ? FL_END_STREAM : 0, s->id);
	oq_claim(q, 9 + n);
	s->win_out -= (int64_t)n;
	h->win_out -= (int64_t)n;
	if (eof)
		local_end(h, s);
	return 0;
}

/* a stream done with, or reset: back to the shell */
static int sweep(struct h2s *s)
{
	if (!(s->st & H2S_RESET) && (s->st & (H2S_LCLOSED | H2S_RCLOSED)) != (H2S_LCLOSED | H2S_RCLOSED))
		return 0;
	gone(HX(s->c), s, 0);
	return 1;
}

/* The next DATA frame, round robin over the streams that have one:
 * 1 made (or a stream left the list), 0 none can go now, -1 no room */
static int data_out(struct h2x *h)
{
	struct list *n, *tmp;

	list_each_safe(n, tmp, &h->ready) {
		struct h2s *s = list_elem(n, struct h2s, ready);
		size_t max;

		if (sweep(s))
			return 1;
		if (s->win_out <= 0 || h->win_out <= 0)
			continue;
		max = (size_t)MIN(MIN(s->win_out, h->win_out), (int64_t)h->peer_frame);
		if (!h2c_room(h->c, max))
			return -1;
		list_del(&s->ready);
		list_add(h->ready.prev, &s->ready); /* WHY: to the back, for the next stream's turn */
		if (s->wss)
			return ws_frame(h, s, max) < 0 ? -1 : 1;
		body_frame(h, s, max);
		return 1;
	}
	return 0;
}

static int hx_send(struct h2c *c)
{
	struct h2x *h = HX(c);

	for (;;) {
		int r;

		if (c->flags & H2C_DEAD)
			return -1;
		if (h->ctl.n) {
			if ((oq_iov_room(&c->oq) < 2 || c->oq.bytes >= H2_STAGE_MAX) && h2c_flush(c) <= 0)
				return c->flags & H2C_DEAD ? -1 : 0;
			if (h2c_stage(c, h->ctl.p, h->ctl.n) < 0)
				return c->flags |= H2C_DEAD, -1;
			h->ctl.n = 0;
			h->acks = 0;
		}
		if ((r = data_out(h)) == 0)
			break;
		if (r < 0 && h2c_flush(c) <= 0)
			return c->flags & H2C_DEAD ? -1 : 0;
	}
	return h2c_flush(c) < 0 ? -1 : 0;
}

static int hx_alive(struct h2c *c)
{
	struct h2x *h = HX(c);

	if (h->ctl.n)
		return 1;
	if (h->gone & HX_CLOSING)
		return 0;
	if (h->gone & (HX_SENT | HX_RECV))
		return c->nstreams > 0;
	return 1;
}

static void hx_goaway(struct h2c *c, uint32_t code)
{
	conn_err(HX(c), code);
}

static void hx_drain(struct h2c *c)
{
	struct h2x *h = HX(c);
	uint8_t p[8];

	if (h->gone & HX_SENT)
		return;
	put32(p, (uint32_t)h->last_sid);
	put32(p + 4, H2E_NO_ERROR);
	ctl_frame(h, FR_GOAWAY, 0, 0, p, 8);
	h->gone |= HX_SENT;
	h2c_sent_goaway(c, H2E_NO_ERROR);
}

static int64_t hx_window(struct h2c *c, struct h2s *s)
{
	return s ? s->win_out : HX(c)->win_out;
}

/* ---------- the connection ---------- */

static void hx_close(struct h2c *c)
{
	struct h2x *h = HX(c);

	if (!h)
		return;
	nghttp2_hd_inflate_del(h->inf);
	free(h->fb.p);
	free(h->ctl.p);
	free(h->enc.p);
	free(h);
}

static int hx_open(struct h2c *c)
{
	struct h2x *h = calloc(1, sizeof(*h));
	struct h2_setting set[H2_NSETTINGS];
	uint8_t p[6 * H2_NSETTINGS];

	if (!h)
		return -1;
	c->sess = h;
	h->c = c;
	list_init(&h->ready);
	h->peer_iwin = 65535;
	h->peer_frame = 16384;
	h->peer_last = WIN_MAX;
	h->win_out = 65535;
	h->win_in = cfg.h2_conn_window;
	hpk_init(&h->def, cfg.h2_enc_table);
	if (nghttp2_hd_inflate_new(&h->inf))
		return -1;
	h2_settings(set);
	for (int i = 0; i < H2_NSETTINGS; i++) {
		p[6 * i] = (uint8_t)(set[i].id >> 8), p[6 * i + 1] = (uint8_t)set[i].id;
		put32(p + 6 * i + 2, set[i].val);
	}
	ctl_frame(h, FR_SETTINGS, 0, 0, p, sizeof(p));
	h->acks_owed = 1;
	h->nopri = 2;
	return c->flags & H2C_DEAD ? -1 : 0;
}

static int hx_upgrade(struct h2c *c, struct h2s *s, const uint8_t *settings, size_t n, int head)
{
	struct h2x *h = HX(c);

	(void)head; /* WHY: the adopted exchange knows it was a HEAD */
	if (settings_apply(h, settings, n) < 0)
		return -1;
	h->last_sid = 1;
	stream_init(h, s);
	s->st = H2S_RCLOSED;
	return 0;
}

const struct h2_eng h2_eng_hx = {
	.open = hx_open,
	.close = hx_close,
	.upgrade = hx_upgrade,
	.recv = hx_recv,
	.send = hx_send,
	.alive = hx_alive,
	.goaway = hx_goaway,
	.drain = hx_drain,
	.rst = hx_rst,
	.respond = hx_respond,
	.info = hx_info,
	.resume = hx_resume,
	.window = hx_window,
};

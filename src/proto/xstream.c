/* A stream of a multiplexed protocol (h2, h3): its request header list, its exchange, its response fields. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "body.h"
#include "clock.h"
#include "config.h"
#include "fmt.h"
#include "gen.h"
#include "resp.h"
#include "session-t.h"
#include "xstream.h"

static void xs_timer_cb(struct loop *l, struct timer *t);

/* no header text yet: hb points here, never written (WHY not NULL: the
 * request's strings are made from it, and NULL + 0 is undefined) */
static char hb_none[1];

/* a thread's spare XS_HB_SIZE buffers, each's first bytes the next's
 * address. WHY a pool: a stream's head is 1 KiB it needs only until the
 * answer's head is sent; inline it was 1 KiB of every open stream */
static __thread void *hb_pool;
static __thread unsigned hb_npool;

/* the stream's header text given back: pooled when of the pool's size */
static void hb_put(struct xstream *s)
{
	if (!s->hb_cap)
		return;
	if (likely(s->hb_cap == XS_HB_SIZE && hb_npool < XS_HB_KEEP)) {
		*(void **)(void *)s->hb = hb_pool;
		hb_pool = s->hb;
		hb_npool++;
	} else {
		free(s->hb);
	}
	s->hb = hb_none;
	s->hb_cap = 0;
}

void xs_thread_free(void)
{
	while (hb_pool) {
		void *b = hb_pool;

		memcpy(&hb_pool, b, sizeof(void *));
		free(b);
	}
	hb_npool = 0;
}

void xs_init(struct xstream *s, struct worker *w, const struct xs_ops *ops, enum st_proto sp, uint32_t nreq,
	     struct cpeer peer, int64_t t_first)
{
	s->flags = 0;
	s->tm = (struct timer){ 0, 0, xs_timer_cb };
	s->loop = &w->loop;
	s->ops = ops;
	s->w = w;
	s->sp = (uint8_t)sp;
	s->nreq = nreq;
	s->peer = peer;
	s->body_read = 0;
	ex_new(&s->ex);
	s->hb = hb_none;
	s->hb_len = 0;
	s->hb_cap = 0;
	s->path_len = s->xhx_len = 0;
	s->path_off = s->xhx_off = 0;
	memset(&s->ex.rq, 0, sizeof(s->ex.rq));
	s->ex.rq.t_first = t_first;
}

void xs_release(struct xstream *s)
{
	loop_cancel(s->loop, &s->tm);
	ex_done(&s->ex);
	hb_put(s);
}

size_t xs_hint_nv(struct xstream *s, struct xs_nv *nv)
{
	const struct hfield *f = ex_hint_take(&s->ex);

	if (!f)
		return 0;
	nv[0] = (struct xs_nv){ (uint8_t *)":status", (uint8_t *)"103", 7, 3, 0 };
	nv[1] = (struct xs_nv){ (uint8_t *)"link", (uint8_t *)(uintptr_t)f->val, 4, f->vlen, 0 };
	return 2;
}

void xs_head_sent(struct xstream *s)
{
	/* WHY kept for E=1: its body is the head's text, sent after */
	if (!ex_echo(&s->ex))
		hb_put(s);
}

/* room for <need> bytes of header text past the pool's buffer: twice as
 * much each time */
static int hb_grow_big(struct xstream *s, size_t need)
{
	size_t cap = MAX(need, (size_t)s->hb_cap * 2);
	char *nb = malloc(cap);

	if (!nb)
		return -1;
	if (s->hb_len)
		memcpy(nb, s->hb, s->hb_len);
	hb_put(s);
	s->hb = nb;
	s->hb_cap = (uint32_t)cap;
	return 0;
}

/* room for <need> bytes of header text: the pool's buffer first */
static int hb_grow(struct xstream *s, size_t need)
{
	char *nb = hb_pool;

	if (unlikely(s->hb_cap || need > XS_HB_SIZE))
		return hb_grow_big(s, need);
	if (likely(nb != NULL)) {
		hb_pool = *(void **)(void *)nb;
		hb_npool--;
	} else if (!(nb = malloc(XS_HB_SIZE))) {
		return -1;
	}
	s->hb = nb;
	s->hb_cap = XS_HB_SIZE;
	return 0;
}

void xs_body_in(struct xstream *s, const uint8_t *p, size_t n)
{
	s->body_read += n;
	if (unlikely(ex_wants_body(&s->ex)))
		ex_body_in(&s->ex, (const char *)p, n);
}

/* the first field of a conditional request: the others are absent so far
 * (WHY here, not for each stream: most have none, bench/cg) */
static void xs_cond_seen(struct xstream *s)
{
	if (!(s->flags & XS_COND)) {
		s->flags |= XS_COND;
		s->inm_off = s->im_off = s->ims_off = s->ius_off = s->range_off = s->ifr_off = 0;
	}
}

/* Records where the fields the exchange reads are (:path, :method,
 * :protocol, X-Hxterm, the validators, Range, Expect). WHY by the name's
 * length, then one letter: each other header (:scheme, accept, user-agent)
 * costs a jump and one compare at most (bench/cg) */
static void field_at(struct xstream *s, const uint8_t *n, size_t nl, const uint8_t *v, size_t vl, uint32_t off)
{
#define AT(o, l) (s->o##_off = off, s->o##_len = (uint32_t)vl)
/* a list field's first line is kept, the others read from hb; a second
 * line of a single-valued field leaves it empty, which no value matches */
#define LIST(o) (xs_cond_seen(s), s->o##_off ? (void)(s->flags |= XS_LISTS) : (void)AT(o, vl))
#define ONE(o)  (xs_cond_seen(s), s->o##_off ? (void)(s->o##_len = 0) : (void)AT(o, vl))
	switch (nl) {
	case 5:
		if (!memcmp(n, ":path", 5))
			AT(path, vl);
		else if (!memcmp(n, "range", 5))
			(void)(xs_cond_seen(s), AT(range, vl));
		break;
	case 6:
		if (n[0] == 'e' && !memcmp(n, "expect", 6) && vl == 12 && !strncasecmp((const char *)v, "100-continue", 12))
			s->flags |= XS_EXPECT;
		break;
	case 7:
		if (n[1] == 'm' && !memcmp(n, ":method", 7))
			s->flags |= vl == 3 && !memcmp(v, "GET", 3) ? XS_GET : vl == 4 && !memcmp(v, "HEAD", 4) ? XS_HEAD :
				    vl == 7 && !memcmp(v, "CONNECT", 7) ? XS_CONNECT : 0;
		break;
	case 8:
		if (n[0] == 'x' && !memcmp(n, "x-hxterm", 8) && !s->xhx_len)
			AT(xhx, vl);
		else if (n[0] == 'i' && !memcmp(n, "if-range", 8))
			ONE(ifr);
		else if (n[0] == 'i' && !memcmp(n, "if-match", 8))
			LIST(im);
		break;
	case 9:
		if (n[0] == ':' && !memcmp(n, ":protocol", 9) && vl == 9 && !strncasecmp((const char *)v, "websocket", 9))
			s->flags |= XS_WSPROTO;
		break;
	case 12:
		if (n[0] == 'c' && vl >= 16 && !memcmp(n, "content-type", 12) && !strncasecmp((const char *)v, "application/grpc", 16))
			s->flags |= XS_GRPC;
		break;
	case 13:
		if (n[0] == 'i' && !memcmp(n, "if-none-match", 13))
			LIST(inm);
		break;
	case 17:
		if (n[0] == 'i' && !memcmp(n, "if-modified-since", 17))
			ONE(ims);
		break;
	case 19:
		if (n[0] == 'i' && !memcmp(n, "if-unmodified-since", 19))
			ONE(ius);
		break;
	}
#undef ONE
#undef LIST
#undef AT
}

/* room for <need> bytes of header lines in hb: 0, or -1 with the reason in the flags */
static int hb_room(struct xstream *s, size_t need)
{
	if (need > cfg.iobuf) {
		s->flags |= XS_TOOBIG;
		return -1;
	}
	/* WHY: a header that cannot be kept is answered, never dropped */
	if (need > s->hb_cap && hb_grow(s, need) < 0) {
		s->flags |= XS_NOMEM;
		return -1;
	}
	return 0;
}

int xs_header(struct xstream *s, const uint8_t *n, size_t nl, const uint8_t *v, size_t vl)
{
	size_t need = s->hb_len + nl + vl + 4;
	uint32_t off;

	if (hb_room(s, need) < 0)
		return -1;
	off = s->hb_len + (uint32_t)xs_line_put(s->hb + s->hb_len, n, nl, v, vl);
	s->hb_len = (uint32_t)need;
	field_at(s, n, nl, v, vl, off);
	return 0;
}

/* WHY one copy: a replayed block's fields one by one through xs_header cost
 * four copies and the room checks each, 400 instructions an h3 request */
int xs_header_lines(struct xstream *s, const uint8_t *text, size_t len, const struct xs_at *at, unsigned n)
{
	uint32_t base = s->hb_len;
	const uint8_t *b;

	if (!n)
		return 0;
	if (hb_room(s, base + len) < 0)
		return -1;
	b = memcpy(s->hb + base, text, len);
	s->hb_len = base + (uint32_t)len;
	for (unsigned i = 0; i < n; i++)
		field_at(s, b + at[i].no, at[i].nl, b + at[i].vo, at[i].vl, base + at[i].vo);
	return 0;
}

int xs_adopt(struct xstream *s, const struct exch *src)
{
	const struct ist echo = src->rq.echo;

	if (echo.len > s->hb_cap && hb_grow(s, echo.len) < 0)
		return -1;
	memcpy(s->hb, echo.ptr, echo.len);
	s->hb_len = (uint32_t)echo.len;
	ex_adopt(&s->ex, src, s->hb);
	s->flags |= XS_HEADERS | (src->rq.flags & RQ_HEAD ? XS_HEAD : 0);
	return 0;
}

/* an extended CONNECT is a WebSocket's (ex_ws); another CONNECT a 501 */
static void xs_ws_plan(struct xstream *s)
{
	int ws = (s->flags & (XS_CONNECT | XS_WSPROTO)) == (XS_CONNECT | XS_WSPROTO);

	ex_ws(&s->ex, ws);
	if ((s->flags & XS_CONNECT) && !ws && !ex_refused(&s->ex))
		ex_refuse(&s->ex, 501, "CONNECT is not supported (but for a WebSocket, :protocol websocket)");
}

/* a value in hb at <off> (0: the field is absent) */
static struct ist hb_at(const struct xstream *s, uint32_t off, uint32_t len)
{
	return off ? (struct ist){ s->hb + off, len } : (struct ist){ NULL, 0 };
}

/* the request's conditional fields, from where field_at found them */
static void xs_cond(const struct xstream *s, struct hreq *rq)
{
	rq->flags |= RQ_COND | (s->flags & XS_LISTS ? RQ_LISTS : 0);
	rq->c = (struct hcond){
		.inm = hb_at(s, s->inm_off, s->inm_len), .im = hb_at(s, s->im_off, s->im_len),
		.ims = hb_at(s, s->ims_off, s->ims_len), .ius = hb_at(s, s->ius_off, s->ius_len),
		.range = hb_at(s, s->range_off, s->range_len), .if_range = hb_at(s, s->ifr_off, s->ifr_len),
	};
}

void xs_headers_done(struct xstream *s, struct rng *r)
{
	struct hreq *rq = &s->ex.rq;

	s->flags |= XS_HEADERS;
	rq->t_head = clock_ns();
	rq->head_size = s->hb_len;
	rq->flags = (s->flags & XS_HEAD ? RQ_HEAD : 0) | (s->flags & XS_GET ? RQ_GET : 0) |
		    (s->flags & XS_EARLY ? RQ_EARLY : 0) | (s->flags & XS_GRPC ? RQ_GRPC : 0) | RQ_CAN_CHUNK;
	rq->target = (struct ist){ s->hb + s->path_off, s->path_len };
	/* WHY one test: most requests have none, and xs_init zeroed rq->c */
	if (unlikely(s->flags & XS_COND))
		xs_cond(s, rq);
	rq->xhx = (struct ist){ s->hb + s->xhx_off, s->xhx_len };
	rq->echo = (struct ist){ s->hb, s->hb_len };
	if (s->flags & XS_TOOBIG)
		ex_refuse(&s->ex, 431, "request header list larger than the buffer (--bufsize)");
	else if (s->flags & XS_NOMEM)
		ex_refuse(&s->ex, 431, "request header list could not be stored (out of memory)");
	else
		ex_plan(&s->ex, &cfg.gen, r);
	xs_ws_plan(s);
	rq->client = cinfo_for(s->peer, &s->ex);
}

int xs_answer_now(const struct xstream *s, int end)
{
	return end || ex_answer_early(&s->ex, s->body_read);
}

/* the t= wait is over, or a drip after a piece */
static void xs_timer_cb(struct loop *l, struct timer *t)
{
	struct xstream *s = container_of(t, struct xstream, tm);
	uint64_t now = (uint64_t)clock_ns() / 1000;

	(void)l;
	st_late(&s->w->st, now > t->expire ? now - t->expire : 0);
	if (s->flags & XS_RESPONDED) {
		ex_resume(&s->ex);
		s->ops->resume(s);
	} else {
		s->ops->respond(s);
	}
	s->ops->run(s);
}

void xs_ready(struct xstream *s)
{
	uint64_t until;

	if (s->flags & XS_READY)
		return;
	s->flags |= XS_READY;
	until = ex_wait_until(&s->ex, &cfg.gen);
	if (!until)
		s->ops->respond(s);
	else if (loop_arm(s->loop, &s->tm, until) < 0)
		s->ops->fail(s);
}

int xs_pause(struct xstream *s, uint64_t until)
{
	return loop_arm(s->loop, &s->tm, until);
}

void xs_respond(struct xstream *s)
{
	int64_t now = clock_ns();

	s->flags |= XS_RESPONDED;
	ex_respond(&s->ex, &cfg.gen, now);
	st_response(&s->w->st, (enum st_proto)s->sp, s->ex.rs.status, now - s->ex.rq.t_head,
		    s->ex.rq.flags & RQ_EARLY, s->ex.plan.ign_len);
	if (s->w->alog)
		alog_write(s->w, (enum st_proto)s->sp, &s->ex, s->peer, s->nreq, now - s->ex.rq.t_head);
}

/* connection-specific fields are forbidden in HTTP/2 and HTTP/3. WHY by
 * length first: every field of a head passes here, and most have none of
 * these lengths (a loop over the five names cost 120 instructions an h3
 * response) */
static int forbidden(const char *n, uint32_t len)
{
	switch (len) {
	case 7:
		return !strncasecmp(n, "upgrade", 7);
	case 10:
		return !strncasecmp(n, "connection", 10) || !strncasecmp(n, "keep-alive", 10);
	case 16:
		return !strncasecmp(n, "proxy-connection", 16);
	case 17:
		return !strncasecmp(n, "transfer-encoding", 17);
	}
	return 0;
}

/* <f> as a field of a multiplexed head: its literal lower-case name
 * (XS_NV_STATIC_NAME), else its name lower-cased into <*lbuf>. WHY inline
 * with the lower-casing apart: most names are literals (124 instructions an
 * h3 response as one call) */
static void lower_into(struct xs_nv *o, const struct hfield *f, char **lbuf)
{
	for (uint32_t i = 0; i < f->nlen; i++)
		(*lbuf)[i] = (char)tolower((unsigned char)f->name[i]);
	o->name = (uint8_t *)*lbuf;
	o->flags = 0;
	*lbuf += f->nlen;
}

static inline struct xs_nv nv_lower(const struct hfield *f, char **lbuf)
{
	struct xs_nv o = { (uint8_t *)f->lname, (uint8_t *)f->val, f->nlen, f->vlen, XS_NV_STATIC_NAME };

	if (!f->lname)
		lower_into(&o, f, lbuf);
	return o;
}

/* the most fields the head may have: :status, content-length, the
 * response's, its padding */
static size_t head_max(const struct xstream *s)
{
	return (size_t)s->ex.rs.nf + (size_t)(s->ex.rs.pad / PAD_RUN) + 2 + 2;
}

/* the head's fields without malloc when they fit (no z= padding) */
static __thread struct xs_nv nv_inl[RESP_MAX_FIELDS + 4];

/* WHY straight into nv pairs: through a list of neutral fields first, then
 * copied, the head cost 600 instructions an h3 response (callgrind) */
long xs_head_nv(struct xstream *s, struct xs_nv **nv)
{
	static __thread struct {
		char st[8];
		char cl[24];
		char lbuf[PLAN_DEC_SIZE + 64];
	} h;
	const struct hfield *rf;
	char *lbuf = h.lbuf;
	struct xs_nv *o;
	size_t max, n = 0;
	struct hfield f;

	xs_respond(s);
	max = head_max(s);
	o = max > ARRAY_SIZE(nv_inl) ? malloc(max * sizeof(*o)) : nv_inl;
	if (!o)
		return -1;
	*fmt_u64(h.st, s->ex.rs.status) = 0;
	o[n++] = (struct xs_nv){ (uint8_t *)":status", (uint8_t *)h.st, 7, 3, XS_NV_STATIC_NAME };
	if (s->ex.rs.clen >= 0)
		o[n++] = (struct xs_nv){ (uint8_t *)"content-length", (uint8_t *)h.cl, 14,
					 (size_t)(fmt_u64(h.cl, (uint64_t)s->ex.rs.clen) - h.cl), XS_NV_STATIC_NAME };
	rf = s->ex.rs.f;
	for (int i = 0; i < s->ex.rs.nf; i++)
		if (!forbidden(rf[i].name, rf[i].nlen))
			o[n++] = nv_lower(&rf[i], &lbuf);
	while (n < max && resp_pad_next(&s->ex.rs, &f)) /* WHY the literal: a multiplexed head has lower-case names only */
		o[n++] = (struct xs_nv){ (uint8_t *)f.lname, (uint8_t *)f.val, f.nlen, f.vlen, XS_NV_STATIC_NAME };
	*nv = o;
	return (long)n;
}

void xs_nv_done(struct xs_nv *nv)
{
	if (nv != nv_inl)
		free(nv);
}

size_t xs_trailers_nv(const struct xstream *s, struct xs_nv *nv, char *lbuf)
{
	size_t nt, n = 0;
	const struct hfield *t = ex_trailers(&s->ex, &nt);

	for (size_t i = 0; i < nt; i++)
		if (!forbidden(t[i].name, t[i].nlen))
			nv[n++] = nv_lower(&t[i], &lbuf);
	return n;
}

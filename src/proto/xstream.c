/* One request/response exchange of a multiplexed protocol (h2, h3): headers, plan, body cursor. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "body.h"
#include "clock.h"
#include "fmt.h"
#include "config.h"
#include "plan.h"
#include "resp.h"
#include "xstream.h"

void xs_init(struct xstream *s)
{
	s->flags = 0;
	s->body_read = 0;
	s->hb = s->hb_inline;
	s->hb_len = 0;
	s->hb_cap = XS_HB_INLINE;
	s->path_len = s->xhx_len = s->inm_len = 0;
	s->path_off = s->xhx_off = s->inm_off = 0;
	memset(&s->rq, 0, sizeof(s->rq));
	s->rq.t_first = clock_ns();
}

void xs_release(struct xstream *s)
{
	if (s->hb != s->hb_inline)
		free(s->hb);
	s->hb = s->hb_inline;
}

static int hb_grow(struct xstream *s, size_t need)
{
	size_t cap = MAX(need, (size_t)s->hb_cap * 2);
	char *nb = malloc(cap);

	if (!nb)
		return -1;
	memcpy(nb, s->hb, s->hb_len);
	if (s->hb != s->hb_inline)
		free(s->hb);
	s->hb = nb;
	s->hb_cap = (uint32_t)cap;
	return 0;
}

static int is_name(const uint8_t *n, size_t nl, const char *lit)
{
	return nl == strlen(lit) && !memcmp(n, lit, nl);
}

int xs_header(struct xstream *s, const uint8_t *n, size_t nl, const uint8_t *v, size_t vl)
{
	size_t need = s->hb_len + nl + vl + 4;
	uint32_t off;

	if (need > cfg.iobuf) {
		s->flags |= XS_TOOBIG;
		return -1;
	}
	if (need > s->hb_cap && hb_grow(s, need) < 0)
		return -1;
	memcpy(s->hb + s->hb_len, n, nl);
	memcpy(s->hb + s->hb_len + nl, ": ", 2);
	off = s->hb_len + (uint32_t)nl + 2;
	memcpy(s->hb + off, v, vl);
	memcpy(s->hb + off + vl, "\r\n", 2);
	s->hb_len = (uint32_t)need;
	if (is_name(n, nl, ":path"))
		s->path_off = off, s->path_len = (uint32_t)vl;
	else if (is_name(n, nl, "x-hxterm") && !s->xhx_len)
		s->xhx_off = off, s->xhx_len = (uint32_t)vl;
	else if (is_name(n, nl, "if-none-match"))
		s->inm_off = off, s->inm_len = (uint32_t)vl;
	else if (is_name(n, nl, ":method") && vl == 4 && !memcmp(v, "HEAD", 4))
		s->flags |= XS_HEAD;
	else if (is_name(n, nl, "expect") && vl == 12 && !strncasecmp((const char *)v, "100-continue", 12))
		s->flags |= XS_EXPECT;
	return 0;
}

/* an ist inside <from>, as an offset */
static uint32_t rebase(struct ist v, const char *from, uint32_t *len)
{
	*len = (uint32_t)v.len;
	return v.len ? (uint32_t)(v.ptr - from) : 0;
}

int xs_adopt(struct xstream *s, const struct hreq *rq, struct ist xhx)
{
	if (rq->echo.len > s->hb_cap && hb_grow(s, rq->echo.len) < 0)
		return -1;
	memcpy(s->hb, rq->echo.ptr, rq->echo.len);
	s->hb_len = (uint32_t)rq->echo.len;
	if (rq->flags & RQ_HEAD)
		s->flags |= XS_HEAD;
	s->path_off = rebase(rq->target, rq->echo.ptr, &s->path_len);
	s->inm_off = rebase(rq->inm, rq->echo.ptr, &s->inm_len);
	s->xhx_off = rebase(xhx, rq->echo.ptr, &s->xhx_len);
	s->rq.t_first = rq->t_first;
	return 0;
}

void xs_headers_done(struct xstream *s, struct rng *r)
{
	struct plan_limits lim = { cfg.max_size, cfg.max_wait };
	struct plan *p = &s->plan;
	const char *q;
	size_t qlen;
	int bad;

	s->flags |= XS_HEADERS;
	s->rq.t_head = clock_ns();
	s->rq.head_size = s->hb_len;
	s->rq.flags = (s->flags & XS_HEAD ? RQ_HEAD : 0) | RQ_CAN_CHUNK;
	s->rq.target = (struct ist){ s->hb + s->path_off, s->path_len };
	s->rq.inm = (struct ist){ s->hb + s->inm_off, s->inm_len };
	s->rq.echo = (struct ist){ s->hb, s->hb_len };
	plan_init(p);
	if (s->flags & XS_TOOBIG) {
		p->flags = PF_BAD;
		p->status = 431;
		snprintf(p->err, sizeof(p->err), "%s", "request header list larger than the buffer (--bufsize)\n");
		return;
	}
	bad = cfg.defaults && plan_apply(p, cfg.defaults, strlen(cfg.defaults), r, &lim) < 0;
	if (!bad && s->xhx_len)
		bad = plan_apply(p, s->hb + s->xhx_off, s->xhx_len, r, &lim) < 0;
	if (!bad && plan_query_of(s->rq.target.ptr, s->rq.target.len, &q, &qlen))
		bad = plan_apply(p, q, qlen, r, &lim) < 0;
	if (bad) {
		p->flags = PF_BAD;
		p->status = 400;
	}
}

int xs_answer_now(const struct xstream *s, int end)
{
	const struct plan *p = &s->plan;

	return end || (p->flags & (PF_ACKFIRST | PF_BAD)) ||
	       ((p->flags & PF_BODYMAX) && s->body_read >= p->body_max);
}

int xs_ready(struct xstream *s, uint64_t *until)
{
	if (s->flags & XS_READY)
		return -1;
	s->flags |= XS_READY;
	if (!s->plan.wait_ms)
		return 0;
	*until = clock_us_after_ms(s->plan.wait_ms);
	return 1;
}

uint64_t xs_drip(struct xstream *s, uint64_t now_us)
{
	s->flags |= XS_DRIP;
	return now_us + s->plan.drip_ms * 1000;
}

int xs_timer_fired(struct xstream *s)
{
	if (!(s->flags & XS_DRIP))
		return 0;
	s->flags &= ~XS_DRIP;
	s->piece_left = s->plan.piece;
	return 1;
}

void xs_respond(struct xstream *s)
{
	const struct plan *p = &s->plan;

	s->flags |= XS_RESPONDED;
	resp_build(&s->rs, &s->rq, p, (struct ist){ cfg.name, cfg.name_len }, clock_ns());
	s->out_off = 0;
	s->out_end = s->rs.body;
	if ((p->flags & (PF_RESET | PF_TRUNC)) && p->fault_at < s->out_end)
		s->out_end = p->fault_at;
	s->piece_left = p->piece;
}

/* connection-specific fields are forbidden in HTTP/2 and HTTP/3 */
static int forbidden(const struct hfield *f)
{
#define BAD(s) { s, sizeof(s) - 1 }
	static const struct { const char *s; uint32_t n; } bad[] = {
		BAD("connection"), BAD("keep-alive"), BAD("proxy-connection"),
		BAD("transfer-encoding"), BAD("upgrade"),
	};
#undef BAD

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (f->nlen == bad[i].n && !strncasecmp(f->name, bad[i].s, f->nlen))
			return 1;
	return 0;
}

/* <f> with a lower-case name, lower-cased into <*lbuf> when needed */
static struct hfield lower(const struct hfield *f, char **lbuf)
{
	struct hfield o = *f;

	if (!f->lname) {
		for (uint32_t i = 0; i < f->nlen; i++)
			(*lbuf)[i] = (char)tolower((unsigned char)f->name[i]);
		o.lname = *lbuf;
		*lbuf += f->nlen;
	}
	o.name = o.lname;
	return o;
}

size_t xs_field_count(const struct xstream *s)
{
	return (size_t)s->rs.nf + (size_t)(s->rs.pad / PAD_RUN) + 2;
}

size_t xs_fields(struct xstream *s, struct hfield *out, size_t max, char *lbuf)
{
	struct hfield f;
	size_t n = 0;

	for (int i = 0; i < s->rs.nf && n < max; i++)
		if (!forbidden(&s->rs.f[i]))
			out[n++] = lower(&s->rs.f[i], &lbuf);
	while (n < max && resp_pad_next(&s->rs, &f))
		out[n++] = f;
	return n;
}

size_t xs_trailers(const struct xstream *s, struct hfield *out, char *lbuf)
{
	size_t n = 0;

	for (int i = 0; i < s->plan.ntrl; i++)
		if (!forbidden(&s->plan.trl[i]))
			out[n++] = lower(&s->plan.trl[i], &lbuf);
	return n;
}

size_t xs_body_next(struct xstream *s, uint64_t max, const char **ptr)
{
	uint64_t n = MIN(max, s->out_end - s->out_off);

	if (!n)
		return 0;
	if (s->rs.src == BODY_TEXT) {
		*ptr = s->rs.text.ptr + s->out_off;
	} else {
		n = body_slice(s->out_off, (size_t)n, s->rs.src == BODY_RANDOM, ptr);
	}
	s->out_off += n;
	return (size_t)n;
}

int xs_head(struct xstream *s, struct xs_head *h)
{
	size_t max;

	xs_respond(s);
	max = xs_field_count(s);
	h->f = h->inl;
	if (max + 2 > ARRAY_SIZE(h->inl) && !(h->f = malloc((max + 2) * sizeof(*h->f))))
		return -1;
	h->n = 0;
	*fmt_u64(h->st, s->rs.status) = 0;
	h->f[h->n++] = (struct hfield){ .name = ":status", .val = h->st, .nlen = 7, .vlen = 3 };
	if (s->rs.clen >= 0)
		h->f[h->n++] = (struct hfield){ .name = "content-length", .val = h->cl, .nlen = 14,
			.vlen = (uint32_t)(fmt_u64(h->cl, (uint64_t)s->rs.clen) - h->cl) };
	h->n += xs_fields(s, h->f + h->n, max, h->lbuf);
	return 0;
}

void xs_head_done(struct xs_head *h)
{
	if (h->f != h->inl)
		free(h->f);
	h->f = NULL;
}

int xs_has_body(const struct xstream *s)
{
	const struct plan *p = &s->plan;

	return s->rs.body || (p->ntrl && !(s->flags & XS_HEAD)) || (p->flags & (PF_RESET | PF_TRUNC));
}

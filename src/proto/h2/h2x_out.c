/* Our HTTP/2 engine's frames out: response heads by our HPACK encoder, DATA by the flow-control windows, a WebSocket's bytes, trailers, GOAWAY. */
#include "h2x.h"
#include "wss.h"


/* WHY: the heads of a burst (100 HEADERS in one read) grew <ctl> to
 * 16 KiB, touched pages kept while their streams were held; what it holds
 * moves to the queue's buffer first, in the same order, as hx_send would */
static void ctl_stage_early(struct h2x *h, size_t need)
{
	if (h->ctl.n && h->ctl.n + need > h->ctl.cap && h->ctl.n + need > HX_CTL_KEEP &&
	    h2c_stage_copy(h->c, h->ctl.p, h->ctl.n) == 0)
		h->ctl.n = 0;
}

/* a header list as HEADERS and CONTINUATION frames into <ctl> */
static int headers_out(struct h2x *h, int32_t sid, const struct xs_nv *nv, size_t n, uint8_t flags)
{
	const struct hpk_field *f = xs_hpk(nv);
	size_t bound = hpk_bound(f, n), off = 0, len;
	uint8_t type = FR_HEADERS, *at;

	size_t need = 9 + bound + 9 * (bound / h->peer_frame + 1);

	if (!hx_work(h))
		return -1;
	ctl_stage_early(h, need);
	if (hx_buf_room(&h->ctl, need) < 0)
		return -1;
	at = h->ctl.p + h->ctl.n;
	len = hpk_encode(&h->w->def, at + 9, f, n);
	if (len <= h->peer_frame) { /* WHY the usual case: encoded in place, one frame */
		hx_fr_head(at, len, FR_HEADERS, flags | FL_END_HEADERS, sid);
		h->ctl.n += (uint32_t)(9 + len);
		return 0;
	}
	h->enc.n = 0;
	if (hx_buf_room(&h->enc, len) < 0)
		return -1;
	memcpy(h->enc.p, at + 9, len);
	do {
		size_t k = MIN(len - off, h->peer_frame);
		uint8_t fl = (uint8_t)((type == FR_HEADERS ? flags : 0) | (off + k == len ? FL_END_HEADERS : 0));

		hx_fr_head(h->ctl.p + h->ctl.n, k, type, fl, sid);
		memcpy(h->ctl.p + h->ctl.n + 9, h->enc.p + off, k);
		h->ctl.n += (uint32_t)(9 + k);
		off += k;
		type = FR_CONT;
	} while (off < len);
	return 0;
}

int hx_respond(struct h2s *s, const struct xs_nv *nv, size_t n, int body)
{
	struct h2x *h = HX(s->c);

	if (headers_out(h, s->id, nv, n, body ? 0 : FL_END_STREAM) < 0)
		return -1;
	if (!body) {
		hx_local_end(h, s);
		return 0;
	}
	if (list_empty(&HXS(s)->ready))
		list_add(h->ready.prev, &HXS(s)->ready);
	return 0;
}

int hx_info(struct h2s *s, const struct xs_nv *nv, size_t n)
{
	return headers_out(HX(s->c), s->id, nv, n, 0);
}

void hx_resume(struct h2s *s)
{
	struct h2x *h = HX(s->c);

	if (list_empty(&HXS(s)->ready) && !(HXS(s)->st & (H2S_LCLOSED | H2S_RESET)))
		list_add(h->ready.prev, &HXS(s)->ready);
}

/* the body ended: its trailers <nv>, or an empty DATA with END_STREAM
 * when no frame carried it */
static void body_end(struct h2x *h, struct h2s *s, const struct xs_nv *nv, size_t nt, int carried)
{
	if (nt) {
		if (headers_out(h, s->id, nv, nt, FL_END_STREAM) < 0)
			return hx_rst(s, H2E_INTERNAL);
	} else if (!carried) {
		hx_ctl(h, FR_DATA, FL_END_STREAM, s->id, NULL, 0);
	}
	hx_local_end(h, s);
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
		list_del(&HXS(s)->ready); /* WHY: back on the list by ops->resume */
		return;
	case H2N_END:
		return body_end(h, s, nv, xs_trailers_nv(&s->x, nv, lbuf), 0);
	case H2N_LAST:
		nt = xs_trailers_nv(&s->x, nv, lbuf);
		break;
	case H2N_DATA:
		break;
	}
	hx_fr_head(hd, a.len, FR_DATA, r == H2N_LAST && !nt ? FL_END_STREAM : 0, s->id);
	h2s_stage_body(h->c, s, hd, &a);
	HXS(s)->win_out -= (int64_t)a.len;
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
		list_del(&HXS(s)->ready); /* WHY: back on the list by ws_kick */
		return 0;
	}
	hx_fr_head(hd, n, FR_DATA, eof ? FL_END_STREAM : 0, s->id);
	oq_claim(q, 9 + n);
	HXS(s)->win_out -= (int64_t)n;
	h->win_out -= (int64_t)n;
	if (eof)
		hx_local_end(h, s);
	return 0;
}

/* a stream done with, or reset: back to the shell */
static int sweep(struct h2s *s)
{
	if (!(HXS(s)->st & H2S_RESET) && (HXS(s)->st & (H2S_LCLOSED | H2S_RCLOSED)) != (H2S_LCLOSED | H2S_RCLOSED))
		return 0;
	hx_gone(HX(s->c), s, 0);
	return 1;
}

/* The next DATA frame, round robin over the streams that have one:
 * 1 made (or a stream left the list), 0 none can go now, -1 no room */
static int data_out(struct h2x *h)
{
	struct list *n, *tmp;

	list_each_safe(n, tmp, &h->ready) {
		struct h2s *s = &list_elem(n, struct hxs, ready)->s;
		size_t max;

		if (sweep(s))
			return 1;
		if (HXS(s)->win_out <= 0 || h->win_out <= 0)
			continue;
		max = (size_t)MIN(MIN(HXS(s)->win_out, h->win_out), (int64_t)h->peer_frame);
		if (!h2c_room(h->c, max))
			return -1;
		list_del(&HXS(s)->ready);
		list_add(h->ready.prev, &HXS(s)->ready); /* WHY: to the back, for the next stream's turn */
		if (s->wss)
			return ws_frame(h, s, max) < 0 ? -1 : 1;
		body_frame(h, s, max);
		return 1;
	}
	return 0;
}

int hx_send(struct h2c *c)
{
	struct h2x *h = HX(c);

	for (;;) {
		int r;

		if (c->t.nc.flags & H2C_DEAD)
			return -1;
		if (h->ctl.n) {
			if ((oq_iov_room(&c->oq) < 2 || c->oq.bytes >= H2_STAGE_MAX) && h2c_flush(c))
				return c->t.nc.flags & H2C_DEAD ? -1 : 0;
			if (h2c_stage(c, h->ctl.p, h->ctl.n) < 0)
				return c->t.nc.flags |= H2C_DEAD, -1;
			h->ctl.n = 0;
			h->acks = 0;
		}
		if ((r = data_out(h)) == 0)
			break;
		if (r < 0 && h2c_flush(c))
			return c->t.nc.flags & H2C_DEAD ? -1 : 0;
	}
	return h2c_flush(c) == -1 ? -1 : 0;
}

int hx_alive(struct h2c *c)
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

void hx_goaway(struct h2c *c, uint32_t code)
{
	hx_conn_err(HX(c), code);
}

void hx_drain(struct h2c *c)
{
	struct h2x *h = HX(c);
	uint8_t p[8];

	if (h->gone & HX_SENT)
		return;
	hx_put32(p, (uint32_t)h->last_sid);
	hx_put32(p + 4, H2E_NO_ERROR);
	hx_ctl(h, FR_GOAWAY, 0, 0, p, 8);
	h->gone |= HX_SENT;
	h2c_sent_goaway(c, H2E_NO_ERROR);
}

int64_t hx_window(struct h2c *c, struct h2s *s)
{
	return s ? HXS(s)->win_out : HX(c)->win_out;
}


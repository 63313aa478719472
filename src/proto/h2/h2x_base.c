/* Our HTTP/2 engine's control frames, connection and stream errors (GOAWAY, RST_STREAM, the streams remembered closed, glitches) and a stream's start. */
#include "log.h"
#include "h2x.h"
#include "session-t.h"

/* a control frame for the next send; out of memory ends the connection */
void hx_ctl(struct h2x *h, uint8_t type, uint8_t flags, int32_t sid, const void *p, size_t len)
{
	if (hx_buf_room(&h->ctl, 9 + len) < 0) {
		h->c->t.nc.flags |= H2C_DEAD;
		return;
	}
	hx_fr_head(h->ctl.p + h->ctl.n, len, type, flags, sid);
	if (len)
		memcpy(h->ctl.p + h->ctl.n + 9, p, len);
	h->ctl.n += (uint32_t)(9 + len);
}

/* a connection error (RFC 9113 5.4.1): GOAWAY, then the end */
void hx_conn_err(struct h2x *h, uint32_t code)
{
	uint8_t p[8];

	if (h->gone & HX_CLOSING)
		return;
	if (cfg.debug && code)
		log_debug("thread %d fd %d: HTTP/2 connection error %u, GOAWAY", h->c->t.w->id, h->c->t.nc.ev.fd, code);
	hx_put32(p, (uint32_t)h->last_sid);
	hx_put32(p + 4, code);
	hx_ctl(h, FR_GOAWAY, 0, 0, p, 8);
	h->gone |= HX_SENT | HX_CLOSING;
	h2c_sent_goaway(h->c, code);
}

/* whether <sid> is a stream nghttp2's session would still know as closed
 * after the peer's side ended: what it sends there is then a connection
 * error; on other closed streams it is ignored */
int hx_closed_rd(const struct h2x *h, int32_t sid)
{
	uint32_t keep = cfg.h2_streams > h->c->nstreams ? cfg.h2_streams - h->c->nstreams : 0;
	const struct hxw *w = h->w;

	if (!w)
		return 0; /* WHY: a rest forgets them, as a timed-out closed state may (RFC 9113 5.1) */
	keep = MIN(MIN(keep, w->closed_n), HX_CLOSED);
	for (uint32_t i = 0; i < keep; i++) {
		uint32_t k = (w->closed_n - 1 - i) % HX_CLOSED;

		if (w->closed[k].id == sid)
			return w->closed[k].rd;
	}
	return 0;
}

/* RST_STREAM for a stream we do not hold (refused, or gone) */
void hx_rst_id(struct h2x *h, int32_t sid, uint32_t code)
{
	uint8_t p[4];

	hx_put32(p, code);
	hx_ctl(h, FR_RST, 0, sid, p, 4);
	h2c_sent_rst(h->c, code);
}

/* a stream error (RFC 9113 5.4.2): RST_STREAM; the stream goes at the next
 * send, so that whoever called holds no freed stream */
void hx_rst(struct h2s *s, uint32_t code)
{
	struct h2x *h = HX(s->c);

	if (HXS(s)->st & H2S_RESET)
		return;
	hx_rst_id(h, s->id, code);
	HXS(s)->st |= H2S_RESET;
	if (!list_empty(&HXS(s)->ready))
		list_del(&HXS(s)->ready);
	list_add(&h->ready, &HXS(s)->ready);
}

/* an empty frame that does nothing: too many a second end the connection */
int hx_glitch(struct h2x *h)
{
	uint64_t sec = h->c->t.w->loop.now_ms / 1000;

	if (sec != h->glitch_sec) {
		h->glitch_sec = sec;
		h->glitches = 0;
	}
	if (++h->glitches <= HX_MAX_GLITCHES)
		return 0;
	hx_conn_err(h, H2E_CALM);
	return 1;
}


/* our initial window as the peer now has it: each stream's by the change,
 * opened again when that leaves it under half (WHY now: a peer whose window
 * went to 0 or below sends no DATA, after which we would refill it) */
static void hx_iwin(struct h2x *h, uint32_t v)
{
	struct list *l, *tmp;
	uint8_t p[4];

	list_each_safe(l, tmp, &h->c->streams) {
		struct hxs *x = HXS(list_elem(l, struct h2s, node));

		x->win_in += (int64_t)v - h->iwin;
		if ((x->st & H2S_RCLOSED) || x->win_in >= (int64_t)v / 2)
			continue;
		hx_put32(p, (uint32_t)((int64_t)v - x->win_in));
		hx_ctl(h, FR_WINDOW, 0, x->s.id, p, 4);
		x->win_in = v;
	}
	h->iwin = v;
}

/* A SETTINGS of ours mid-connection (h2s=, h2w=). A lower stream limit
 * refuses new streams at once and is a connection error once acknowledged,
 * as nghttp2's session has it. WHY a larger window at once, a smaller one
 * at its ACK: the peer applies it when it reads it, then acknowledges, so
 * what it sent before the ACK may use the old one (RFC 9113 6.9.2) */
int hx_settings(struct h2c *c, const struct h2_setting *set, size_t n)
{
	struct h2x *h = HX(c);
	uint8_t p[6 * H2_NSETTINGS];

	if (n > H2_NSETTINGS || h->acks_owed == UINT8_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		p[6 * i] = (uint8_t)(set[i].id >> 8), p[6 * i + 1] = (uint8_t)set[i].id;
		hx_put32(p + 6 * i + 2, set[i].val);
		if (set[i].id == NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
			h->streams_max = set[i].val;
		if (set[i].id != NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE)
			continue;
		h->iwin_acks = 0;
		if (set[i].val > h->iwin)
			hx_iwin(h, set[i].val);
		else
			h->iwin_next = set[i].val, h->iwin_acks = (uint8_t)(h->acks_owed + 1);
	}
	hx_ctl(h, FR_SETTINGS, 0, 0, p, 6 * n);
	h->acks_owed++;
	return c->t.nc.flags & H2C_DEAD ? -1 : 0;
}

/* an ACK of our SETTINGS came: a lower initial window it carried applies */
void hx_settings_acked(struct h2x *h)
{
	if (h->iwin_acks && !--h->iwin_acks)
		hx_iwin(h, h->iwin_next);
}

void hx_ping(struct h2c *c)
{
	static const uint8_t data[8] = "hxterm!";

	hx_ctl(HX(c), FR_PING, 0, 0, data, 8);
}

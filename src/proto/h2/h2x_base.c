/* Our HTTP/2 engine's control frames, connection and stream errors (GOAWAY, RST_STREAM, the streams remembered closed, glitches) and a stream's start. */
#include "log.h"
#include "h2x.h"
#include "session-t.h"

/* a control frame for the next send; out of memory ends the connection */
void hx_ctl(struct h2x *h, uint8_t type, uint8_t flags, int32_t sid, const void *p, size_t len)
{
	if (hx_buf_room(&h->ctl, 9 + len) < 0) {
		h->c->t.flags |= H2C_DEAD;
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
		log_debug("thread %d fd %d: HTTP/2 connection error %u, GOAWAY", h->c->t.w->id, h->c->t.ev.fd, code);
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


/* Our HTTP/2 engine's frames in: the preface, each frame by type, SETTINGS, PING, GOAWAY, WINDOW_UPDATE and the flood limits. */
#include "h2x.h"
#include "log.h"

static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
#define PREFACE_LEN 24

/* A HEADERS frame on <sid>: what its block is for. A new stream is held at
 * once, so that a block never ended times out as a stream (--head-timeout). */
static int block_kind(struct h2x *h, int32_t sid, int selfdep)
{
	struct h2c *c = h->c;
	struct h2s *s = hx_find_any(h, sid);

	if (!(sid & 1))
		return hx_conn_err(h, H2E_PROTOCOL), HB_IGNORED;
	if (s && (HXS(s)->st & H2S_RCLOSED)) /* WHY before a reset under way: as nghttp2's session */
		return hx_conn_err(h, H2E_STREAM_CLOSED), HB_IGNORED;
	if (s)
		return HXS(s)->st & H2S_RESET ? HB_IGNORED : HB_TRAILERS;
	if (sid <= h->last_sid) {
		if (h2_sids_skipped(&c->sids, sid))
			hx_conn_err(h, H2E_PROTOCOL); /* WHY: a new stream below an open one (RFC 9113 5.1.1) */
		else if (hx_closed_rd(h, sid))
			hx_conn_err(h, H2E_STREAM_CLOSED);
		return HB_IGNORED;
	}
	h->last_sid = sid;
	h2_sids_open(&c->sids, sid);
	/* WHY a connection error over an acknowledged limit, and the order of
	 * these: as nghttp2's session, so that both engines answer alike */
	if (!h->acks_owed && c->nstreams >= h->streams_max)
		return hx_conn_err(h, H2E_PROTOCOL), HB_IGNORED;
	if (h->gone & HX_SENT) /* after our GOAWAY, new streams are not processed (RFC 9113 6.8) */
		return HB_IGNORED;
	if (selfdep)
		return hx_conn_err(h, H2E_PROTOCOL), HB_IGNORED;
	if (c->nstreams >= h->streams_max || !(s = h2s_get(c, sid)))
		return HB_REFUSED;
	hx_stream_init(h, s);
	return HB_OPEN;
}


/* strips the padding; -1 when it is longer than the frame (the connection ends) */
static int unpad(struct h2x *h, const uint8_t **p, uint32_t *len)
{
	uint8_t pad;

	if (!(h->fflags & FL_PADDED))
		return 0;
	if (*len < 1 || (pad = (*p)[0]) >= *len) {
		hx_conn_err(h, H2E_PROTOCOL);
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
		hx_put32(p, (uint32_t)(cfg.h2_conn_window - h->win_in));
		hx_ctl(h, FR_WINDOW, 0, 0, p, 4);
		h->win_in = cfg.h2_conn_window;
	}
	if (s && !(HXS(s)->st & H2S_RCLOSED) && HXS(s)->win_in < h->iwin / 2) {
		hx_put32(p, (uint32_t)(h->iwin - HXS(s)->win_in));
		hx_ctl(h, FR_WINDOW, 0, s->id, p, 4);
		HXS(s)->win_in = h->iwin;
	}
}

static void fr_data(struct h2x *h, const uint8_t *p, uint32_t len)
{
	uint32_t flow = len; /* WHY: the padding counts against the windows too */
	int32_t sid = h->fsid;
	struct h2s *s;

	if (!sid)
		return hx_conn_err(h, H2E_PROTOCOL);
	if (flow > h->win_in)
		return hx_conn_err(h, H2E_FLOW);
	h->win_in -= flow;
	/* WHY the stream before the padding, and these errors: as nghttp2's
	 * session, which ignores a frame on a stream being reset, or closed
	 * before its peer's side ended, whatever its padding says */
	if (hx_idle(h, sid))
		return hx_conn_err(h, H2E_PROTOCOL);
	s = hx_find_any(h, sid);
	if ((s && (HXS(s)->st & H2S_RCLOSED)) || (!s && hx_closed_rd(h, sid)))
		return hx_conn_err(h, H2E_STREAM_CLOSED);
	if (!s || (HXS(s)->st & H2S_RESET))
		return refill(h, NULL);
	if (unpad(h, &p, &len) < 0)
		return;
	if (flow > HXS(s)->win_in) {
		hx_rst(s, H2E_FLOW);
		return refill(h, NULL);
	}
	HXS(s)->win_in -= flow;
	if (!len && !(h->fflags & FL_END_STREAM) && hx_glitch(h))
		return;
	if (HXS(s)->cl != UINT64_MAX && s->x.body_read + len > HXS(s)->cl)
		return hx_rst(s, H2E_PROTOCOL);
	if (len)
		h2s_data_in(s, p, len);
	if (!(s = hx_find(h, sid)))
		return refill(h, NULL);
	if (h->fflags & FL_END_STREAM)
		hx_remote_end(h, s);
	refill(h, hx_find(h, sid));
}

static void fr_headers(struct h2x *h, const uint8_t *p, uint32_t len)
{
	int32_t sid = h->fsid;
	int kind, selfdep = 0;

	if (!sid)
		return hx_conn_err(h, H2E_PROTOCOL);
	if (unpad(h, &p, &len) < 0)
		return;
	if (h->fflags & FL_PRIORITY) {
		if (len < 5)
			return hx_conn_err(h, H2E_FRAME_SIZE);
		selfdep = (int32_t)(hx_get32(p) & WIN_MAX) == sid;
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
	if (hx_block_part(h, p, len, h->fflags & FL_END_HEADERS) == 0 && (h->fflags & FL_END_HEADERS))
		hx_block_done(h);
}

static void fr_cont(struct h2x *h, const uint8_t *p, uint32_t len)
{
	if (!h->hb_sid)
		return hx_conn_err(h, H2E_PROTOCOL);
	if (++h->hb_conts > HX_MAX_CONTS)
		return hx_conn_err(h, H2E_CALM);
	if (!len && !(h->fflags & FL_END_HEADERS) && hx_glitch(h))
		return;
	if (hx_block_part(h, p, len, h->fflags & FL_END_HEADERS) == 0 && (h->fflags & FL_END_HEADERS))
		hx_block_done(h);
}

static void fr_priority(struct h2x *h, const uint8_t *p, uint32_t len)
{
	if (!h->fsid)
		return hx_conn_err(h, H2E_PROTOCOL);
	if (len != 5) /* WHY not the stream error 6.3 asks: nghttp2's session ends the connection */
		return hx_conn_err(h, H2E_FRAME_SIZE);
	if ((int32_t)(hx_get32(p) & WIN_MAX) == h->fsid) /* WHY a connection error: as nghttp2's session */
		hx_conn_err(h, H2E_PROTOCOL);
}

static void fr_rst(struct h2x *h, const uint8_t *p, uint32_t len)
{
	struct h2s *s;

	if (len != 4)
		return hx_conn_err(h, H2E_FRAME_SIZE);
	if (!h->fsid || hx_idle(h, h->fsid))
		return hx_conn_err(h, H2E_PROTOCOL);
	if ((s = hx_find(h, h->fsid)))
		hx_gone(h, s, 1);
	h2c_recv_rst(h->c, hx_get32(p));
}

/* one of the peer's settings: 0, or -1 with the connection closing */
static int setting(struct h2x *h, uint16_t id, uint32_t v)
{
	struct list *n, *tmp;

	switch (id) {
	case NGHTTP2_SETTINGS_HEADER_TABLE_SIZE:
		if (!hx_work(h))
			return -1;
		hpk_table_size(&h->w->def, v);
		break;
	case NGHTTP2_SETTINGS_ENABLE_PUSH:
	case NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL:
		if (v > 1)
			return hx_conn_err(h, H2E_PROTOCOL), -1;
		break;
	case NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE:
		if (v > WIN_MAX)
			return hx_conn_err(h, H2E_FLOW), -1;
		/* WHY every stream: the change applies to the windows open now (6.9.2) */
		list_each_safe(n, tmp, &h->c->streams) {
			struct h2s *s = list_elem(n, struct h2s, node);

			HXS(s)->win_out += (int64_t)v - h->peer_iwin;
			if (HXS(s)->win_out > WIN_MAX)
				return hx_conn_err(h, H2E_FLOW), -1;
		}
		h->peer_iwin = v;
		break;
	case NGHTTP2_SETTINGS_MAX_FRAME_SIZE:
		if (v < 16384 || v > 16777215)
			return hx_conn_err(h, H2E_PROTOCOL), -1;
		/* WHY at most what an empty output queue takes: a larger one
		 * (grpc's 4 MiB) found no room ever, and the worker spun */
		h->peer_frame = MIN(v, (uint32_t)h2c_frame_max());
		break;
	case NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES:
		if (v > 1 || (h->nopri != 2 && h->nopri != v)) /* set once (RFC 9218 2.1) */
			return hx_conn_err(h, H2E_PROTOCOL), -1;
		h->nopri = (uint8_t)v;
		break;
	}
	return 0;
}

/* The peer's settings (a SETTINGS frame, or HTTP2-Settings): 0, or -1 with
 * the connection closing. WHY the last of each, and the smallest table size
 * first: nghttp2's session takes them so (RFC 7541 4.2 wants the smallest). */
int hx_settings_apply(struct h2x *h, const uint8_t *p, size_t len)
{
	struct { uint16_t id; uint32_t v; } iv[10];
	size_t n = 0, tab = SIZE_MAX;
	uint32_t low = UINT32_MAX;

	if (len % 6)
		return hx_conn_err(h, H2E_FRAME_SIZE), -1;
	if (len / 6 > HX_MAX_SETTINGS)
		return hx_conn_err(h, H2E_CALM), -1;
	for (; len; p += 6, len -= 6) {
		uint16_t id = (uint16_t)(p[0] << 8 | p[1]);
		uint32_t v = hx_get32(p + 2);
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
		return hx_conn_err(h, H2E_PROTOCOL);
	if (h->fflags & FL_ACK) {
		if (len)
			return hx_conn_err(h, H2E_FRAME_SIZE);
		if (!h->acks_owed)
			return hx_conn_err(h, H2E_PROTOCOL); /* an ACK of nothing */
		h->acks_owed--; /* WHY counted: an ACK of none we sent was refused above */
		h->acked = 1;
		hx_settings_acked(h);
		if (!hx_work(h))
			return;
		if (nghttp2_hd_inflate_change_table_size(h->inf, cfg.h2_table))
			return hx_conn_err(h, H2E_INTERNAL);
		h->gen++;
		return;
	}
	if (hx_settings_apply(h, p, len) < 0)
		return;
	if (!h->settings && cfg.h2_conn_window > 65535) {
		/* WHY only now: a client that never sent its preface gets the
		 * GOAWAY, nothing more than our SETTINGS before it */
		uint8_t inc[4];

		hx_put32(inc, cfg.h2_conn_window - 65535);
		hx_ctl(h, FR_WINDOW, 0, 0, inc, 4);
	}
	h->settings = 1;
	hx_ctl(h, FR_SETTINGS, FL_ACK, 0, NULL, 0);
	if (++h->acks > HX_MAX_ACKS)
		hx_conn_err(h, H2E_CALM);
}

static void fr_ping(struct h2x *h, const uint8_t *p, uint32_t len)
{
	if (len != 8)
		return hx_conn_err(h, H2E_FRAME_SIZE);
	if (h->fsid)
		return hx_conn_err(h, H2E_PROTOCOL);
	if (h->fflags & FL_ACK)
		return;
	hx_ctl(h, FR_PING, FL_ACK, 0, p, 8);
	if (++h->acks > HX_MAX_ACKS)
		hx_conn_err(h, H2E_CALM);
}

static void fr_goaway(struct h2x *h, const uint8_t *p, uint32_t len)
{
	if (h->fsid)
		return hx_conn_err(h, H2E_PROTOCOL);
	if (len < 8)
		return hx_conn_err(h, H2E_FRAME_SIZE);
	if (hx_get32(p) & WIN_MAX & 1) /* WHY: its last stream is one of ours, and we open none */
		return hx_conn_err(h, H2E_PROTOCOL);
	/* WHY: an endpoint must not raise it (RFC 9113 6.8); nghttp2's session
	 * ends the connection when a later GOAWAY does (found by h2diff) */
	if ((hx_get32(p) & WIN_MAX) > h->peer_last)
		return hx_conn_err(h, H2E_PROTOCOL);
	h->peer_last = hx_get32(p) & WIN_MAX;
	h->gone |= HX_RECV;
}

static void fr_window(struct h2x *h, const uint8_t *p, uint32_t len)
{
	uint32_t inc;
	struct h2s *s;

	if (len != 4)
		return hx_conn_err(h, H2E_FRAME_SIZE);
	inc = hx_get32(p) & WIN_MAX;
	if (!h->fsid) {
		if (!inc)
			return hx_conn_err(h, H2E_PROTOCOL);
		if (h->win_out + inc > WIN_MAX)
			return hx_conn_err(h, H2E_FLOW);
		h->win_out += inc;
		return;
	}
	if (hx_idle(h, h->fsid))
		return hx_conn_err(h, H2E_PROTOCOL);
	if (!(s = hx_find(h, h->fsid)))
		return;
	if (!inc) /* WHY a connection error: as nghttp2's session */
		return hx_conn_err(h, H2E_PROTOCOL);
	if (HXS(s)->win_out + inc > WIN_MAX)
		return hx_rst(s, H2E_FLOW);
	HXS(s)->win_out += inc;
}

static void frame(struct h2x *h, const uint8_t *p, uint32_t len)
{
	switch (h->ftype) {
	case FR_DATA: return fr_data(h, p, len);
	case FR_HEADERS: return fr_headers(h, p, len);
	case FR_PRIORITY: return fr_priority(h, p, len);
	case FR_RST: return fr_rst(h, p, len);
	case FR_SETTINGS: return fr_settings(h, p, len);
	case FR_PUSH: return hx_conn_err(h, H2E_PROTOCOL); /* a client never promises */
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
	h->fsid = (int32_t)(hx_get32(h->fh + 5) & WIN_MAX);
	if (h->flen > cfg.h2_frame)
		return hx_conn_err(h, H2E_FRAME_SIZE), 0;
	/* WHY: a header block is one piece: nothing comes between its frames (6.10) */
	if (h->hb_sid && (h->ftype != FR_CONT || h->fsid != h->hb_sid))
		return hx_conn_err(h, H2E_PROTOCOL), 0;
	if (!h->settings && (h->ftype != FR_SETTINGS || (h->fflags & FL_ACK))) /* the preface ends with SETTINGS (3.4) */
		return hx_conn_err(h, H2E_PROTOCOL), 0;
	return 1;
}

int hx_recv(struct h2c *c, const uint8_t *p, size_t n)
{
	struct h2x *h = HX(c);

	while (n && !(h->gone & HX_CLOSING) && !(c->t.nc.flags & H2C_DEAD)) {
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
		if (hx_buf_room(&h->fb, h->flen - h->fb.n) < 0)
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


/* The HTTP/2 engine of our own (--h2-engine hx): its row, a connection opened (our SETTINGS), taken over from an h2c Upgrade, closed; the framing is h2x_in.c's and h2x_out.c's, over nghttp2's HPACK decoder. */
#include "h2x.h"


static void hx_close(struct h2c *c)
{
	struct h2x *h = HX(c);

	if (!h)
		return;
	if (h->inf)
		nghttp2_hd_inflate_del(h->inf);
	free(h->table.p);
	if (h->w)
		h2c_work_put(c, h->w);
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
	h->streams_max = cfg.h2_streams;
	h->iwin = cfg.h2_window;
	/* WHY as hpk_init() has it: the work state starts from these */
	h->enc_max = h->enc_low = MIN(4096, cfg.h2_enc_table);
	h->enc_update = h->enc_max != 4096;
	if (nghttp2_hd_inflate_new(&h->inf))
		return -1;
	h2_settings(set);
	for (int i = 0; i < H2_NSETTINGS; i++) {
		p[6 * i] = (uint8_t)(set[i].id >> 8), p[6 * i + 1] = (uint8_t)set[i].id;
		hx_put32(p + 6 * i + 2, set[i].val);
	}
	hx_ctl(h, FR_SETTINGS, 0, 0, p, sizeof(p));
	h->acks_owed = 1;
	h->nopri = 2;
	return c->t.nc.flags & H2C_DEAD ? -1 : 0;
}

static int hx_upgrade(struct h2c *c, struct h2s *s, const uint8_t *settings, size_t n, int head)
{
	struct h2x *h = HX(c);

	(void)head; /* WHY: the adopted exchange knows it was a HEAD */
	if (hx_settings_apply(h, settings, n) < 0)
		return -1;
	h->last_sid = 1;
	hx_stream_init(h, s);
	HXS(s)->st = H2S_RCLOSED;
	return 0;
}

const struct h2_eng h2_eng_hx = {
	.ssize = sizeof(struct hxs),
	.wsize = sizeof(struct hxw),
	.open = hx_open,
	.close = hx_close,
	.upgrade = hx_upgrade,
	.recv = hx_recv,
	.send = hx_send,
	.alive = hx_alive,
	.goaway = hx_goaway,
	.drain = hx_drain,
	.settings = hx_settings,
	.ping = hx_ping,
	.rst = hx_rst,
	.respond = hx_respond,
	.info = hx_info,
	.resume = hx_resume,
	.window = hx_window,
	.rest = hx_rest,
};

/* The HTTP/2 engine over nghttp2's session (--h2-engine nghttp2): its callbacks as thin trampolines into the connection shell. */
#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "h2_eng.h"
#include "log.h"
#include "plan.h"
#include "wss.h"

#define SESS(c) ((nghttp2_session *)(c)->sess)

/* WHY: xstream's pairs go to nghttp2 as they are, their flags included */
_Static_assert(XS_NV_STATIC_NAME == NGHTTP2_NV_FLAG_NO_COPY_NAME, "xs_nv flags");

/* ---------- the response ---------- */

/* the session's frames as DATA: copied, deferred while there are none */
static ssize_t ws_read_cb(nghttp2_session *sess, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
			  nghttp2_data_source *src, void *user)
{
	struct h2s *s = src->ptr;
	int eof = 0;
	size_t n = wss_out(s->wss, buf, len, &eof);

	(void)sess, (void)id, (void)user;
	if (eof)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return n || eof ? (ssize_t)n : NGHTTP2_ERR_DEFERRED;
}

/* the trailers, if any, go after this last DATA frame */
static void ng_trailers(nghttp2_session *sess, struct h2s *s, uint32_t *flags)
{
	struct xs_nv nv[PLAN_MAX_FIELDS];
	char lbuf[PLAN_DEC_SIZE];
	size_t nt = xs_trailers_nv(&s->x, nv, lbuf);

	*flags |= NGHTTP2_DATA_FLAG_EOF;
	if (!nt)
		return;
	*flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
	if (nghttp2_submit_trailer(sess, s->id, (nghttp2_nv *)nv, nt))
		h2s_fail(&s->x);
}

/* the generator's next action as one DATA frame (its bytes go in send_data_cb) */
static ssize_t read_cb(nghttp2_session *sess, int32_t id, uint8_t *buf, size_t len,
		       uint32_t *flags, nghttp2_data_source *src, void *user)
{
	struct h2s *s = src->ptr;
	struct ex_action a;

	(void)buf, (void)user, (void)id;
	switch (h2s_next(s, len, &a)) {
	case H2N_RESET:
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	case H2N_WAIT:
		return NGHTTP2_ERR_DEFERRED;
	case H2N_END:
		ng_trailers(sess, s, flags);
		return 0;
	case H2N_LAST:
		ng_trailers(sess, s, flags);
		break;
	case H2N_DATA:
		break;
	}
	*flags |= NGHTTP2_DATA_FLAG_NO_COPY;
	return (ssize_t)a.len;
}

static int send_data_cb(nghttp2_session *sess, nghttp2_frame *frame, const uint8_t *hd,
			size_t len, nghttp2_data_source *src, void *user)
{
	struct h2c *c = user;
	struct h2s *s = src->ptr;
	struct ex_action a = { .off = s->x.ex.out_off - len, .len = len }; /* read_cb already moved past it */

	(void)sess, (void)frame;
	if (!h2c_room(c, len)) {
		c->t.nc.flags |= H2C_BLOCKED;
		return NGHTTP2_ERR_WOULDBLOCK;
	}
	h2s_stage_body(c, s, hd, &a);
	return 0;
}

static int ng_respond(struct h2s *s, const struct xs_nv *nv, size_t n, int body)
{
	nghttp2_data_provider prd = { .source.ptr = s, .read_callback = s->wss ? ws_read_cb : read_cb };

	return nghttp2_submit_response(SESS(s->c), s->id, (const nghttp2_nv *)nv, n, body ? &prd : NULL) ? -1 : 0;
}

static int ng_info(struct h2s *s, const struct xs_nv *nv, size_t n)
{
	return nghttp2_submit_headers(SESS(s->c), NGHTTP2_FLAG_NONE, s->id, NULL, (const nghttp2_nv *)nv, n, NULL) < 0 ?
		       -1 : 0;
}

static void ng_resume(struct h2s *s)
{
	nghttp2_session_resume_data(SESS(s->c), s->id);
}

static void ng_rst(struct h2s *s, uint32_t code)
{
	nghttp2_submit_rst_stream(SESS(s->c), NGHTTP2_FLAG_NONE, s->id, code);
}

static void ng_goaway(struct h2c *c, uint32_t code)
{
	nghttp2_session_terminate_session(SESS(c), code);
}

static void ng_drain(struct h2c *c)
{
	nghttp2_submit_goaway(SESS(c), NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(SESS(c)),
			      NGHTTP2_NO_ERROR, NULL, 0);
}

static int ng_settings(struct h2c *c, const struct h2_setting *set, size_t n)
{
	nghttp2_settings_entry iv[H2_NSETTINGS];

	for (size_t i = 0; i < n && i < H2_NSETTINGS; i++)
		iv[i] = (nghttp2_settings_entry){ set[i].id, set[i].val };
	return nghttp2_submit_settings(SESS(c), NGHTTP2_FLAG_NONE, iv, MIN(n, (size_t)H2_NSETTINGS)) ? -1 : 0;
}

static void ng_ping(struct h2c *c)
{
	static const uint8_t data[8] = "hxterm!";

	nghttp2_submit_ping(SESS(c), NGHTTP2_FLAG_NONE, data);
}

static int64_t ng_window(struct h2c *c, struct h2s *s)
{
	return s ? nghttp2_session_get_stream_remote_window_size(SESS(c), s->id) :
		   nghttp2_session_get_remote_window_size(SESS(c));
}

static int ng_alive(struct h2c *c)
{
	return nghttp2_session_want_read(SESS(c)) || nghttp2_session_want_write(SESS(c));
}

/* ---------- the request ---------- */

static int begin_headers_cb(nghttp2_session *sess, const nghttp2_frame *frame, void *user)
{
	struct h2c *c = user;
	struct h2s *s;

	if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	/* WHY: nghttp2 takes the streams read with the one that reached the
	 * request limit before its GOAWAY goes out: refused, sent again */
	if (unlikely(c->t.nc.flags & H2C_ENDING))
		return nghttp2_submit_rst_stream(sess, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
						 NGHTTP2_REFUSED_STREAM) ? NGHTTP2_ERR_CALLBACK_FAILURE : 0;
	s = h2s_get(c, frame->hd.stream_id);
	if (!s)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	nghttp2_session_set_stream_user_data(sess, frame->hd.stream_id, s);
	return 0;
}

/* WHY: nghttp2 ignores a HEADERS frame at or below the highest stream
 * id, closed or never used alike; a new stream below an open one is a
 * connection error (RFC 9113 5.1.1), as our engine answers it */
static int begin_frame_cb(nghttp2_session *sess, const nghttp2_frame_hd *hd, void *user)
{
	struct h2c *c = user;

	if (hd->type != NGHTTP2_HEADERS || !(hd->stream_id & 1))
		return 0;
	if (hd->stream_id > c->sids.last)
		h2_sids_open(&c->sids, hd->stream_id);
	else if (h2_sids_skipped(&c->sids, hd->stream_id))
		nghttp2_session_terminate_session(sess, NGHTTP2_PROTOCOL_ERROR);
	return 0;
}

static int header_cb(nghttp2_session *sess, const nghttp2_frame *frame, const uint8_t *n,
		     size_t nl, const uint8_t *v, size_t vl, uint8_t flags, void *user)
{
	struct h2s *s = nghttp2_session_get_stream_user_data(sess, frame->hd.stream_id);

	(void)flags, (void)user;
	/* trailers of the request: nothing to keep */
	if (s && !(s->x.flags & XS_HEADERS) && frame->hd.type == NGHTTP2_HEADERS)
		xs_header(&s->x, n, nl, v, vl);
	return 0;
}

/* GOAWAY and RST_STREAM that went out, counted by code */
static int frame_send_cb(nghttp2_session *sess, const nghttp2_frame *frame, void *user)
{
	struct h2c *c = user;

	(void)sess;
	if (frame->hd.type == NGHTTP2_GOAWAY)
		h2c_sent_goaway(c, frame->goaway.error_code);
	else if (frame->hd.type == NGHTTP2_RST_STREAM)
		h2c_sent_rst(c, frame->rst_stream.error_code);
	return 0;
}

static int frame_recv_cb(nghttp2_session *sess, const nghttp2_frame *frame, void *user)
{
	struct h2c *c = user;
	struct h2s *s = nghttp2_session_get_stream_user_data(sess, frame->hd.stream_id);
	int end = !!(frame->hd.flags & NGHTTP2_FLAG_END_STREAM);

	switch (frame->hd.type) {
	case NGHTTP2_HEADERS:
		if (s)
			h2s_head_in(s, end);
		break;
	case NGHTTP2_DATA:
		if (s && end)
			h2s_end_in(s);
		break;
	case NGHTTP2_RST_STREAM:
		h2c_recv_rst(c, frame->rst_stream.error_code);
		break;
	}
	return 0;
}

static int data_chunk_cb(nghttp2_session *sess, uint8_t flags, int32_t id, const uint8_t *data,
			 size_t len, void *user)
{
	struct h2s *s = nghttp2_session_get_stream_user_data(sess, id);

	(void)flags, (void)user;
	if (s)
		h2s_data_in(s, data, len);
	return 0;
}

static int stream_close_cb(nghttp2_session *sess, int32_t id, uint32_t err, void *user)
{
	struct h2s *s = nghttp2_session_get_stream_user_data(sess, id);

	(void)err, (void)user;
	if (s) {
		nghttp2_session_set_stream_user_data(sess, id, NULL);
		h2s_put(s);
	}
	return 0;
}

static nghttp2_session_callbacks *cbs;
static nghttp2_option *opts;

int h2_ng_init(void)
{
	if (nghttp2_session_callbacks_new(&cbs) || nghttp2_option_new(&opts))
		return log_err("cannot set up nghttp2 (out of memory)"), -1;
	/* WHY: the server only answers; push and its reservations stay off */
	nghttp2_option_set_no_recv_client_magic(opts, 0);
	nghttp2_option_set_max_send_header_block_length(opts, PLAN_MAX_PAD + 65536);
	/* WHY: each response's timing values (x-req, x-rsp, server-timing) enter
	 * the table; in 4 KiB, the encoder's search walks ~60 same-name entries
	 * per response. 1 KiB keeps the recent values that repeat (same bytes on
	 * the wire) for 6 % fewer instructions per request */
	nghttp2_option_set_max_deflate_dynamic_table_size(opts, cfg.h2_enc_table);
	nghttp2_session_callbacks_set_on_begin_frame_callback(cbs, begin_frame_cb);
	nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, begin_headers_cb);
	nghttp2_session_callbacks_set_on_header_callback(cbs, header_cb);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, frame_recv_cb);
	nghttp2_session_callbacks_set_on_frame_send_callback(cbs, frame_send_cb);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, data_chunk_cb);
	nghttp2_session_callbacks_set_on_stream_close_callback(cbs, stream_close_cb);
	nghttp2_session_callbacks_set_send_data_callback(cbs, send_data_cb);
	return 0;
}

void h2_ng_free(void)
{
	nghttp2_session_callbacks_del(cbs);
	nghttp2_option_del(opts);
}

/* ---------- the session ---------- */

static int ng_open(struct h2c *c)
{
	struct h2_setting set[H2_NSETTINGS];
	nghttp2_settings_entry iv[H2_NSETTINGS];
	nghttp2_session *sess;

	h2_settings(set);
	for (int i = 0; i < H2_NSETTINGS; i++)
		iv[i] = (nghttp2_settings_entry){ set[i].id, set[i].val };

	if (nghttp2_session_server_new2(&sess, cbs, c, opts))
		return -1;
	c->sess = sess;
	if (nghttp2_submit_settings(sess, NGHTTP2_FLAG_NONE, iv, H2_NSETTINGS) ||
	    nghttp2_session_set_local_window_size(sess, NGHTTP2_FLAG_NONE, 0, (int32_t)cfg.h2_conn_window))
		return -1;
	return 0;
}

static void ng_close(struct h2c *c)
{
	nghttp2_session_del(SESS(c));
}

static int ng_upgrade(struct h2c *c, struct h2s *s, const uint8_t *settings, size_t n, int head)
{
	if (nghttp2_session_upgrade2(SESS(c), settings, n, head, NULL))
		return -1;
	nghttp2_session_set_stream_user_data(SESS(c), 1, s);
	return 0;
}

static int ng_recv(struct h2c *c, const uint8_t *p, size_t n)
{
	return nghttp2_session_mem_recv(SESS(c), p, n) < 0 ? -1 : 0;
}

/* serializes what nghttp2 wants to send and writes it: 0 or -1 dead */
static int ng_send(struct h2c *c)
{
	for (;;) {
		const uint8_t *data;
		ssize_t n;

		if ((oq_sc_room(&c->oq) < 16384 || oq_iov_room(&c->oq) < 8 ||
		     c->oq.bytes >= H2_STAGE_MAX) && h2c_flush(c))
			return c->t.nc.flags & H2C_DEAD ? -1 : 0;
		c->t.nc.flags &= ~H2C_BLOCKED;
		n = nghttp2_session_mem_send(SESS(c), &data);
		if (n < 0 || (n > 0 && h2c_stage(c, data, (size_t)n) < 0))
			return c->t.nc.flags |= H2C_DEAD, -1;
		if (n == 0 && !(c->t.nc.flags & H2C_BLOCKED))
			break;
		if (n == 0 && h2c_flush(c))
			return c->t.nc.flags & H2C_DEAD ? -1 : 0;
	}
	return h2c_flush(c) == -1 ? -1 : 0;
}

const struct h2_eng h2_eng_ng = {
	.ssize = sizeof(struct h2s),
	.open = ng_open,
	.close = ng_close,
	.upgrade = ng_upgrade,
	.recv = ng_recv,
	.send = ng_send,
	.alive = ng_alive,
	.goaway = ng_goaway,
	.drain = ng_drain,
	.settings = ng_settings,
	.ping = ng_ping,
	.rst = ng_rst,
	.respond = ng_respond,
	.info = ng_info,
	.resume = ng_resume,
	.window = ng_window,
};

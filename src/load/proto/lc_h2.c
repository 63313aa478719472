/* hxload's HTTP/2 client through nghttp2: -m concurrent streams per connection. */
#include <nghttp2/nghttp2.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lc_h2_int.h"
#include "lc_h2_mem.h"
#include "lc_record.h"

static nghttp2_session_callbacks *cbs;
static nghttp2_option *opt;

static int header_cb(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *n, size_t nl,
		     const uint8_t *v, size_t vl, uint8_t flags, void *user)
{
	(void)s, (void)flags;
	if (f->hd.type == NGHTTP2_HEADERS)
		lc_h2_field(user, lc_h2_ex(user, f->hd.stream_id), n, nl, v, vl);
	return 0;
}

static int data_cb(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data, size_t len,
		   void *user)
{
	struct lc_ex *e = lc_h2_ex(user, id);

	(void)s, (void)flags;
	if (e)
		lc_verify(e, (const char *)data, len);
	return 0;
}

static int close_cb(nghttp2_session *s, int32_t id, uint32_t code, void *user)
{
	struct lc_ex *e = lc_h2_ex(user, id);

	(void)s;
	if (e)
		lc_h2_closed(user, e, code);
	return 0;
}

static ssize_t body_cb(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
		       nghttp2_data_source *src, void *user)
{
	uint64_t *left = nghttp2_session_get_stream_user_data(s, id);
	size_t n = (size_t)MIN((uint64_t)len, *left);

	(void)src, (void)user;
	lc_h2_body(buf, n);
	*left -= n;
	if (!*left)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

static void submit(nghttp2_session *s, struct lc_ex *e)
{
	struct hpk_field f[LC_H2_FIELDS];
	size_t n = lc_h2_fields(e, f);
	nghttp2_data_provider prd = { .read_callback = body_cb };

	/* WHY a cast: struct hpk_field is laid out as nghttp2_nv */
	_Static_assert(sizeof(struct hpk_field) == sizeof(nghttp2_nv) && offsetof(struct hpk_field, flags) == offsetof(nghttp2_nv, flags), "nv");
	e->body_left = lc_o->body;
	e->id = nghttp2_submit_request(s, NULL, (const nghttp2_nv *)f, n, lc_o->body ? &prd : NULL, &e->body_left);
}

/* the server's SETTINGS: its stream limit as it changes after the first */
static void peer_settings(struct lc_conn *c, const nghttp2_settings *set)
{
	for (size_t i = 0; i < set->niv; i++)
		if (set->iv[i].settings_id == NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
			lc_h2_limit(c, set->iv[i].value);
	lc_h2_settings_done(c);
}

static int frame_cb(nghttp2_session *s, const nghttp2_frame *f, void *user)
{
	struct lc_conn *c = user;

	(void)s;
	if (f->hd.type == NGHTTP2_GOAWAY) {
		lc_h2_goaway(c, f->goaway.error_code, f->goaway.last_stream_id);
	} else if (f->hd.type == NGHTTP2_SETTINGS && !(f->hd.flags & NGHTTP2_FLAG_ACK)) {
		peer_settings(c, &f->settings);
	} else if (f->hd.type == NGHTTP2_PING && !(f->hd.flags & NGHTTP2_FLAG_ACK)) {
		c->t->st.pings++;
	}
	return 0;
}

/* a stream's frame above the server's own GOAWAY: it said it would not
 * process that stream (RFC 9113 6.8), then answered it */
static int begin_frame_cb(nghttp2_session *s, const nghttp2_frame_hd *hd, void *user)
{
	(void)s;
	lc_h2_frame_begins(user, hd->type, hd->stream_id);
	return 0;
}

static void h2_fill(struct lc_conn *c, nghttp2_session *s)
{
	/* WHY the check: after a GOAWAY, a new stream would only be refused */
	while (!c->goaway && c->inflight < (uint32_t)lc_o->depth &&
	       nghttp2_session_get_remote_settings(s, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS) > c->inflight) {
		struct lc_ex *e = lc_ex_free(c);

		if (!lc_take(c, e))
			return;
		submit(s, e);
		if (e->id < 0) {
			lc_fail(c, e, E_PROTOCOL);
			e->id = -1;
			return;
		}
		c->inflight++;
	}
}

static int lc_h2_global_init(void)
{
	if (nghttp2_session_callbacks_new(&cbs) || nghttp2_option_new(&opt) || lc_h2_mem_init() < 0)
		return -1;
	nghttp2_session_callbacks_set_on_header_callback(cbs, header_cb);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, data_cb);
	nghttp2_session_callbacks_set_on_stream_close_callback(cbs, close_cb);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, frame_cb);
	nghttp2_session_callbacks_set_on_begin_frame_callback(cbs, begin_frame_cb);
	/* WHY: a load generator reads what it needs; nghttp2's field
	 * validation was 3.4 % of the profile */
	nghttp2_option_set_no_http_messaging(opt, 1);
	return 0;
}

static void lc_h2_global_free(void)
{
	nghttp2_session_callbacks_del(cbs);
	nghttp2_option_del(opt);
	lc_h2_mem_free();
	cbs = NULL;
	opt = NULL;
}

static int lc_h2_start(struct lc_conn *c)
{
	nghttp2_session *s;
	nghttp2_settings_entry iv[] = {
		{ NGHTTP2_SETTINGS_ENABLE_PUSH, 0 },
		{ NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, (1U << 30) },
	};

	if (nghttp2_session_client_new3(&s, cbs, c, opt, lc_h2_mem((uint32_t)c->t->nconns)))
		return -1;
	c->proto_state = s;
	c->ex_used = 0;
	nghttp2_submit_settings(s, NGHTTP2_FLAG_NONE, iv, ARRAY_SIZE(iv));
	nghttp2_session_set_local_window_size(s, NGHTTP2_FLAG_NONE, 0, (1U << 30));
	return 0;
}

static void lc_h2_free(struct lc_conn *c)
{
	nghttp2_session_del(c->proto_state);
	c->proto_state = NULL;
}

static int h2_send(struct lc_conn *c, nghttp2_session *s)
{
	uint64_t sent;

	for (;;) {
		const uint8_t *data;
		ssize_t n;
		int r;

		if (oq_sc_room(&c->oq) < 16384 || oq_iov_room(&c->oq) < 4) {
			r = oq_flush(&c->oq, &c->nc.x, &sent);
			if (r == -1)
				return -1;
			if (r == HX_AGAIN) {
				c->nc.flags &= ~NC_WR_READY;
				return 0;
			}
		}
		n = nghttp2_session_mem_send(s, &data);
		if (n < 0)
			return -1;
		if (!n)
			break;
		if ((size_t)n > oq_sc_room(&c->oq))
			return -1; /* a frame bigger than the scratch: never from a client */
		oq_copy(&c->oq, data, (size_t)n);
	}
	if (oq_pending(&c->oq) && (c->nc.flags & NC_WR_READY)) {
		int r = oq_flush(&c->oq, &c->nc.x, &sent);

		if (r == -1)
			return -1;
		if (r == HX_AGAIN)
			c->nc.flags &= ~NC_WR_READY;
	}
	return 0;
}

/* GOAWAY NO_ERROR, its last stream the last the server opened (none: 0) */
static void lc_h2_bye(struct lc_conn *c)
{
	nghttp2_session *s = c->proto_state;

	/* WHY the buffers: an idle connection gave its own back */
	if (lc_bufs_take(c) < 0 || nghttp2_submit_goaway(s, NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(s),
							  NGHTTP2_NO_ERROR, NULL, 0))
		return;
	c->nc.flags |= NC_WR_READY; /* WHY: one try, whatever the last write met */
	h2_send(c, s);
}

static int lc_h2_io(struct lc_conn *c)
{
	nghttp2_session *s = c->proto_state;

	while (c->nc.flags & NC_RD_READY) {
		long n = lc_conn_recv(c, c->in, c->in_size);

		if (n == XPRT_AGAIN)
			break;
		if (n <= 0)
			return lc_h2_ended(c, n);
		if (nghttp2_session_mem_recv(s, (uint8_t *)c->in, (size_t)n) < 0) {
			lc_error(c, E_PROTOCOL);
			return -1;
		}
	}
	h2_fill(c, s);
	if (h2_send(c, s) < 0) {
		lc_error(c, E_RESET);
		return -1;
	}
	/* WHY once its streams are done: a graceful GOAWAY lets the ones at or
	 * below its last id finish; then a new connection, no error */
	if (c->goaway == 1 && !c->inflight)
		return 1;
	if (!nghttp2_session_want_read(s) && !nghttp2_session_want_write(s)) {
		if (c->inflight)
			lc_error(c, E_RESET);
		return -1; /* GOAWAY with an error: a new connection */
	}
	return 0;
}

const struct lc_protocol lc_h2 = {
	.name = "h2",
	.global_init = lc_h2_global_init,
	.global_free = lc_h2_global_free,
	.start = lc_h2_start,
	.io = lc_h2_io,
	.bye = lc_h2_bye,
	.free = lc_h2_free,
};

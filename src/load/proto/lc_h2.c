/* hxload's HTTP/2 client through nghttp2: -m concurrent streams per connection. */
#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "lc_conn.h"
#include "lc_record.h"
#include "lc_thread.h"
#include "lc_hits.h"
#include "lc_h2_mem.h"

static nghttp2_session_callbacks *cbs;
static nghttp2_option *opt;

/* ex_of() when the hint missed */
static __attribute__((noinline)) struct lc_ex *ex_scan(struct lc_conn *c, int32_t id)
{
	size_t step = (size_t)c->t->nconns;
	struct lc_ex *e = c->ex;

	for (uint32_t k = 0; k < c->ex_used; k++, e += step)
		if (e->id == id) {
			c->ex_hint = k;
			return e;
		}
	return NULL;
}

/* <c>'s exchange on stream <id> (> 0), NULL: none. WHY the hint first:
 * called for each header, and a response's headers come together; the
 * scan alone, with the slots a stride apart (LC_EX), cost 63 instructions
 * a request more than with them side by side */
static inline struct lc_ex *ex_of(struct lc_conn *c, int32_t id)
{
	struct lc_ex *e = LC_EX(c, c->ex_hint);

	return c->ex_hint < c->ex_used && e->id == id ? e : ex_scan(c, id);
}

static int header_cb(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *n, size_t nl,
		     const uint8_t *v, size_t vl, uint8_t flags, void *user)
{
	struct lc_ex *e = ex_of(user, f->hd.stream_id);

	(void)s, (void)flags;
	if (!e || f->hd.type != NGHTTP2_HEADERS)
		return 0;
	if (nl == 7 && !memcmp(n, ":status", 7) && vl == 3 && v[0] == '1') /* an interim head: 103, 100 */
		((struct lc_conn *)user)->t->st.interim++;
	else if (nl == 7 && !memcmp(n, ":status", 7) && vl == 3)
		lc_head(user, e, (unsigned)((v[0] - '0') * 100 + (v[1] - '0') * 10 + (v[2] - '0')));
	else if (nl == 5 && !memcmp(n, "x-rsp", 5))
		lc_xrsp(e, (const char *)v, vl);
	else if (nl == 13 && !memcmp(n, "x-hxterm-made", 13))
		lc_made(e, (const char *)v, vl);
	else if (nl == 16 && !memcmp(n, "x-hxterm-ignored", 16))
		lc_ignored(((struct lc_conn *)user)->t, (const char *)v, vl);
	else if (unlikely(lc_rd->head != NULL))
		lc_rd->head(e, (const char *)n, nl, (const char *)v, vl);
	return 0;
}

static int data_cb(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data, size_t len,
		   void *user)
{
	struct lc_ex *e = ex_of(user, id);

	(void)s, (void)flags;
	if (e)
		lc_verify(e, (const char *)data, len);
	return 0;
}

static int close_cb(nghttp2_session *s, int32_t id, uint32_t code, void *user)
{
	struct lc_conn *c = user;
	struct lc_ex *e = ex_of(c, id);

	(void)s;
	if (!e)
		return 0;
	/* WHY a retry: REFUSED_STREAM (RFC 9113 8.7) and a stream above a
	 * GOAWAY's last id (6.8; nghttp2 closes those with it) were never
	 * processed, so they go again on a new connection: nginx's
	 * http2_max_requests recycling is no error */
	if (code == NGHTTP2_REFUSED_STREAM) {
		lc_retry(c, e);
	} else if (code) {
		lc_fail(c, e, E_RESET);
	} else {
		lc_record(c, e);
	}
	e->id = -1;
	c->inflight--;
	return 0;
}

static ssize_t body_cb(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
		       nghttp2_data_source *src, void *user)
{
	uint64_t *left = nghttp2_session_get_stream_user_data(s, id);
	size_t n = (size_t)MIN((uint64_t)len, *left);

	(void)src, (void)user;
	memset(buf, lc_tg->grpc ? 0 : 'u', n); /* gRPC: an empty message */
	*left -= n;
	if (!*left)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

static void submit(nghttp2_session *s, struct lc_ex *e)
{
	const struct lc_opts *o = lc_o;
	const struct lc_target *tg = lc_tg;
	nghttp2_nv nv[4 + 3 + 32];
	size_t n = 0;
	nghttp2_data_provider prd = { .read_callback = body_cb };

#define NV(a, b, bl) nv[n++] = (nghttp2_nv){ (uint8_t *)(a), (uint8_t *)(b), strlen(a), (bl), NGHTTP2_NV_FLAG_NONE }
	NV(":method", o->method, strlen(o->method));
	NV(":scheme", tg->tls ? "https" : "http", tg->tls ? 5 : 4);
	NV(":authority", tg->authority, strlen(tg->authority));
	NV(":path", tg->paths[e->path].path, strlen(tg->paths[e->path].path));
	if (tg->grpc) {
		NV("content-type", "application/grpc", 16);
		NV("te", "trailers", 8);
		if (tg->paths[e->path].meta)
			NV("x-hxterm", tg->paths[e->path].meta, strlen(tg->paths[e->path].meta));
	}
	for (int i = 0; i < o->nhdrs; i++) {
		const char *colon = strchr(o->hdrs[i], ':');
		static __thread char lname[32][128];
		size_t nl = (size_t)(colon - o->hdrs[i]);

		for (size_t k = 0; k < nl && k < 127; k++)
			lname[i][k] = (char)(o->hdrs[i][k] | 0x20);
		lname[i][MIN(nl, (size_t)127)] = 0;
		nv[n++] = (nghttp2_nv){ (uint8_t *)lname[i], (uint8_t *)colon + 1 + (colon[1] == ' '),
					strlen(lname[i]), strlen(colon + 1 + (colon[1] == ' ')),
					NGHTTP2_NV_FLAG_NONE };
	}
#undef NV
	e->body_left = o->body;
	e->id = nghttp2_submit_request(s, NULL, nv, n, o->body ? &prd : NULL, &e->body_left);
}

/* the server's SETTINGS: its stream limit as it changes after the first */
static void peer_settings(struct lc_conn *c, const nghttp2_settings *set)
{
	struct lc_stats *st = &c->t->st;

	for (size_t i = 0; i < set->niv; i++) {
		uint32_t v = set->iv[i].value;

		if (set->iv[i].settings_id != NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
			continue;
		if (c->h2_set && v != c->h2_streams) {
			st->limit_min = st->limit_changes ? MIN(st->limit_min, (uint64_t)v) : v;
			st->limit_last = v;
			st->limit_changes++;
		}
		c->h2_streams = v;
	}
	c->h2_set = 1;
}

static int frame_cb(nghttp2_session *s, const nghttp2_frame *f, void *user)
{
	struct lc_conn *c = user;

	(void)s;
	if (f->hd.type == NGHTTP2_GOAWAY && !c->goaway) {
		c->goaway = f->goaway.error_code == NGHTTP2_NO_ERROR ? 1 : 2;
		c->goaway_sid = f->goaway.last_stream_id;
		c->t->st.goaways += c->goaway == 1 && c->up == 2;
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
	struct lc_conn *c = user;

	(void)s;
	if (c->goaway && hd->stream_id > c->goaway_sid && (hd->type == NGHTTP2_HEADERS || hd->type == NGHTTP2_DATA))
		c->t->st.past_goaway++;
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
		int drained;
		long n = xprt_recv(&c->nc.x, c->in, c->in_size, &drained);

		if (drained && !(c->nc.flags & NC_RDHUP)) /* WHY: a FIN with the last bytes raises no new edge */
			c->nc.flags &= ~NC_RD_READY;
		if (n == XPRT_AGAIN)
			break;
		/* WHY no error: the server closes once a graceful GOAWAY's streams are done */
		if (n <= 0 && c->goaway == 1 && !c->inflight)
			return 1;
		if (n <= 0) {
			lc_error(c, E_RESET);
			return -1;
		}
		if (lc_first_bytes(c, c->in, (size_t)n) < 0)
			return -1;
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

/* HTTP/2 connections through nghttp2: h2c prior knowledge, Upgrade: h2c, ALPN h2. */
#include <errno.h>
#include <ctype.h>
#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "body.h"
#include "clock.h"
#include "config.h"
#include "fmt.h"
#include "h2_conn.h"
#include "log.h"
#include "oq.h"
#include "plan.h"
#include "resp.h"
#include "rio.h"
#include "session.h"
#include "timer.h"
#include "ws_stream.h"
#include "xstream.h"

#define STAGE_MAX   (1 << 20) /* bytes staged per writev */

/* connection flags */
#define H2C_RD_READY 0x01
#define H2C_WR_READY 0x02
#define H2C_DEAD     0x04
#define H2C_BLOCKED  0x08 /* nghttp2 wanted to send but the queue was full */
#define H2C_RDHUP    0x10 /* the peer shut its side: read on to EOF */
#define H2C_EARLY    0x20 /* reading TLS early data: its streams say early=1 */

#define H2_SCAN_MS   1000 /* how often open streams are checked for stalls */

struct h2c;

struct h2s {
	struct h2c *c;
	struct list node;    /* on the connection's streams or the free list */
	int32_t id;
	uint64_t since;      /* ms: its last progress, for its stall deadline */
	struct wss *wss;     /* an extended CONNECT's WebSocket, or NULL */
	struct xstream x;
};

struct h2c {
	struct ev ev;
	struct xprt x;
	struct timer tm;
	struct worker *w;
	struct list node;    /* on the worker's live or free list */
	nghttp2_session *sess;
	uint32_t flags;
	uint32_t nstreams;
	uint32_t total;      /* streams opened on it, for the stats */
	uint8_t sp;          /* SP_H2 or SP_H2C */
	uint8_t why;         /* why it ends (enum st_close), SC_UNSET: the peer */
	char *in;
	uint32_t in_size;
	uint64_t last_act;
	uint64_t scan_at;    /* ms: the next look at its streams' stalls */
	uint64_t rst_sec;    /* second of the reset count */
	uint32_t rst_count;
	uint16_t alt_port;   /* Alt-Svc h3 port, 0: none */
	struct cinfo *ci;    /* the client beyond the socket (X-Client), or NULL */
	struct list streams; /* live streams, freed with the connection */
	struct big *big;     /* oversized frames staged outside the scratch */
	struct oq oq;
	struct rio rio;      /* --io-uring, clear text: the ring transport (x.rio) */
};

/* a frame larger than the scratch area (a padded head), kept until sent */
struct big {
	struct big *next;
	char data[];
};

static void h2c_run(struct h2c *c);
static const struct xs_ops h2s_ops;

/* ---------- streams ---------- */

static struct h2s *h2s_get(struct h2c *c, int32_t id)
{
	struct worker *w = c->w;
	struct list *n = list_pop(&h2w(w)->free_s);
	struct h2s *s = n ? list_elem(n, struct h2s, node) : malloc(sizeof(*s));

	if (!s)
		return NULL;
	s->c = c;
	s->id = id;
	s->wss = NULL;
	s->since = w->loop.now_ms;
	if (c->scan_at <= w->loop.now_ms)
		c->scan_at = w->loop.now_ms + H2_SCAN_MS;
	c->total++;
	xs_init(&s->x, w, &h2s_ops, (enum st_proto)c->sp, c->total, (struct cpeer){ c->ev.fd, NULL, &c->ci });
	list_add(&c->streams, &s->node);
	c->nstreams++;
	return s;
}

static void h2s_put(struct h2s *s);

/* every stream of <c> back to the free list */
static void h2s_put_all(struct h2c *c)
{
	while (!list_empty(&c->streams))
		h2s_put(list_elem(c->streams.next, struct h2s, node));
}

static void h2s_put(struct h2s *s)
{
	struct worker *w = s->c->w;

	xs_release(&s->x);
	wss_free(s->wss);
	s->wss = NULL;
	s->c->nstreams--;
	list_del(&s->node);
	list_add(&h2w(w)->free_s, &s->node);
}

/* ---------- the response ---------- */

static ssize_t read_cb(nghttp2_session *sess, int32_t id, uint8_t *buf, size_t len,
		       uint32_t *flags, nghttp2_data_source *src, void *user);

/* WHY the cast: nghttp2_nv is laid out as xstream's nv pairs */
_Static_assert(sizeof(nghttp2_nv) == sizeof(struct xs_nv) &&
	       offsetof(nghttp2_nv, valuelen) == offsetof(struct xs_nv, valuelen) &&
	       offsetof(nghttp2_nv, flags) == offsetof(struct xs_nv, flags), "nghttp2_nv layout");

/* the first reason given is the one counted */
static void h2c_why(struct h2c *c, unsigned why)
{
	if (c->why == SC_UNSET)
		c->why = (uint8_t)why;
}

static struct h2s *h2s_of(struct xstream *x)
{
	return container_of(x, struct h2s, x);
}

/* the stream cannot be answered (out of memory): reset, never left hanging */
static void h2s_fail(struct xstream *x)
{
	struct h2s *s = h2s_of(x);

	ctr_add(&s->c->w->st.errors, 1);
	nghttp2_submit_rst_stream(s->c->sess, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_INTERNAL_ERROR);
}

/* ---------- a WebSocket on the stream (extended CONNECT) ---------- */

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

/* the session has frames again, or ended: the stream follows */
static void ws_kick(void *stream)
{
	struct h2s *s = stream;
	struct h2c *c = s->c;

	s->since = c->w->loop.now_ms;
	if (s->wss->st != WS_GOING && wss_pending(s->wss)) {
		nghttp2_session_resume_data(c->sess, s->id); /* WHY: what came before the fault goes first */
	} else if (s->wss->st == WS_RESET || s->wss->st == WS_FAILED) {
		if (s->wss->st == WS_RESET)
			ctr_add(&c->w->st.fault_reset, 1);
		nghttp2_submit_rst_stream(c->sess, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_CANCEL);
	} else if (s->wss->st == WS_CUT) {
		ctr_add(&c->w->st.fault_close, 1);
		h2c_why(c, SC_FAULT);
		nghttp2_session_terminate_session(c->sess, NGHTTP2_NO_ERROR);
	} else {
		nghttp2_session_resume_data(c->sess, s->id);
	}
	/* WHY a timer at once: from the session's own timer nothing else
	 * would send what was resumed */
	if (!timer_queued(&c->tm) || c->tm.expire > c->w->loop.now_us)
		timer_arm(&c->w->loop.timers, &c->tm, c->w->loop.now_us);
}

/* an extended CONNECT with ws= (or none: an echo) becomes a WebSocket; the
 * 200 goes at once, without a length (RFC 8441 5) */
static int h2s_ws_start(struct h2s *s)
{
	struct plan *p = &s->x.ex.plan;

	if (!(s->wss = wss_new(p, &s->c->w->rng, &s->c->w->loop, ws_kick, s)))
		return -1;
	p->size = 0;
	p->flags = (p->flags & ~(PF_CHUNK | PF_LIE | PF_RESET | PF_TRUNC | PF_PIECE)) | PF_NOLEN | PF_ACKFIRST;
	p->wait_ms = 0;
	return 0;
}

static void h2s_respond(struct xstream *x)
{
	struct h2s *s = h2s_of(x);
	nghttp2_data_provider prd = { .source.ptr = s, .read_callback = s->wss ? ws_read_cb : read_cb };
	struct xs_nv *nv;
	long n = xs_head_nv(x, &nv);

	if (n < 0)
		return h2s_fail(x);
	ctr_add(&s->c->w->st.requests, 1);
	if (nghttp2_submit_response(s->c->sess, s->id, (nghttp2_nv *)nv, (size_t)n,
				    ex_has_body(&x->ex) || s->wss ? &prd : NULL))
		h2s_fail(x);
	xs_nv_done(nv);
}

static void h2s_resume(struct xstream *x)
{
	struct h2s *s = h2s_of(x);

	nghttp2_session_resume_data(s->c->sess, s->id);
}

static void h2s_run(struct xstream *x)
{
	h2c_run(h2s_of(x)->c);
}

static const struct xs_ops h2s_ops = {
	.respond = h2s_respond,
	.resume = h2s_resume,
	.fail = h2s_fail,
	.run = h2s_run,
};

/* ---------- nghttp2 callbacks: thin trampolines ---------- */

/* the trailers, if any, go after this last DATA frame */
static void h2s_trailers(nghttp2_session *sess, struct h2s *s, uint32_t *flags)
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
	struct exch *x = &s->x.ex;
	uint64_t frame = ex_frame(x);
	struct ex_action a;

	(void)buf, (void)user, (void)id;
	switch (ex_next(x, frame ? MIN(frame, (uint64_t)len) : len, s->c->w->loop.now_us, &a)) {
	case EXA_RESET:
		ctr_add(&s->c->w->st.fault_reset, 1);
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	case EXA_CLOSE:
		ctr_add(&s->c->w->st.fault_close, 1);
		h2c_why(s->c, SC_FAULT);
		nghttp2_session_terminate_session(sess, NGHTTP2_NO_ERROR);
		return NGHTTP2_ERR_DEFERRED;
	case EXA_PAUSE:
		if (xs_pause(&s->x, a.until_us) < 0)
			return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
		return NGHTTP2_ERR_DEFERRED;
	case EXA_END:
		h2s_trailers(sess, s, flags);
		return 0;
	case EXA_DATA:
		break;
	}
	*flags |= NGHTTP2_DATA_FLAG_NO_COPY;
	if (!ex_left(x) && a.off + a.len == x->rs.body)
		h2s_trailers(sess, s, flags);
	return (ssize_t)a.len;
}

static int send_data_cb(nghttp2_session *sess, nghttp2_frame *frame, const uint8_t *hd,
			size_t len, nghttp2_data_source *src, void *user)
{
	struct h2c *c = user;
	struct h2s *s = src->ptr;
	struct oq *q = &c->oq;
	uint64_t off = s->x.ex.out_off - len; /* read_cb already moved past it */

	(void)sess, (void)frame;
	if (oq_iov_room(q) < 2 + (int)(len / body_slice_max()) + 2 || oq_sc_room(q) < 16 ||
	    q->bytes >= STAGE_MAX) {
		c->flags |= H2C_BLOCKED;
		return NGHTTP2_ERR_WOULDBLOCK;
	}
	oq_copy(q, hd, 9);
	while (len) {
		const char *ptr;
		size_t n;

		n = ex_slice(&s->x.ex, off, len, &ptr);
		oq_ref(q, ptr, n);
		off += n;
		len -= n;
	}
	return 0;
}

static int begin_headers_cb(nghttp2_session *sess, const nghttp2_frame *frame, void *user)
{
	struct h2c *c = user;
	struct h2s *s;

	if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	s = h2s_get(c, frame->hd.stream_id);
	if (!s)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	if (c->flags & H2C_EARLY)
		s->x.flags |= XS_EARLY;
	nghttp2_session_set_stream_user_data(sess, frame->hd.stream_id, s);
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

/* RFC 9113 rapid reset (CVE-2023-44487): too many resets a second */
static int h2c_count_reset(struct h2c *c)
{
	uint64_t sec = c->w->loop.now_ms / 1000;

	if (sec != c->rst_sec) {
		c->rst_sec = sec;
		c->rst_count = 0;
	}
	if (++c->rst_count <= cfg.h2_max_resets)
		return 0;
	nghttp2_session_terminate_session(c->sess, NGHTTP2_ENHANCE_YOUR_CALM);
	if (cfg.debug)
		log_debug("thread %d fd %d: rapid reset, GOAWAY ENHANCE_YOUR_CALM", c->w->id, c->ev.fd);
	return 1;
}

static void h2s_request_in(struct h2s *s, int end_stream)
{
	static const nghttp2_nv cont[] = {
		{ (uint8_t *)":status", (uint8_t *)"100", 7, 3, NGHTTP2_NV_FLAG_NONE },
	};

	if (end_stream)
		s->x.flags |= XS_ENDREQ;
	if (s->x.flags & XS_READY)
		return;
	if (xs_answer_now(&s->x, end_stream)) {
		xs_ready(&s->x);
	} else if (s->x.flags & XS_EXPECT) {
		s->x.flags &= ~XS_EXPECT;
		nghttp2_submit_headers(s->c->sess, NGHTTP2_FLAG_NONE, s->id, NULL, cont, 1, NULL);
	}
}

/* GOAWAY and RST_STREAM that went out, counted by code */
static int frame_send_cb(nghttp2_session *sess, const nghttp2_frame *frame, void *user)
{
	struct h2c *c = user;

	(void)sess;
	if (frame->hd.type == NGHTTP2_GOAWAY) {
		ctr_add(&c->w->st.h2_goaway[st_h2e(frame->goaway.error_code)], 1);
		if (frame->goaway.error_code)
			h2c_why(c, SC_BAD); /* a flood, a protocol error */
	}
	else if (frame->hd.type == NGHTTP2_RST_STREAM)
		ctr_add(&c->w->st.h2_rst_sent[st_h2e(frame->rst_stream.error_code)], 1);
	return 0;
}

static int frame_recv_cb(nghttp2_session *sess, const nghttp2_frame *frame, void *user)
{
	struct h2c *c = user;
	struct h2s *s = nghttp2_session_get_stream_user_data(sess, frame->hd.stream_id);
	int end = !!(frame->hd.flags & NGHTTP2_FLAG_END_STREAM);

	switch (frame->hd.type) {
	case NGHTTP2_HEADERS:
		if (!s)
			break;
		if (!(s->x.flags & XS_HEADERS)) {
			s->x.ex.rq.alt_port = c->alt_port;
			xs_headers_done(&s->x, &c->w->rng);
			if (s->x.ex.plan.ws && h2s_ws_start(s) < 0)
				h2s_fail(&s->x);
		}
		h2s_request_in(s, end);
		break;
	case NGHTTP2_DATA:
		if (s && s->wss && end)
			wss_in(s->wss, NULL, 0, 1);
		if (s)
			h2s_request_in(s, end);
		break;
	case NGHTTP2_RST_STREAM:
		ctr_add(&c->w->st.h2_rst_recv[st_h2e(frame->rst_stream.error_code)], 1);
		h2c_count_reset(c);
		break;
	}
	return 0;
}

static int data_chunk_cb(nghttp2_session *sess, uint8_t flags, int32_t id, const uint8_t *data,
			 size_t len, void *user)
{
	struct h2s *s = nghttp2_session_get_stream_user_data(sess, id);

	(void)flags, (void)user;
	if (s && s->wss) {
		s->since = s->c->w->loop.now_ms;
		wss_in(s->wss, data, len, 0);
	} else if (s) {
		s->since = s->c->w->loop.now_ms;
		s->x.body_read += len;
		if (s->x.flags & XS_HEADERS)
			h2s_request_in(s, 0);
	}
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

static int h2_init(void)
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
	{
		nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, begin_headers_cb);
		nghttp2_session_callbacks_set_on_header_callback(cbs, header_cb);
		nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, frame_recv_cb);
		nghttp2_session_callbacks_set_on_frame_send_callback(cbs, frame_send_cb);
		nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, data_chunk_cb);
		nghttp2_session_callbacks_set_on_stream_close_callback(cbs, stream_close_cb);
		nghttp2_session_callbacks_set_send_data_callback(cbs, send_data_cb);
	}
	return 0;
}

static void h2_free(void)
{
	nghttp2_session_callbacks_del(cbs);
	nghttp2_option_del(opts);
}

/* ---------- connection I/O ---------- */

static void big_free(struct h2c *c)
{
	while (c->big) {
		struct big *b = c->big;

		c->big = b->next;
		free(b);
	}
}

static int h2c_flush(struct h2c *c)
{
	uint64_t sent;
	int r;

	if (!(c->flags & H2C_WR_READY) && oq_pending(&c->oq))
		return 0;
	r = oq_flush(&c->oq, &c->x, &sent);
	/* WHY a ring send too: --send-timeout counts from when it went out,
	 * not from the last recv before a long t= wait */
	if (sent || (r == 0 && c->x.rio)) {
		c->last_act = c->w->loop.now_ms;
		ctr_add(&c->w->st.bytes_out, sent);
	}
	if (r == 1)
		big_free(c);
	else if (r == 0)
		c->flags &= ~H2C_WR_READY;
	else
		c->flags |= H2C_DEAD;
	return r;
}

/* stages one serialized chunk from nghttp2; returns -1 when out of memory */
static int h2c_stage(struct h2c *c, const uint8_t *data, size_t n)
{
	struct big *b;

	if (n <= oq_sc_room(&c->oq) && oq_iov_room(&c->oq) > 4) {
		oq_copy(&c->oq, data, n);
		return 0;
	}
	if (oq_iov_room(&c->oq) < 1 || !(b = malloc(sizeof(*b) + n)))
		return -1;
	memcpy(b->data, data, n);
	b->next = c->big;
	c->big = b;
	oq_ref(&c->oq, b->data, n);
	return 0;
}

/* serializes what nghttp2 wants to send and writes it: 0 or -1 dead */
static int h2c_send(struct h2c *c)
{
	for (;;) {
		const uint8_t *data;
		ssize_t n;

		if ((oq_sc_room(&c->oq) < 16384 || oq_iov_room(&c->oq) < 8 ||
		     c->oq.bytes >= STAGE_MAX) && h2c_flush(c) <= 0)
			return c->flags & H2C_DEAD ? -1 : 0;
		c->flags &= ~H2C_BLOCKED;
		n = nghttp2_session_mem_send(c->sess, &data);
		if (n < 0 || (n > 0 && h2c_stage(c, data, (size_t)n) < 0))
			return c->flags |= H2C_DEAD, -1;
		if (n == 0 && !(c->flags & H2C_BLOCKED))
			break;
		if (n == 0 && h2c_flush(c) <= 0)
			return c->flags & H2C_DEAD ? -1 : 0;
	}
	return h2c_flush(c) < 0 ? -1 : 0;
}

/* A fatal error nghttp2 will not answer (a bad client preface): a GOAWAY
 * PROTOCOL_ERROR written by hand, best effort, before the close. */
static void h2c_fatal(struct h2c *c)
{
	if (cfg.debug)
		log_debug("thread %d fd %d: HTTP/2 protocol error, GOAWAY", c->w->id, c->ev.fd);
	static const uint8_t goaway[] = { 0, 0, 8, NGHTTP2_GOAWAY, 0, 0, 0, 0, 0,
					   0, 0, 0, 0, 0, 0, 0, NGHTTP2_PROTOCOL_ERROR };
	struct iovec iov = { (void *)goaway, sizeof(goaway) };

	nghttp2_session_terminate_session(c->sess, NGHTTP2_PROTOCOL_ERROR);
	if (h2c_send(c) == 0 && !oq_pending(&c->oq) && !nghttp2_session_want_write(c->sess))
		return;
	xprt_writev(&c->x, &iov, 1, 0);
}

static int h2c_recv(struct h2c *c)
{
	while (c->flags & H2C_RD_READY) {
		int drained;
		long n = xprt_recv(&c->x, c->in, c->in_size, &drained);

		if (drained && !(c->flags & H2C_RDHUP))
			c->flags &= ~H2C_RD_READY;
		if (n == XPRT_AGAIN)
			break;
		if (n <= 0)
			return -1;
		c->last_act = c->w->loop.now_ms;
		ctr_add(&c->w->st.bytes_in, (uint64_t)n);
		if (nghttp2_session_mem_recv(c->sess, (uint8_t *)c->in, (size_t)n) < 0) {
			h2c_fatal(c);
			return -1;
		}
		if (h2c_send(c) < 0)
			return -1;
	}
	return 0;
}

/* the socket closed, the memory ready for the next connection */
static void h2c_recycle(struct h2c *c)
{
	big_free(c);
	close(c->ev.fd);
	loop_drop(&c->w->loop, &c->ev);
	c->x.rio = NULL;
	list_add(&h2w(c->w)->free, &c->node);
}

static void h2c_free(struct h2c *c)
{
	struct worker *w = c->w;

	h2s_put_all(c);
	timer_cancel(&w->loop.timers, &c->tm);
	nghttp2_session_del(c->sess);
	c->sess = NULL;
	xprt_release(&c->x);
	free(c->ci);
	c->ci = NULL;
	list_del(&c->node);
	sess_conn_gone(w);
	st_conn_close(&w->st, (enum st_proto)c->sp, c->total, c->why);
	/* WHY: the ring may still read into <in> or send from the queue */
	if (c->x.rio && rio_close(c->x.rio))
		list_add(&h2w(w)->zombies, &c->node);
	else
		h2c_recycle(c);
}

/* a completion of the connection's ring transport */
static void h2c_wake(struct rio *r, int what)
{
	struct h2c *c = container_of(r, struct h2c, rio);

	if (!what) { /* the last operation of a closed connection */
		list_del(&c->node);
		h2c_recycle(c);
		return;
	}
	if (what < 0) {
		c->flags |= H2C_DEAD;
	} else if (what == RIO_TX) {
		oq_sent(&c->oq, (size_t)r->sent);
		c->last_act = c->w->loop.now_ms;
		ctr_add(&c->w->st.bytes_out, r->sent);
		c->flags |= H2C_WR_READY;
	} else {
		c->flags |= H2C_RD_READY;
	}
	h2c_run(c);
}

static uint64_t h2c_deadline(const struct h2c *c)
{
	uint64_t d = c->nstreams ? UINT64_MAX : c->last_act + cfg.idle_ms;

	if (oq_pending(&c->oq))
		d = MIN(d, c->last_act + cfg.send_ms);
	return d;
}

/* when to look again: the connection's deadline, or the next stall scan */
static uint64_t h2c_wake_at(const struct h2c *c)
{
	uint64_t d = h2c_deadline(c);

	return c->nstreams ? MIN(d, c->scan_at) : d;
}

/* the connection ends (GOAWAY, then close), counted as a timeout */
static void h2c_time_out(struct h2c *c)
{
	h2c_why(c, SC_TIMEOUT);
	nghttp2_session_terminate_session(c->sess, NGHTTP2_NO_ERROR);
}

/* Each stream against the timeout of its state, so that no state holds a
 * connection for ever (an HTTP/2 slowloris): a header block never ended
 * (--head-timeout: GOAWAY), a request body that stopped (--body-timeout:
 * RST_STREAM CANCEL), a response held by the peer's flow-control window
 * (--send-timeout: RST_STREAM CANCEL, or GOAWAY when the connection's own
 * window is shut). A t= wait or a d= pause is no stall. */
static void h2c_scan(struct h2c *c)
{
	uint64_t now = c->w->loop.now_ms;
	int32_t cwin = nghttp2_session_get_remote_window_size(c->sess);
	struct list *n, *tmp;

	c->scan_at = now + H2_SCAN_MS;
	list_each_safe(n, tmp, &c->streams) {
		struct h2s *s = list_elem(n, struct h2s, node);
		uint32_t f = s->x.flags;

		if (!(f & XS_HEADERS)) {
			if (now >= s->since + cfg.head_ms)
				return h2c_time_out(c);
		} else if (!(f & (XS_ENDREQ | XS_RESPONDED))) {
			if (now >= s->since + cfg.body_ms)
				nghttp2_submit_rst_stream(c->sess, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_CANCEL);
		} else if ((f & XS_RESPONDED) && ex_left(&s->x.ex) && !s->x.ex.paused && !timer_queued(&s->x.tm) &&
			   (cwin <= 0 || nghttp2_session_get_stream_remote_window_size(c->sess, s->id) <= 0)) {
			if (now < s->since + cfg.send_ms)
				continue;
			if (cwin <= 0)
				return h2c_time_out(c);
			nghttp2_submit_rst_stream(c->sess, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_CANCEL);
		} else {
			s->since = now; /* waiting t=, paused, or moving: no stall */
		}
	}
}

static void h2c_run(struct h2c *c)
{
	uint64_t d;

	if (!(c->flags & H2C_DEAD) && (h2c_recv(c) < 0 || h2c_send(c) < 0))
		c->flags |= H2C_DEAD;
	if (!(c->flags & H2C_DEAD) && !oq_pending(&c->oq) &&
	    !nghttp2_session_want_read(c->sess) && !nghttp2_session_want_write(c->sess))
		c->flags |= H2C_DEAD; /* GOAWAY done, or the peer is gone */
	if (c->flags & H2C_DEAD) {
		h2c_free(c);
		return;
	}
	if (c->x.rio) /* the recv it waits for, once this turn is over */
		rio_arm(c->x.rio, c->in, c->in_size);
	d = h2c_wake_at(c);
	if (d != UINT64_MAX && (!timer_queued(&c->tm) || c->tm.expire > d * 1000))
		timer_arm(&c->w->loop.timers, &c->tm, d * 1000);
}

static void h2c_timer_cb(struct loop *l, struct timer *t)
{
	struct worker *w = worker_of(l);
	struct h2c *c = container_of(t, struct h2c, tm);

	if (c->nstreams && w->loop.now_ms >= c->scan_at)
		h2c_scan(c);
	if (w->loop.now_ms >= h2c_deadline(c)) {
		if (oq_pending(&c->oq)) {
			c->flags |= H2C_DEAD; /* the client stopped reading */
			h2c_why(c, SC_TIMEOUT);
		} else {
			h2c_why(c, SC_IDLE);
			nghttp2_session_terminate_session(c->sess, NGHTTP2_NO_ERROR);
		}
	}
	h2c_run(c);
}

static void h2c_io_cb(struct loop *l, struct ev *e, uint32_t events)
{
	struct h2c *c = container_of(e, struct h2c, ev);

	(void)l;
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		c->flags |= H2C_RD_READY;
	if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		c->flags |= H2C_RDHUP;
	if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
		c->flags |= H2C_WR_READY;
	h2c_run(c);
}

static struct h2c *h2c_get(struct worker *w)
{
	struct list *n = list_pop(&h2w(w)->free);
	struct h2c *c;

	if (n)
		return list_elem(n, struct h2c, node);
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->in_size = (uint32_t)cfg.iobuf;
	c->in = malloc(c->in_size);
	if (!c->in || oq_alloc(&c->oq, 65536) < 0) {
		free(c->in);
		oq_free(&c->oq);
		free(c);
		return NULL;
	}
	return c;
}

static int h2c_session(struct h2c *c)
{
	nghttp2_settings_entry iv[] = {
		{ NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, cfg.h2_streams },
		{ NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, cfg.h2_window },
		{ NGHTTP2_SETTINGS_MAX_FRAME_SIZE, cfg.h2_frame },
		{ NGHTTP2_SETTINGS_HEADER_TABLE_SIZE, cfg.h2_table },
		{ NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, (uint32_t)cfg.iobuf },
		{ NGHTTP2_SETTINGS_ENABLE_PUSH, 0 },
		{ NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL, 1 }, /* WHY: WebSocket (RFC 8441) */
	};

	if (nghttp2_session_server_new2(&c->sess, cbs, c, opts))
		return -1;
	if (nghttp2_submit_settings(c->sess, NGHTTP2_FLAG_NONE, iv, ARRAY_SIZE(iv)) ||
	    nghttp2_session_set_local_window_size(c->sess, NGHTTP2_FLAG_NONE, 0,
						  (int32_t)cfg.h2_conn_window))
		return -1;
	return 0;
}

/* base64url (RFC 4648 5) without padding, for HTTP2-Settings */
static long b64url_decode(struct ist in, uint8_t *out, size_t max)
{
	uint32_t acc = 0;
	int bits = 0;
	size_t n = 0;

	for (size_t i = 0; i < in.len; i++) {
		char ch = in.ptr[i];
		int v = ch >= 'A' && ch <= 'Z' ? ch - 'A' : ch >= 'a' && ch <= 'z' ? ch - 'a' + 26 :
			ch >= '0' && ch <= '9' ? ch - '0' + 52 : ch == '-' ? 62 : ch == '_' ? 63 :
			ch == '=' ? -2 : -1;

		if (v == -2)
			break;
		if (v < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			if (n == max)
				return -1;
			bits -= 8;
			out[n++] = (uint8_t)(acc >> bits);
		}
	}
	return (long)n;
}

/* stream 1 after Upgrade: h2c, answering the HTTP/1.1 request */
static int h2c_upgrade(struct h2c *c, const struct handoff *up)
{
	uint8_t settings[256];
	long n = b64url_decode(up->settings, settings, sizeof(settings));
	struct h2s *s;

	if (n < 0 || nghttp2_session_upgrade2(c->sess, settings, (size_t)n,
					      !!(up->ex->rq.flags & RQ_HEAD), NULL))
		return -1;
	/* WHY adopt: the exchange goes on with the plan it has; planning again
	 * would draw its random values a second time */
	if (!(s = h2s_get(c, 1)) || xs_adopt(&s->x, up->ex) < 0)
		return -1;
	nghttp2_session_set_stream_user_data(c->sess, 1, s);
	h2s_request_in(s, 1);
	return 0;
}

/* the connection on <x>: after ALPN h2, the h2 preface, or an Upgrade */
static int h2c_start(struct worker *w, struct xprt *x, const struct handoff *h)
{
	struct h2c *c = h2c_get(w);

	if (!c)
		return -1;
	c->w = w;
	c->ev = (struct ev){ x->fd, h2c_io_cb };
	c->tm = (struct timer){ 0, 0, h2c_timer_cb };
	c->flags = H2C_WR_READY | H2C_RD_READY;
	c->nstreams = c->total = 0;
	c->sp = x->ssl ? SP_H2 : SP_H2C;
	c->why = SC_UNSET;
	list_init(&c->streams);
	c->big = NULL;
	c->rst_sec = 0;
	c->rst_count = 0;
	c->scan_at = 0;
	c->alt_port = h->alt_port;
	c->ci = h->ci;
	c->last_act = w->loop.now_ms;
	oq_reset(&c->oq);
	if (h->early)
		c->flags |= H2C_EARLY;
	if (h2c_session(c) < 0 || (h->ex && h2c_upgrade(c, h) < 0) ||
	    (h->len && nghttp2_session_mem_recv(c->sess, (const uint8_t *)h->buf, h->len) < 0)) {
		c->ci = NULL; /* WHY: the caller still owns it */
		h2s_put_all(c);
		nghttp2_session_del(c->sess);
		list_add(&h2w(w)->free, &c->node);
		return -1;
	}
	c->flags &= ~H2C_EARLY;
	c->x = *x;
	/* WHY: on the ring, clear text reads and sends through it (h1 had it
	 * there too, so epoll never had the socket); else the socket may be
	 * registered under its previous owner, or not yet */
	if (w->loop.ring && !x->ssl) {
		rio_init(&c->rio, w->loop.ring, x->fd, h2c_wake, NULL);
		c->x.rio = &c->rio;
	} else {
		loop_rewatch(&w->loop, &c->ev, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET);
	}
	list_add(&h2w(w)->conns, &c->node);
	st_conn_open(&w->st, (enum st_proto)c->sp);
	h2c_run(c);
	return 0;
}

static void h2c_drain(struct worker *w)
{
	struct list *n, *tmp;

	list_each_safe(n, tmp, &h2w(w)->conns) {
		struct h2c *c = list_elem(n, struct h2c, node);

		h2c_why(c, SC_DRAIN);
		nghttp2_submit_goaway(c->sess, NGHTTP2_FLAG_NONE,
				      nghttp2_session_get_last_proc_stream_id(c->sess),
				      NGHTTP2_NO_ERROR, NULL, 0);
		h2c_run(c);
	}
}

static void h2_close_all(struct worker *w)
{
	struct list *n;

	while (h2w(w) && (n = h2w(w)->conns.next) != &h2w(w)->conns)
		h2c_free(list_elem(n, struct h2c, node));
}

static void h2_thread_free(struct worker *w)
{
	struct list *n;

	if (!h2w(w))
		return;
	while ((n = list_pop(&h2w(w)->free))) {
		struct h2c *c = list_elem(n, struct h2c, node);

		free(c->in);
		oq_free(&c->oq);
		free(c);
	}
	while ((n = list_pop(&h2w(w)->free_s)))
		free(list_elem(n, struct h2s, node));
	free(w->ps[P_H2]);
	w->ps[P_H2] = NULL;
}

static int h2_thread_init(struct worker *w)
{
	struct h2w *hw = calloc(1, sizeof(*hw));

	if (!hw)
		return -1;
	list_init(&hw->conns);
	list_init(&hw->free);
	list_init(&hw->free_s);
	list_init(&hw->zombies);
	w->ps[P_H2] = hw;
	return 0;
}

const struct proto proto_h2 = {
	.name = "h2",
	.alpn = "h2",
	.init = h2_init,
	.free = h2_free,
	.thread_init = h2_thread_init,
	.close_all = h2_close_all,
	.thread_free = h2_thread_free,
	.start = h2c_start,
	.drain = h2c_drain,
};

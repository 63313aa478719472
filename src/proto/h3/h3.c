/* HTTP/3 on the QUIC transport: its streams and their requests (nghttp3 reads them, or the memo), the generator's responses handed to the connection's engine (h3_tx.c or h3_ng.c). */
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "clock.h"
#include "config.h"
#include "fmt.h"
#include "qh3mem.h"
#include "h3.h"
#include "h3_eng.h"
#include "quic.h"
#include "qvarint.h"
#include "timer.h"
#include "session.h"
#include "xmemo.h"
#include "xstream.h"

static nghttp3_callbacks h3_cbs; /* set once, h3_callbacks() */
static const struct xs_ops h3s_ops;

/* streams a worker keeps on its free list, the others freed. WHY a cap: a
 * burst of thousands of streams left them all behind, for ever (as h2's) */
#ifndef H3S_KEEP
#define H3S_KEEP 256
#endif

static void h3s_keep(struct worker *w, const struct h3_eng *eng, struct h3s *s)
{
	if (h3w(w)->nfree[eng->slot] >= H3S_KEEP) {
		free(s);
		return;
	}
	list_add(&h3w(w)->free_qs[eng->slot], &s->node);
	h3w(w)->nfree[eng->slot]++;
}

static struct h3s *h3s_new(struct h3c *c, int64_t id)
{
	struct worker *w = c->q.w;
	const struct h3_eng *eng = c->eng;
	struct list *n = list_pop(&h3w(w)->free_qs[eng->slot]);
	struct h3s *s = n ? list_elem(n, struct h3s, node) : malloc(eng->ssize);

	h3w(w)->nfree[eng->slot] -= !!n;
	if (!s)
		return NULL;
	s->c = c;
	s->id = id;
	s->fault = 0;
	s->own = 0;
	s->bound = s->bad = 0;
	s->nfields = 0;
	s->walked = 0;
	qpk_walk_init(&s->walk);
	s->since = w->loop.now_ms;
	c->total++;
	/* WHY the datagram's time, not a clock read: the request's first byte
	 * came with it (h1 stamps its recv alike), and this stream opens while
	 * ngtcp2 reads it; one clock read a request less (3 were: here, the
	 * head's end, the answer) */
	xs_init(&s->x, w, &h3s_ops, SP_H3, c->total, (struct cpeer){ -1, &c->q.peer, &c->q.ci }, c->q.rx_ns);
	if (eng->init)
		eng->init(s);
	/* WHY: ngtcp2's acknowledgements and window updates of the stream
	 * then come to the engine, not to nghttp3, which never saw its response */
	if (eng->own_acks && quic_stream_bind(&c->q, id, s)) {
		xs_release(&s->x);
		h3s_keep(w, eng, s);
		return NULL;
	}
	list_add(&c->streams, &s->node);
	c->nstreams++;
	return s;
}

void h3s_free(struct h3s *s)
{
	struct h3c *c = s->c;
	const struct h3_eng *eng = c->eng;

	xs_release(&s->x);
	if (eng->release)
		eng->release(s);
	if (eng->own_acks)
		quic_stream_bind(&c->q, s->id, NULL); /* WHY no check: ngtcp2 may have closed it */
	c->nwalk -= !s->own && !s->walked;
	list_del(&s->node);
	c->nstreams--;
	c->nfaults -= s->fault;
	h3s_keep(c->q.w, eng, s);
}

/* the stream <id> that nghttp3 reads (not one answered from the memo), by a
 * look along the list: for the rare stream whose head came in pieces */
static struct h3s *stream_of(struct h3c *c, int64_t id)
{
	struct list *n, *tmp;

	list_each_safe(n, tmp, &c->streams) {
		struct h3s *s = list_elem(n, struct h3s, node);

		if (s->id == id && !s->own)
			return s;
	}
	return NULL;
}

/* ---------- the response ---------- */

/* WHY the cast: nghttp3_nv is laid out as xstream's nv pairs */
_Static_assert(sizeof(nghttp3_nv) == sizeof(struct xs_nv) &&
	       offsetof(nghttp3_nv, valuelen) == offsetof(struct xs_nv, valuelen) &&
	       offsetof(nghttp3_nv, flags) == offsetof(struct xs_nv, flags) &&
	       XS_NV_STATIC_NAME == NGHTTP3_NV_FLAG_NO_COPY_NAME, "nghttp3_nv layout");

static struct h3s *h3s_of(struct xstream *x)
{
	return container_of(x, struct h3s, x);
}

/* both directions of a stream reset with <code> (RESET_STREAM, STOP_SENDING), counted */
static void h3_reset(struct h3c *c, int64_t id, uint64_t code)
{
	ctr_add(&c->q.w->st.h3_rst_sent[st_h3e(code)], 1);
	quic_stream_shut(&c->q, id, code);
}

/* the stream cannot be answered (out of memory): reset, never left hanging */
static void h3s_fail(struct xstream *x)
{
	struct h3s *s = h3s_of(x);

	ctr_add(&s->c->q.w->st.errors, 1);
	h3_reset(s->c, s->id, NGHTTP3_H3_INTERNAL_ERROR);
	if (s->c->eng->shut)
		s->c->eng->shut(s);
}

/* h2s=, ping= of an answer, on its connection: the peer's stream credit
 * held under h2s= from now on (QUIC's MAX_STREAMS only rises: a lower
 * limit is credit not given back), a PING after every ping= ms quiet */
__attribute__((cold, noinline)) static void h3c_changes(struct h3c *c, const struct plan_conn *pc)
{
	if (pc->set & PC_STREAMS) {
		c->flags |= H3C_CAPPED;
		c->cap = pc->streams;
	}
	if ((pc->set & PC_PING) && pc->ping_ms)
		quic_keep_alive(&c->q, pc->ping_ms);
}

static void h3s_respond(struct xstream *x)
{
	struct h3s *s = h3s_of(x);
	struct xs_nv *nv;
	long n = xs_head_nv(x, &nv);
	int body;

	if (n < 0)
		return h3s_fail(x);
	if (ex_conn_keys(&x->ex) && ex_conn_changes(&x->ex))
		h3c_changes(s->c, ex_conn_changes(&x->ex));
	ctr_add(&s->c->q.w->st.requests, 1);
	body = ex_has_body(&x->ex);
	if (s->c->eng->respond(s, nv, (size_t)n, body)) {
		xs_nv_done(nv);
		return h3s_fail(x);
	}
	xs_nv_done(nv);
	/* WHY only with a body: without, the stream may end at once (its
	 * text goes back with it) */
	if (body)
		xs_head_sent(x);
}

static void h3s_resume(struct xstream *x)
{
	struct h3s *s = h3s_of(x);

	s->c->eng->resume(s);
}

static void h3s_run(struct xstream *x)
{
	struct h3c *c = h3s_of(x)->c;

	quic_write(&c->q);
	quic_done(&c->q);
}

static const struct xs_ops h3s_ops = {
	.respond = h3s_respond,
	.resume = h3s_resume,
	.fail = h3s_fail,
	.run = h3s_run,
};

static void h3s_request_in(struct h3s *s, int end)
{
	if (end)
		s->x.flags |= XS_ENDREQ;
	if ((s->x.flags & XS_HEADERS) && xs_answer_now(&s->x, end))
		xs_ready(&s->x);
}

/* x= resets the stream, X= closes the connection, once the bytes before went out */
void h3_faults(struct quic_conn *q)
{
	struct h3c *c = h3c_of(q);
	struct list *n, *tmp;

	list_each_safe(n, tmp, &c->streams) {
		struct h3s *s = list_elem(n, struct h3s, node);

		if (!c->nfaults)
			break;
		if (!s->fault)
			continue;
		s->fault = 0;
		c->nfaults--;
		if (s->fault_act == EXA_RESET) {
			ctr_add(&c->q.w->st.faults[SF_RESET], 1);
			h3_reset(c, s->id, NGHTTP3_H3_INTERNAL_ERROR);
		} else {
			ctr_add(&c->q.w->st.faults[SF_CLOSE], 1);
			quic_close_soon(&c->q, SC_FAULT);
		}
	}
}

/* ---------- nghttp3 callbacks ---------- */

static void consume(struct h3c *c, int64_t id, size_t n)
{
	quic_consume(&c->q, id, n);
}

/* the stream was made with its first bytes (h3_recv_stream), to walk them;
 * one whose walk ended before (no field section there) has none, and its
 * request is refused at end_headers (malformed()) */
static int begin_headers(nghttp3_conn *h3, int64_t id, void *cud, void *sud)
{
	struct h3s *s = ((struct h3c *)cud)->rd;

	(void)sud;
	if (!s || s->id != id) {
		if (!(s = stream_of(cud, id)) && !(s = h3s_new(cud, id)))
			return NGHTTP3_ERR_CALLBACK_FAILURE;
		s->c->nwalk -= !s->walked;
		s->walked = -1;
	}
	if (s->c->flags & H3C_EARLY)
		s->x.flags |= XS_EARLY; /* WHY: its HEADERS came in 0-RTT */
	s->bound = 1;
	nghttp3_conn_set_stream_user_data(h3, id, s);
	return 0;
}

static int recv_header(nghttp3_conn *h3, int64_t id, int32_t token, nghttp3_rcbuf *name,
		       nghttp3_rcbuf *value, uint8_t flags, void *cud, void *sud)
{
	struct h3s *s = sud;
	nghttp3_vec n = nghttp3_rcbuf_get_buf(name), v = nghttp3_rcbuf_get_buf(value);

	(void)h3, (void)id, (void)token, (void)flags;
	if (!s)
		return 0;
	s->nfields++;
	xs_header(&s->x, n.base, n.len, v.base, v.len);
	xm_field(&h3w(((struct h3c *)cud)->q.w)->memo, n.base, n.len, v.base, v.len);
	return 0;
}

/* WHY: nghttp3 0.8 drops a request field whose name or value RFC 9110 5.5
 * forbids (CR, LF, NUL, another control, a space at either end) and reads
 * the request on: a 200 for a malformed request, which RFC 9114 4.1.2 and
 * 4.2 make a stream error, H3_MESSAGE_ERROR, and which h2 refuses (nghttp2;
 * h2x_block.c). Its section held more field lines than it handed on:
 * the stream is reset (nghttp3 told after its read, h3_recv_stream). 1: so. */
static int malformed(struct h3s *s)
{
	if (s->walked == 1 && s->walk.lines == s->nfields)
		return 0;
	s->bad = 1;
	h3_reset(s->c, s->id, NGHTTP3_H3_MESSAGE_ERROR);
	if (s->c->eng->shut)
		s->c->eng->shut(s);
	return 1;
}

void h3_goaway(struct h3c *c)
{
	/* WHY a read of nothing: nghttp3's GOAWAY names the stream after the
	 * highest it read, and the memo's streams never reached it */
	if (c->memo_max > c->ng_max && nghttp3_conn_read_stream(h3_ng(c), c->memo_max, NULL, 0, 0) >= 0)
		c->ng_max = c->memo_max;
	nghttp3_conn_shutdown(h3_ng(c));
}

/* the request limit (--conn-requests, maxreq=): at the Nth request the
 * final GOAWAY goes at once; nghttp3 refuses the streams above it
 * (H3_REQUEST_REJECTED: a client sends them again), the open ones finish,
 * then the connection closes (h3_closed) */
static void h3c_count_req(struct h3c *c, const struct exch *x)
{
	c->max_req = ex_max_req(x, c->max_req);
	if (likely(!c->max_req) || c->total < c->max_req || (c->flags & H3C_ENDING))
		return;
	c->flags |= H3C_ENDING;
	h3_goaway(c);
}

/* hint=: a 103 Early Hints with its Link, at once, before any wait; -1
 * out of memory */
__attribute__((cold, noinline)) static int h3s_hint(struct h3s *s)
{
	struct xs_nv nv[2];
	size_t n = xs_hint_nv(&s->x, nv);

	if (!n)
		return 0;
	if (s->c->eng->info(s, nv, n) < 0)
		return -1;
	ctr_add(&s->c->q.w->st.resp[SP_H3][1], 1);
	return 0;
}

/* the request's head is whole (read by nghttp3 or the memo): counted
 * against the connection's limit, its 103, then the request goes on */
static void head_in(struct h3c *c, struct h3s *s, int fin)
{
	xs_headers_done(&s->x, &c->q.w->rng);
	h3c_count_req(c, &s->x.ex);
	if (ex_conn_keys(&s->x.ex) && h3s_hint(s) < 0)
		return s->x.ops->fail(&s->x);
	h3s_request_in(s, fin);
}

static int end_headers(nghttp3_conn *h3, int64_t id, int fin, void *cud, void *sud)
{
	struct h3s *s = sud;
	struct h3c *c = cud;

	(void)h3, (void)id;
	if (!s)
		return 0;
	if (malformed(s)) {
		h3w(c->q.w)->memo_ok = 0;
		return 0;
	}
	h3w(c->q.w)->memo_ok = fin; /* WHY fin: the memo keeps whole requests, a head and its end */
	head_in(c, s, fin);
	return 0;
}

static int recv_data(nghttp3_conn *h3, int64_t id, const uint8_t *data, size_t len, void *cud,
		     void *sud)
{
	struct h3s *s = sud;

	(void)h3;
	consume(cud, id, len);
	if (s) {
		xs_body_in(&s->x, data, len);
		h3s_request_in(s, 0);
	}
	return 0;
}

static int deferred_consume(nghttp3_conn *h3, int64_t id, size_t n, void *cud, void *sud)
{
	(void)h3, (void)sud;
	consume(cud, id, n);
	return 0;
}

static int end_stream(nghttp3_conn *h3, int64_t id, void *cud, void *sud)
{
	(void)h3, (void)id, (void)cud;
	if (sud)
		h3s_request_in(sud, 1);
	return 0;
}

static int stream_close(nghttp3_conn *h3, int64_t id, uint64_t code, void *cud, void *sud)
{
	(void)h3, (void)id, (void)code, (void)cud;
	if (sud)
		h3s_free(sud);
	return 0;
}

static int stop_sending(nghttp3_conn *h3, int64_t id, uint64_t code, void *cud, void *sud)
{
	struct h3c *c = cud;

	(void)h3, (void)sud;
	return quic_stream_stop(&c->q, id, code) ? NGHTTP3_ERR_CALLBACK_FAILURE : 0;
}

static int reset_stream(nghttp3_conn *h3, int64_t id, uint64_t code, void *cud, void *sud)
{
	struct h3c *c = cud;

	(void)h3, (void)sud;
	ctr_add(&c->q.w->st.h3_rst_sent[st_h3e(code)], 1);
	return quic_stream_reset(&c->q, id, code) ? NGHTTP3_ERR_CALLBACK_FAILURE : 0;
}

void h3_callbacks(void)
{
	h3_cbs = (nghttp3_callbacks){
		.stream_close = stream_close,
		.recv_data = recv_data,
		.deferred_consume = deferred_consume,
		.begin_headers = begin_headers,
		.recv_header = recv_header,
		.end_headers = end_headers,
		.stop_sending = stop_sending,
		.end_stream = end_stream,
		.reset_stream = reset_stream,
	};
}

/* Each stream against the timeout of its state, where ngtcp2 has none (its
 * idle timeout counts ACKs as life): a header section never ended
 * (--head-timeout), a request body that stopped (--body-timeout), a response
 * held by the peer's flow control (--send-timeout); each stream is reset
 * with H3_REQUEST_CANCELLED, the connection closed when its own window is
 * shut (counted as a timeout). A t= wait or a d= pause is no stall. */
void h3_scan(struct quic_conn *q)
{
	struct h3c *c = h3c_of(q);
	uint64_t now = q->w->loop.now_ms;
	int conn_shut = quic_window_shut(q);
	struct list *n, *tmp;

	list_each_safe(n, tmp, &c->streams) {
		struct h3s *s = list_elem(n, struct h3s, node);
		uint32_t f = s->x.flags;
		uint64_t limit;
		enum st_h3t why;

		if (s->bad) /* reset once: what follows is ngtcp2's */
			continue;
		if (!(f & XS_HEADERS))
			limit = cfg.head_ms, why = SH3_HEAD;
		else if (!(f & (XS_ENDREQ | XS_RESPONDED)))
			limit = cfg.body_ms, why = SH3_BODY;
		/* WHY not ex_left(): nghttp3 takes the whole body at once (by
		 * reference), the bytes wait in it, not in the generator */
		else if ((f & XS_RESPONDED) && !s->x.ex.paused && !timer_queued(&s->x.tm) &&
			 (conn_shut || quic_stream_window_shut(q, s->id)))
			limit = cfg.send_ms, why = SH3_SEND;
		else {
			s->since = now; /* waiting t=, paused, or moving: no stall */
			continue;
		}
		if (now < s->since + limit)
			continue;
		ctr_add(&q->w->st.h3_timeouts[why], 1);
		if (why == SH3_SEND && conn_shut) {
			quic_close_soon(q, SC_TIMEOUT); /* WHY: its own window is shut, no stream can move */
			return;
		}
		s->since = now;
		h3_reset(c, s->id, NGHTTP3_H3_REQUEST_CANCELLED);
	}
}

/* the HTTP/3 session, at the end of the handshake or with 0-RTT's first stream: control and QPACK streams */
int h3_setup(struct h3c *c)
{
	nghttp3_settings st;
	int64_t ctrl, enc, dec;

	nghttp3_settings_default(&st);
	st.qpack_max_dtable_capacity = cfg.qpack_table;
	st.qpack_blocked_streams = cfg.qpack_table ? 100 : 0;
	st.max_field_section_size = cfg.iobuf;
	if (nghttp3_conn_server_new(&c->h3, &h3_cbs, &st, qh3mem(), c))
		return -1;
	nghttp3_conn_set_max_client_streams_bidi(c->h3, cfg.h3_streams);
	if (quic_open_uni(&c->q, &ctrl) || nghttp3_conn_bind_control_stream(c->h3, ctrl) ||
	    quic_open_uni(&c->q, &enc) || quic_open_uni(&c->q, &dec) ||
	    nghttp3_conn_bind_qpack_streams(h3_ng(c), enc, dec)) /* WHY h3_ng: its SETTINGS to send */
		return -1;
	return 0;
}

/* ---------- the memo: a whole request met before ---------- */

/* Whether a stream's first bytes are all of it, one HEADERS frame whose
 * field section refers to no dynamic entry (Required Insert Count 0): then
 * the same bytes make the same request on any connection. <*blk>: the
 * section. */
static int lone_headers(const uint8_t *p, size_t n, const uint8_t **blk, size_t *blen)
{
	const uint8_t *q = p, *end = p + n;
	uint64_t type, len;

	if (qv_get(&q, end, &type) < 0 || type != 0x01 || qv_get(&q, end, &len) < 0 ||
	    len != (uint64_t)(end - q) || len < 2 || q[0] != 0)
		return 0;
	*blk = q;
	*blen = (size_t)len;
	return 1;
}

/* The worker's memo (h3w.memo) holds the last such request nghttp3
 * accepted, and its fields: the same bytes again are answered from it,
 * and nghttp3 never sees that stream (its decoder, its checks, its stream
 * state: 5,100 instructions an h3 request, bench/cg). 1: answered so, 0: nghttp3
 * reads it (and it is recorded), -1: out of memory. */
static int memo_read(struct h3c *c, int64_t id, const uint8_t *blk, size_t blen, size_t len)
{
	struct xmemo *m = &h3w(c->q.w)->memo;
	struct h3s *s;

	if (!xm_hit(m, blk, blen)) {
		xm_record(m, blk, blen);
		h3w(c->q.w)->memo_ok = 0;
		return 0;
	}
	if (!(s = h3s_new(c, id)))
		return -1;
	s->own = 1;
	ctr_add(c->q.w->st.h3_memo, 1);
	if (c->flags & H3C_EARLY)
		s->x.flags |= XS_EARLY;
	xm_replay(m, &s->x);
	c->memo_max = MAX(c->memo_max, id);
	head_in(c, s, 1);
	consume(c, id, len);
	return 1;
}

/* WHY: nghttp3 0.8 returns a request whose body breaks its content-length
 * as an error of the read, which would end the connection and every request
 * on it; RFC 9114 4.1.2 makes a malformed request a stream error,
 * H3_MESSAGE_ERROR, as nghttp3 answers a malformed header itself */
static int message_error(struct h3c *c, int64_t id, size_t len)
{
	struct h3s *s = stream_of(c, id);

	if (nghttp3_conn_shutdown_stream_read(h3_ng(c), id))
		return -1;
	h3_reset(c, id, NGHTTP3_H3_MESSAGE_ERROR);
	if (s && c->eng->shut)
		c->eng->shut(s);
	consume(c, id, len);
	return 0;
}

/* A request stream's h3s, made with its first bytes so that its first
 * HEADERS frame is walked before nghttp3 reads it (malformed()); found again
 * by its id while that frame is not whole, rarely (a head over several
 * packets). NULL: none to walk, or out of memory at its start. */
static struct h3s *walking(struct h3c *c, int64_t id, uint64_t off)
{
	struct h3s *s;

	if (!off)
		return h3s_new(c, id);
	if (!c->nwalk)
		return NULL;
	s = stream_of(c, id);
	return s && !s->walked ? s : NULL;
}

/* <len> bytes of a request stream for nghttp3, its head walked first */
static nghttp3_ssize request_read(struct h3c *c, int64_t id, uint64_t off, const uint8_t *data, size_t len,
				  int fin)
{
	struct h3s *s = walking(c, id, off);
	nghttp3_ssize n;

	if (!s && !off)
		return NGHTTP3_ERR_NOMEM;
	if (s) {
		c->nwalk += !off;
		s->walked = (int8_t)qpk_walk(&s->walk, data, len);
		c->nwalk -= !!s->walked;
	}
	c->rd = s;
	c->ng_max = MAX(c->ng_max, id);
	n = nghttp3_conn_read_stream(h3_ng(c), id, data, len, fin);
	c->rd = NULL;
	/* WHY: a stream nghttp3 never began has no head, but its close frees it */
	if (s && !s->bound && n >= 0 && !nghttp3_conn_set_stream_user_data(c->h3, id, s))
		s->bound = 1;
	if (s && s->bad == 1 && n >= 0) {
		s->bad = 2;
		if (nghttp3_conn_shutdown_stream_read(h3_ng(c), id))
			return NGHTTP3_ERR_NOMEM;
	}
	return n;
}

int h3_recv_stream(struct quic_conn *q, int64_t id, uint64_t off, const uint8_t *data, size_t len, int fin,
			  int early)
{
	struct h3c *c = h3c_of(q);
	struct xmemo *m = &h3w(c->q.w)->memo;
	const uint8_t *blk;
	size_t blen;
	nghttp3_ssize n;
	int r = 0;

	if (!c->h3 && h3_setup(c) < 0)
		return -1;
	if (early)
		c->flags |= H3C_EARLY;
	/* WHY the hx engine alone: nghttp3 frames the responses of streams it read */
	/* WHY not past the limit: nghttp3 refuses what its GOAWAY left out */
	if (c->eng->own_acks && !off && fin && !(id & 3) && !(c->flags & H3C_ENDING) &&
	    lone_headers(data, len, &blk, &blen))
		r = memo_read(c, id, blk, blen, len);
	if (!r) {
		n = !(id & 3) ? request_read(c, id, off, data, len, fin) : nghttp3_conn_read_stream(h3_ng(c), id, data, len, fin);
		if (m->rec)
			xm_end(m, n >= 0 && h3w(c->q.w)->memo_ok);
		if (n >= 0)
			consume(c, id, (size_t)n);
		else if (n == NGHTTP3_ERR_MALFORMED_HTTP_MESSAGING && !(id & 3))
			n = message_error(c, id, len);
		r = n < 0 ? -1 : 0;
	}
	c->flags &= ~H3C_EARLY;
	return r < 0 ? -1 : 0;
}

/* HTTP/2 connections: h2c prior knowledge, Upgrade: h2c, ALPN h2; the socket, the streams and their timers, whichever engine frames them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "body.h"
#include "clock.h"
#include "config.h"
#include "h2_conn.h"
#include "h2_eng.h"
#include "log.h"
#include "plan.h"
#include "session.h"
#include "timer.h"
#include "wss.h"

/* the engines, ours then nghttp2's (h2.c's, by h2c_engines) */
static const struct h2_eng *engines[2];

void h2c_engines(const struct h2_eng *hx, const struct h2_eng *ng)
{
	engines[0] = hx;
	engines[1] = ng;
}

#define H2_SCAN_MS   1000 /* how often open streams are checked for stalls */
#define H2_SC_SIZE   65536 /* the output queue's scratch */
#define H2_BUF_KEEP  64    /* input buffers and queue blocks a thread keeps; beyond, free() */

/* a frame larger than the scratch area (a padded head), kept until sent */
struct big {
	struct big *next;
	char data[];
};

static void h2c_run(struct h2c *c);
static const struct xs_ops h2s_ops;

/* ---------- streams ---------- */

/* streams a worker keeps on its free list, the others freed. WHY a cap: a
 * connection of thousands of streams left them all behind, for ever */
#ifndef H2S_KEEP
#define H2S_KEEP 256
#endif
static __thread unsigned h2s_nfree; /* on the worker's free_s */

struct h2s *h2s_get(struct h2c *c, int32_t id)
{
	struct worker *w = c->t.w;
	struct list *n = list_pop(&h2w(w)->free_s);
	struct h2s *s = n ? list_elem(n, struct h2s, node) : NULL;

	if (n)
		h2s_nfree--;
	if (unlikely(s && s->size != c->eng->ssize)) { /* WHY: another engine's (h2diff runs both) */
		free(s);
		s = NULL;
	}
	if (!s && !(s = malloc(c->eng->ssize)))
		return NULL;
	s->size = (uint32_t)c->eng->ssize;
	s->c = c;
	s->id = id;
	s->wss = NULL;
	s->since = w->loop.now_ms;
	if (c->scan_at <= w->loop.now_ms)
		c->scan_at = w->loop.now_ms + H2_SCAN_MS;
	c->total++;
	xs_init(&s->x, w, &h2s_ops, (enum st_proto)c->t.nc.proto, c->total, (struct cpeer){ c->t.nc.ev.fd, NULL, &c->ci },
		clock_ns());
	if (c->t.nc.flags & H2C_EARLY)
		s->x.flags |= XS_EARLY;
	list_add(&c->streams, &s->node);
	c->nstreams++;
	return s;
}

/* every stream of <c> back to the free list */
static void h2s_put_all(struct h2c *c)
{
	while (!list_empty(&c->streams))
		h2s_put(list_elem(c->streams.next, struct h2s, node));
}

void h2s_put(struct h2s *s)
{
	struct worker *w = s->c->t.w;

	xs_release(&s->x);
	wss_free(s->wss);
	s->wss = NULL;
	s->c->nstreams--;
	list_del(&s->node);
	if (h2s_nfree + 1 > H2S_KEEP) {
		free(s);
		return;
	}
	list_add(&h2w(w)->free_s, &s->node);
	h2s_nfree++;
}

/* ---------- what the engines report ---------- */

void h2_settings(struct h2_setting *out)
{
	const struct h2_setting set[H2_NSETTINGS] = {
		{ NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, cfg.h2_streams },
		{ NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, cfg.h2_window },
		{ NGHTTP2_SETTINGS_MAX_FRAME_SIZE, cfg.h2_frame },
		{ NGHTTP2_SETTINGS_HEADER_TABLE_SIZE, cfg.h2_table },
		{ NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, (uint32_t)cfg.iobuf },
		{ NGHTTP2_SETTINGS_ENABLE_PUSH, 0 },
		{ NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL, 1 }, /* WHY: WebSocket (RFC 8441) */
	};

	memcpy(out, set, sizeof(set));
}

void h2c_why(struct h2c *c, unsigned why)
{
	if (c->t.nc.why == SC_UNSET)
		c->t.nc.why = (uint8_t)why;
}

int h2c_count_reset(struct h2c *c)
{
	uint64_t sec = c->t.w->loop.now_ms / 1000;

	if (sec != c->rst_sec) {
		c->rst_sec = sec;
		c->rst_count = 0;
	}
	if (++c->rst_count <= cfg.h2_max_resets)
		return 0;
	c->eng->goaway(c, H2E_CALM);
	if (cfg.debug)
		log_debug("thread %d fd %d: rapid reset, GOAWAY ENHANCE_YOUR_CALM", c->t.w->id, c->t.nc.ev.fd);
	return 1;
}

void h2c_sent_goaway(struct h2c *c, uint32_t code)
{
	ctr_add(&c->t.w->st.h2_goaway[st_h2e(code)], 1);
	if (code)
		h2c_why(c, SC_BAD); /* a flood, a protocol error */
}

void h2c_sent_rst(struct h2c *c, uint32_t code)
{
	ctr_add(&c->t.w->st.h2_rst_sent[st_h2e(code)], 1);
}

void h2c_recv_rst(struct h2c *c, uint32_t code)
{
	ctr_add(&c->t.w->st.h2_rst_recv[st_h2e(code)], 1);
	h2c_count_reset(c);
}

static struct h2s *h2s_of(struct xstream *x)
{
	return container_of(x, struct h2s, x);
}

void h2s_fail(struct xstream *x)
{
	struct h2s *s = h2s_of(x);

	ctr_add(&s->c->t.w->st.errors, 1);
	s->c->eng->rst(s, H2E_INTERNAL);
}

/* ---------- a WebSocket on the stream (extended CONNECT) ---------- */

/* the session has frames again, or ended: the stream follows */
static void ws_kick(void *stream)
{
	struct h2s *s = stream;
	struct h2c *c = s->c;

	s->since = c->t.w->loop.now_ms;
	if (wss_flooded(s->wss)) {
		/* WHY at once: its frames wait for a window it never opens */
		c->eng->rst(s, H2E_CALM);
	} else if (wss_state(s->wss) != WS_GOING && wss_pending(s->wss)) {
		c->eng->resume(s); /* WHY: what came before the fault goes first */
	} else if (wss_state(s->wss) == WS_RESET || wss_state(s->wss) == WS_FAILED) {
		if (wss_state(s->wss) == WS_RESET)
			ctr_add(&c->t.w->st.faults[SF_RESET], 1);
		c->eng->rst(s, H2E_CANCEL);
	} else if (wss_state(s->wss) == WS_CUT) {
		ctr_add(&c->t.w->st.faults[SF_CLOSE], 1);
		h2c_why(c, SC_FAULT);
		c->eng->goaway(c, H2E_NO_ERROR);
	} else {
		c->eng->resume(s);
	}
	/* WHY a timer at once: from the session's own timer nothing else
	 * would send what was resumed */
	if (!timer_queued(&c->t.nc.tm) || c->t.nc.tm.expire > c->t.w->loop.now_us)
		timer_arm(&c->t.w->loop.timers, &c->t.nc.tm, c->t.w->loop.now_us);
}

/* an extended CONNECT with ws= (or none: an echo) becomes a WebSocket; the
 * 200 goes at once, without a length (RFC 8441 5) */
static int h2s_ws_start(struct h2s *s)
{
	if (!(s->wss = wss_new(&s->x.ex, &s->c->t.w->rng, &s->c->t.w->loop, ws_kick, s)))
		return -1;
	ex_tunnel(&s->x.ex);
	return 0;
}

/* ---------- the request, as the engine decodes it ---------- */

static void h2s_request_in(struct h2s *s, int end_stream)
{
	if (end_stream)
		s->x.flags |= XS_ENDREQ;
	if (s->x.flags & XS_READY)
		return;
	if (xs_answer_now(&s->x, end_stream)) {
		xs_ready(&s->x);
	} else if (s->x.flags & XS_EXPECT) {
		s->x.flags &= ~XS_EXPECT;
		static const struct xs_nv cont[] = { { (uint8_t *)":status", (uint8_t *)"100", 7, 3, 0 } };

		if (s->c->eng->info(s, cont, 1) < 0)
			h2s_fail(&s->x);
	}
}

/* the request limit (--conn-requests, maxreq=): past it, a graceful
 * GOAWAY naming the last stream taken; the open streams finish */
static void h2c_count_req(struct h2c *c, const struct exch *x)
{
	c->max_req = ex_max_req(x, c->max_req);
	if (unlikely(c->max_req) && c->total >= c->max_req && !(c->t.nc.flags & H2C_ENDING)) {
		c->t.nc.flags |= H2C_ENDING;
		h2c_why(c, SC_SERVER); /* WHY: counted as HTTP/1's Connection: close is */
		c->eng->drain(c);
	}
}

/* hint=: a 103 Early Hints with its Link, at once, before any wait; -1
 * out of memory */
__attribute__((cold, noinline)) static int h2s_hint(struct h2s *s)
{
	struct xs_nv nv[2];
	size_t n = xs_hint_nv(&s->x, nv);

	if (!n)
		return 0;
	if (s->c->eng->info(s, nv, n) < 0)
		return -1;
	ctr_add(&s->c->t.w->st.resp[s->c->t.nc.proto][1], 1);
	return 0;
}

void h2s_head_in(struct h2s *s, int end)
{
	if (!(s->x.flags & XS_HEADERS)) {
		s->x.ex.rq.alt_port = s->c->alt_port;
		xs_headers_done(&s->x, &s->c->t.w->rng);
		h2c_count_req(s->c, &s->x.ex);
		if (ex_conn_keys(&s->x.ex) && !s->x.ex.plan.ws && h2s_hint(s) < 0)
			return h2s_fail(&s->x);
		if (s->x.ex.plan.ws && h2s_ws_start(s) < 0)
			return h2s_fail(&s->x);
	}
	h2s_request_in(s, end);
}

void h2s_data_in(struct h2s *s, const uint8_t *p, size_t n)
{
	s->since = s->c->t.w->loop.now_ms;
	if (s->wss) {
		wss_in(s->wss, p, n, 0);
	} else {
		xs_body_in(&s->x, p, n);
		if (s->x.flags & XS_HEADERS)
			h2s_request_in(s, 0);
	}
}

void h2s_end_in(struct h2s *s)
{
	if (s->wss)
		wss_in(s->wss, NULL, 0, 1);
	h2s_request_in(s, 1);
}

/* ---------- the response ---------- */

/* h2s=, h2w=, ping= of an answer: kept on the connection until it went
 * (h2c_changes). WHY not the plan's: a stream without a body may be
 * freed, its plan with it, as it is answered */
__attribute__((cold, noinline)) static void h2c_keep_changes(struct h2c *c, const struct plan_conn *pc)
{
	uint8_t set = pc->set & (PC_STREAMS | PC_WINDOW | PC_PING);

	if (set & PC_STREAMS)
		c->chg.streams = pc->streams;
	if (set & PC_WINDOW)
		c->chg.window = pc->window;
	if (set & PC_PING)
		c->chg.ping_ms = pc->ping_ms;
	c->chg.set |= set;
}

static void h2s_respond(struct xstream *x)
{
	struct h2s *s = h2s_of(x);
	struct xs_nv *nv;
	long n = xs_head_nv(x, &nv);
	int body;

	if (n < 0)
		return h2s_fail(x);
	if (ex_conn_keys(&x->ex) && ex_conn_changes(&x->ex))
		h2c_keep_changes(s->c, ex_conn_changes(&x->ex));
	ctr_add(&s->c->t.w->st.requests, 1);
	body = ex_has_body(&x->ex) || s->wss;
	if (s->c->eng->respond(s, nv, (size_t)n, body) < 0) {
		xs_nv_done(nv);
		return h2s_fail(x);
	}
	xs_nv_done(nv);
	/* WHY only with a body: without, the engine may have ended and freed
	 * the stream (its text went back with it) */
	if (body)
		xs_head_sent(x);
}

static void h2s_resume(struct xstream *x)
{
	struct h2s *s = h2s_of(x);

	s->c->eng->resume(s);
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

enum h2_next h2s_next(struct h2s *s, size_t max, struct ex_action *a)
{
	struct exch *x = &s->x.ex;
	struct h2c *c = s->c;
	uint64_t frame = ex_frame(x);

	switch (ex_next(x, frame ? MIN(frame, (uint64_t)max) : max, &cfg.gen, a)) {
	case EXA_RESET:
		ctr_add(&c->t.w->st.faults[SF_RESET], 1);
		return H2N_RESET;
	case EXA_CLOSE:
		ctr_add(&c->t.w->st.faults[SF_CLOSE], 1);
		h2c_why(c, SC_FAULT);
		c->eng->goaway(c, H2E_NO_ERROR);
		return H2N_WAIT;
	case EXA_PAUSE:
		return xs_pause(&s->x, a->until_us) < 0 ? H2N_RESET : H2N_WAIT;
	case EXA_END:
		return H2N_END;
	case EXA_DATA:
		break;
	}
	s->since = c->t.w->loop.now_ms;
	return !ex_left(x) && a->off + a->len == x->rs.body ? H2N_LAST : H2N_DATA;
}

size_t h2c_frame_max(void)
{
	return (size_t)(OQ_IOV - 8) * body_slice_max();
}

int h2c_room(const struct h2c *c, size_t len)
{
	const struct oq *q = &c->oq;

	return oq_iov_room(q) >= 2 + (int)(len / body_slice_max()) + 2 && oq_sc_room(q) >= 16 &&
	       q->bytes < H2_STAGE_MAX;
}

void h2s_stage_body(struct h2c *c, struct h2s *s, const uint8_t *hd, const struct ex_action *a)
{
	uint64_t off = a->off, len = a->len;
	int copy = ex_copy_needed(&s->x.ex);

	oq_copy(&c->oq, hd, 9);
	while (len) {
		const char *ptr;
		size_t n = ex_slice(&s->x.ex, off, len, &ptr);

		/* WHY a copy of a text body (E=1, E=2, an error's reason): it
		 * lives in the stream, which goes once its last frame is staged,
		 * before the frame is sent */
		if (likely(!copy))
			oq_ref(&c->oq, ptr, n);
		else if (h2c_stage(c, (const uint8_t *)ptr, n) < 0)
			c->t.nc.flags |= H2C_DEAD;
		off += n;
		len -= n;
	}
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

/* WHY: an idle connection holds no buffer: 5,000 idle h2c connections
 * kept a 16 KiB input buffer and a 64 KiB queue each (17.9 KiB resident
 * a connection, 101 MB after they closed); taken from the thread's pools
 * when there is work, given back when there is none */
static int h2c_buffers_take(struct h2c *c)
{
	struct h2w *hw = h2w(c->t.w);

	if (!c->in && !(c->in = pool_get(&hw->in)))
		return -1;
	return oq_take(&c->oq, &hw->sc);
}

/* back to the pools: the queue once all it staged went, the input buffer
 * unless the ring reads into it */
static void h2c_buffers_put(struct h2c *c)
{
	struct h2w *hw = h2w(c->t.w);

	if (c->in && !(c->t.nc.x.rio && (c->t.nc.x.rio->st & (RIO_RX | RIO_RES)))) {
		pool_put(&hw->in, c->in);
		c->in = NULL;
	}
	big_free(c);
	oq_give(&c->oq, &hw->sc);
}

int h2c_flush(struct h2c *c)
{
	uint64_t sent;
	int r;

	if (!(c->t.nc.flags & H2C_WR_READY) && oq_pending(&c->oq))
		return HX_AGAIN;
	r = oq_flush(&c->oq, &c->t.nc.x, &sent);
	/* WHY a ring send too: --send-timeout counts from when it went out,
	 * not from the last recv before a long t= wait */
	if (sent || (r == HX_AGAIN && c->t.nc.x.rio)) {
		c->t.nc.last_act = c->t.w->loop.now_ms;
		ctr_add(c->t.w->st.bytes_out, sent);
	}
	if (!r)
		big_free(c);
	else if (r == HX_AGAIN)
		c->t.nc.flags &= ~H2C_WR_READY;
	else
		c->t.nc.flags |= H2C_DEAD;
	return r;
}

int h2c_stage(struct h2c *c, const uint8_t *data, size_t n)
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

int h2c_stage_copy(struct h2c *c, const uint8_t *data, size_t n)
{
	if (n > oq_sc_room(&c->oq) || oq_iov_room(&c->oq) <= 4 || c->oq.bytes >= H2_STAGE_MAX)
		return -1;
	oq_copy(&c->oq, data, n);
	return 0;
}

/* a GOAWAY with <code> written by hand, best effort, before the close */
static void h2c_goaway_raw(struct h2c *c, uint8_t code)
{
	uint8_t goaway[] = { 0, 0, 8, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, code };
	struct iovec iov = { goaway, sizeof(goaway) };

	xprt_writev(&c->t.nc.x, &iov, 1, 0);
}

/* A fatal error the engine will not answer (a bad client preface): a GOAWAY
 * PROTOCOL_ERROR, by hand if the engine could not send it. */
static void h2c_fatal(struct h2c *c)
{
	if (cfg.debug)
		log_debug("thread %d fd %d: HTTP/2 protocol error, GOAWAY", c->t.w->id, c->t.nc.ev.fd);
	c->eng->goaway(c, H2E_PROTOCOL);
	if (c->eng->send(c) == 0 && !oq_pending(&c->oq) && !c->eng->alive(c))
		return;
	h2c_goaway_raw(c, H2E_PROTOCOL);
}

static int h2c_recv(struct h2c *c)
{
	while (c->t.nc.flags & H2C_RD_READY) {
		int drained;
		long n = xprt_recv(&c->t.nc.x, c->in, c->in_size, &drained);

		if (drained && !(c->t.nc.flags & H2C_RDHUP))
			c->t.nc.flags &= ~H2C_RD_READY;
		if (n == XPRT_AGAIN)
			break;
		if (n <= 0)
			return -1;
		c->t.nc.last_act = c->t.w->loop.now_ms;
		ctr_add(c->t.w->st.bytes_in, (uint64_t)n);
		if (c->eng->recv(c, (uint8_t *)c->in, (size_t)n) < 0) {
			h2c_fatal(c);
			return -1;
		}
		if (c->eng->send(c) < 0)
			return -1;
	}
	return 0;
}

/* what a closed connection holds, back to the pools (the set's release) */
static void h2c_release(struct tconn *t)
{
	struct h2c *c = container_of(t, struct h2c, t);

	/* WHY: what it had staged will never go; a queue with bytes staged
	 * keeps its block (oq_give), and the struct may be freed now */
	oq_reset(&c->oq);
	h2c_buffers_put(c);
}

static const struct tc_kind h2_kind = { sizeof(struct h2c), offsetof(struct h2c, t), h2c_release, sess_conn_gone };

static void h2c_free(struct h2c *c)
{
	h2s_put_all(c);
	c->eng->close(c);
	c->sess = NULL;
	free(c->ci);
	c->ci = NULL;
	tc_end(&h2w(c->t.w)->set, &c->t, c->total);
}

/* a completion of the connection's ring transport */
static void h2c_wake(struct rio *r, int what)
{
	struct h2c *c = container_of(r, struct h2c, rio);

	if (!what) { /* the last operation of a closed connection */
		tc_zombie_done(&h2w(c->t.w)->set, &c->t);
		return;
	}
	if (what < 0) {
		c->t.nc.flags |= H2C_DEAD;
	} else if (what == RIO_TX) {
		oq_sent(&c->oq, (size_t)r->sent);
		c->t.nc.last_act = c->t.w->loop.now_ms;
		ctr_add(c->t.w->st.bytes_out, r->sent);
		c->t.nc.flags |= H2C_WR_READY;
	} else {
		c->t.nc.flags |= H2C_RD_READY;
	}
	h2c_run(c);
}

static uint64_t h2c_deadline(const struct h2c *c)
{
	uint64_t d = c->nstreams ? UINT64_MAX : c->t.nc.last_act + cfg.idle_ms;

	if (oq_pending(&c->oq))
		d = MIN(d, c->t.nc.last_act + cfg.send_ms);
	return d;
}

/* when to look again: the connection's deadline, the next stall scan, our next PING */
static uint64_t h2c_wake_at(const struct h2c *c)
{
	uint64_t d = MIN(h2c_deadline(c), c->ping_at);

	return c->nstreams ? MIN(d, c->scan_at) : d;
}

/* the connection ends (GOAWAY, then close), counted as a timeout */
static void h2c_time_out(struct h2c *c)
{
	h2c_why(c, SC_TIMEOUT);
	c->eng->goaway(c, H2E_NO_ERROR);
}

/* Each stream against the timeout of its state, so that no state holds a
 * connection for ever (an HTTP/2 slowloris): a header block never ended
 * (--head-timeout: GOAWAY), a request body that stopped (--body-timeout:
 * RST_STREAM CANCEL), a response held by the peer's flow-control window
 * (--send-timeout: RST_STREAM CANCEL, or GOAWAY when the connection's own
 * window is shut). A t= wait or a d= pause is no stall. */
static void h2c_scan(struct h2c *c)
{
	uint64_t now = c->t.w->loop.now_ms;
	int64_t cwin = c->eng->window(c, NULL);
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
				c->eng->rst(s, H2E_CANCEL);
		} else if ((f & XS_RESPONDED) && ex_left(&s->x.ex) && !s->x.ex.paused && !timer_queued(&s->x.tm) &&
			   (cwin <= 0 || c->eng->window(c, s) <= 0)) {
			if (now < s->since + cfg.send_ms)
				continue;
			if (cwin <= 0)
				return h2c_time_out(c);
			c->eng->rst(s, H2E_CANCEL);
		} else {
			s->since = now; /* waiting t=, paused, or moving: no stall */
		}
	}
}

/* out of memory for the buffers: GOAWAY INTERNAL_ERROR by hand, the end */
static void h2c_nomem(struct h2c *c)
{
	if (cfg.debug)
		log_debug("thread %d fd %d: out of memory for HTTP/2 buffers", c->t.w->id, c->t.nc.ev.fd);
	h2c_why(c, SC_ERROR);
	h2c_goaway_raw(c, H2E_INTERNAL);
	c->t.nc.flags |= H2C_DEAD;
}

void *h2c_work_get(struct h2c *c)
{
	return pool_get(&h2w(c->t.w)->work);
}

void h2c_work_put(struct h2c *c, void *p)
{
	pool_put(&h2w(c->t.w)->work, p);
}

/* ping=: a PING now, the next one ping= ms on (0: none more) */
static void h2c_ping(struct h2c *c)
{
	c->eng->ping(c);
	c->ping_at = c->chg.ping_ms ? c->t.w->loop.now_ms + c->chg.ping_ms : UINT64_MAX;
}

/* what an answer asked of the connection, once its head went: a SETTINGS
 * with h2s= and h2w=, PINGs from now on (ping=). -1: out of memory */
__attribute__((cold, noinline)) static int h2c_changes(struct h2c *c)
{
	struct h2_setting set[2];
	size_t n = 0;

	if (c->chg.set & PC_STREAMS)
		set[n++] = (struct h2_setting){ NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, c->chg.streams };
	if (c->chg.set & PC_WINDOW)
		set[n++] = (struct h2_setting){ NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, c->chg.window };
	if (n && c->eng->settings(c, set, n) < 0)
		return -1;
	if (c->chg.set & PC_PING)
		h2c_ping(c);
	c->chg.set = 0;
	return 0;
}

static void h2c_run(struct h2c *c)
{
	uint64_t d, rest = UINT64_MAX;

	if (!(c->t.nc.flags & H2C_DEAD) && unlikely(h2c_buffers_take(c) < 0))
		h2c_nomem(c);
	if (!(c->t.nc.flags & H2C_DEAD) && (h2c_recv(c) < 0 || c->eng->send(c) < 0))
		c->t.nc.flags |= H2C_DEAD;
	if (unlikely(c->chg.set) && !(c->t.nc.flags & H2C_DEAD) && (h2c_changes(c) < 0 || c->eng->send(c) < 0))
		c->t.nc.flags |= H2C_DEAD;
	if (!(c->t.nc.flags & H2C_DEAD) && !oq_pending(&c->oq) && !c->eng->alive(c))
		c->t.nc.flags |= H2C_DEAD; /* GOAWAY done, or the peer is gone */
	if (c->t.nc.flags & H2C_DEAD) {
		h2c_free(c);
		return;
	}
	if (!c->nstreams && !oq_pending(&c->oq)) {
		h2c_buffers_put(c);
		if (c->eng->rest)
			rest = c->eng->rest(c);
	}
	/* the recv it waits for, once this turn is over: idle, into a buffer
	 * the ring picks when bytes come (h2c_room_in) */
	if (c->t.nc.x.rio)
		rio_arm(c->t.nc.x.rio, c->in, c->in ? c->in_size : URING_BUF);
	d = MIN(h2c_wake_at(c), rest);
	if (d != UINT64_MAX && (!timer_queued(&c->t.nc.tm) || c->t.nc.tm.expire > d * 1000))
		timer_arm(&c->t.w->loop.timers, &c->t.nc.tm, d * 1000);
}

static void h2c_timer_cb(struct loop *l, struct timer *t)
{
	struct worker *w = worker_of(l);
	struct h2c *c = container_of(t, struct h2c, t.nc.tm);

	if (c->nstreams && w->loop.now_ms >= c->scan_at)
		h2c_scan(c);
	if (unlikely(w->loop.now_ms >= c->ping_at))
		h2c_ping(c);
	if (w->loop.now_ms >= h2c_deadline(c)) {
		if (oq_pending(&c->oq)) {
			c->t.nc.flags |= H2C_DEAD; /* the client stopped reading */
			h2c_why(c, SC_TIMEOUT);
		} else {
			h2c_why(c, SC_IDLE);
			c->eng->goaway(c, H2E_NO_ERROR);
		}
	}
	h2c_run(c);
}

static void h2c_io_cb(struct loop *l, struct ev *e, uint32_t events)
{
	struct h2c *c = container_of(e, struct h2c, t.nc.ev);

	(void)l;
	nc_events(&c->t.nc, events);
	h2c_run(c);
}

/* bytes of a pooled ring recv go to the input buffer, taken back from the pool */
static char *h2c_room_in(struct rio *r, size_t n)
{
	struct h2c *c = container_of(r, struct h2c, rio);

	if (h2c_buffers_take(c) < 0 || n > c->in_size)
		return NULL;
	return c->in;
}

static struct h2c *h2c_get(struct worker *w)
{
	struct h2c *c = tc_get(&h2w(w)->set);

	if (!c)
		return NULL;
	c->in_size = (uint32_t)cfg.iobuf;
	c->oq.sc_size = H2_SC_SIZE;
	return c;
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

	if (n < 0 || !(s = h2s_get(c, 1)) ||
	    c->eng->upgrade(c, s, settings, (size_t)n, !!(up->ex->rq.flags & RQ_HEAD)) < 0)
		return -1;
	h2_sids_open(&c->sids, 1);
	/* WHY adopt: the exchange goes on with the plan it has; planning again
	 * would draw its random values a second time */
	if (xs_adopt(&s->x, up->ex) < 0)
		return -1;
	h2c_count_req(c, &s->x.ex);
	h2s_request_in(s, 1);
	return 0;
}

/* the connection on <x>: after ALPN h2, the h2 preface, or an Upgrade */
int h2c_start(struct worker *w, struct xprt *x, const struct handoff *h)
{
	struct h2c *c = h2c_get(w);

	if (!c)
		return -1;
	c->t.w = w;
	c->t.nc.ev = (struct ev){ x->fd, h2c_io_cb };
	c->t.nc.tm = (struct timer){ 0, 0, h2c_timer_cb };
	c->t.nc.flags = H2C_WR_READY | H2C_RD_READY;
	c->nstreams = c->total = 0;
	c->max_req = cfg.conn_requests;
	c->chg.set = 0;
	c->ping_at = UINT64_MAX;
	c->t.nc.proto = x->ssl ? SP_H2 : SP_H2C;
	c->t.nc.why = SC_UNSET;
	list_init(&c->streams);
	c->big = NULL;
	c->rst_sec = 0;
	c->rst_count = 0;
	h2_sids_reset(&c->sids);
	c->scan_at = 0;
	c->alt_port = h->alt_port;
	c->ci = h->ci;
	c->t.nc.last_act = w->loop.now_ms;
	c->eng = engines[cfg.h2_engine == H2ENG_HX ? 0 : 1];
	oq_reset(&c->oq);
	if (h->early)
		c->t.nc.flags |= H2C_EARLY;
	c->t.nc.x.rio = NULL;
	if (h2c_buffers_take(c) < 0 || c->eng->open(c) < 0 || (h->ex && h2c_upgrade(c, h) < 0) ||
	    (h->len && c->eng->recv(c, (const uint8_t *)h->buf, h->len) < 0)) {
		c->ci = NULL; /* WHY: the caller still owns it */
		h2s_put_all(c);
		if (c->sess)
			c->eng->close(c);
		c->sess = NULL;
		tc_put(&h2w(w)->set, &c->t);
		return -1;
	}
	c->t.nc.flags &= ~H2C_EARLY;
	c->t.nc.x = *x;
	/* WHY: on the ring, clear text reads and sends through it (h1 had it
	 * there too, so epoll never had the socket); else the socket may be
	 * registered under its previous owner, or not yet */
	if (w->loop.ring && !x->ssl) {
		rio_init(&c->rio, w->loop.ring, x->fd, h2c_wake, h2c_room_in);
		c->t.nc.x.rio = &c->rio;
	} else {
		(h->fresh ? loop_watch : loop_rewatch)(&w->loop, &c->t.nc.ev, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET);
	}
	tc_add(&h2w(w)->set, &c->t);
	h2c_run(c);
	return 0;
}

static void h2c_drain_one(struct tc_link *l)
{
	struct h2c *c = container_of(l, struct h2c, t.l);

	h2c_why(c, SC_DRAIN);
	c->eng->drain(c);
	h2c_run(c);
}

void h2c_drain(struct worker *w)
{
	tc_drain(&h2w(w)->set, h2c_drain_one);
}

static void h2c_end(struct tc_link *l)
{
	h2c_free(container_of(l, struct h2c, t.l));
}

void h2_close_all(struct worker *w)
{
	if (h2w(w))
		tc_close_all(&h2w(w)->set, h2c_end);
}

void h2_trim(struct worker *w)
{
	struct h2w *hw = h2w(w);
	struct list *n;

	tc_set_free(&hw->set);
	pool_drain(&hw->in);
	pool_drain(&hw->sc);
	pool_drain(&hw->work);
	while ((n = list_pop(&hw->free_s)))
		free(list_elem(n, struct h2s, node));
	h2s_nfree = 0;
}

void h2_thread_free(struct worker *w)
{
	if (!h2w(w))
		return;
	h2_trim(w);
	free(w->ps[P_H2]);
	w->ps[P_H2] = NULL;
}

int h2_thread_init(struct worker *w)
{
	struct h2w *hw = calloc(1, sizeof(*hw));

	if (!hw)
		return -1;
	tc_set_init(&hw->set, &h2_kind, &w->loop, &w->st);
	list_init(&hw->free_s);
	hw->in = (struct pool){ .size = (size_t)cfg.iobuf, .keep = H2_BUF_KEEP };
	hw->sc = (struct pool){ .size = oq_mem_size(H2_SC_SIZE), .keep = H2_BUF_KEEP };
	hw->work = (struct pool){ .size = MAX(engines[0]->wsize, engines[1]->wsize), .keep = H2_BUF_KEEP };
	w->ps[P_H2] = hw;
	return 0;
}

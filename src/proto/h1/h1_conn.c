/* HTTP/1.x connections: the state machine from request head to response and back. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "alog.h"
#include "clock.h"
#include "config.h"
#include "h1_conn.h"
#include "log.h"
#include "gen.h"
#include "resp.h"
#include "splice.h"
#include "timer.h"
#include "wskey.h"
#include "session.h"

#define BODY_ROOM   4096 /* input kept free after a full-size head, for its body */
#define LINGER_US   1000000 /* how long a closing connection drains input */

/* ---------- lifetime ---------- */

/* ends <c>, with a reset when <rst>; <why> (enum st_close) is kept when
 * none was given before */
/* WHY: an idle keep-alive connection holds no buffer and no request state:
 * 1000 of them cost their small struct, not 50 KB each */
static void h1_buffers_put(struct h1c *c)
{
	if (!(c->rio.st & RIO_RX)) { /* a recv in flight on the ring writes there */
		pool_put(&h1w(c->t.w)->in, c->in);
		c->in = NULL;
	}
	pool_put(&h1w(c->t.w)->sc, oq_detach(&c->oq));
	if (c->ex)
		ex_done(c->ex);
	pool_put(&h1w(c->t.w)->ex, c->ex);
	c->ex = NULL;
}

static int h1_buffers_take(struct h1c *c)
{
	struct h1w *hw = h1w(c->t.w);

	if (!hw->in.size) {
		hw->in.size = c->in_size;
		hw->sc.size = oq_mem_size(c->oq.sc_size);
		hw->ex.size = sizeof(struct exch);
		hw->ex.zero = 1;
	}
	/* WHY no ex_new: a pool's struct comes zeroed, or ex_done'd */
	if (!c->ex && !(c->ex = pool_get(&hw->ex)))
		return -1;
	if (!c->in && !(c->in = pool_get(&hw->in)))
		return -1;
	return oq_take(&c->oq, &hw->sc);
}

static int h1_idle(const struct h1c *c)
{
	return c->st == H1S_HEAD && c->rd == c->wr && !oq_pending(&c->oq);
}

/* what a closed connection holds, back to the pools (the set's release) */
static void h1_release(struct tconn *t)
{
	struct h1c *c = container_of(t, struct h1c, t);

	c->rio.st = 0;
	h1_buffers_put(c);
	free(c->ci);
	c->ci = NULL;
}

static const struct tc_kind h1_kind = { sizeof(struct h1c), offsetof(struct h1c, t), h1_release, sess_conn_gone };

static void h1_free(struct h1c *c)
{
	struct worker *w = c->t.w;

	if (c->sp) {
		spl_put(&w->spl, c->sp);
		c->sp = NULL;
	}
	tc_end(&h1w(w)->set, &c->t, c->nreq);
}

/* the connection goes on as protocol <to> (HTTP/2, WebSocket) with the
 * bytes still unread */
static int h1_handoff(struct h1c *c, enum proto_id to, const char *buf, size_t len, const struct exch *up)
{
	struct handoff h = { .buf = buf, .len = len, .alt_port = c->alt_port,
			     .settings = up && to == P_H2 ? c->settings : (struct ist){ NULL, 0 }, .ex = up,
			     .ci = c->ci };
	/* WHY no ring: that transport is this connection's; the next makes its own */
	struct xprt x = { .fd = c->t.nc.x.fd, .ssl = c->t.nc.x.ssl };

	if (sess_switch(c->t.w, to, &x, &h) < 0) {
		h1_kill(c, 0, SC_ERROR);
		return 0;
	}
	c->t.nc.x.ssl = NULL;
	c->ci = NULL;
	c->t.nc.x.fd = c->t.nc.ev.fd = -1;
	c->t.nc.flags |= H1C_DEAD | H1C_HANDOFF;
	return 0;
}

/* ---------- I/O ---------- */

/* Returns bytes read (> 0), 0 on EOF, XPRT_AGAIN when nothing is there,
 * XPRT_ERROR on error */
static long h1_recv(struct h1c *c)
{
	int drained;
	long n = xprt_recv(&c->t.nc.x, c->in + c->wr, c->in_size - c->wr, &drained);

	/* WHY: a FIN that came with the last bytes raises no further edge */
	if (drained && !(c->t.nc.flags & H1C_RDHUP))
		c->t.nc.flags &= ~H1C_RD_READY;
	if (n > 0) {
		c->wr += (uint32_t)n;
		c->t_recv = clock_ns();
		c->t.nc.flags |= H1C_FRESH;
		c->t.nc.last_act = c->t.w->loop.now_ms;
		ctr_add(c->t.w->st.bytes_in, (uint64_t)n);
	} else if (n == 0) {
		c->t.nc.flags |= H1C_EOF;
		c->t.nc.flags &= ~H1C_RD_READY;
	}
	return n;
}

static int h1_flush(struct h1c *c)
{
	return h1_flush_queue(c, 0);
}

/* ---------- closing ---------- */

static int h1_linger(struct h1c *c)
{
	c->t.nc.flags &= ~H1C_KEEP;
	c->st = H1S_LINGER;
	c->until = c->t.w->loop.now_us + LINGER_US;
	return 1;
}

/* the connection cannot go on: answer <status> with <why>, then close */
static int h1_fail(struct h1c *c, uint16_t status, const char *why)
{
	if (c->t.nc.why == SC_UNSET)
		c->t.nc.why = status == 408 ? SC_TIMEOUT : SC_BAD;
	ctr_add(&c->t.w->st.errors, 1);
	st_bad(&c->t.w->st, status);
	ctr_add(&c->t.w->st.resp[c->t.nc.proto][status / 100 % 10], 1);
	if (cfg.debug)
		log_debug("thread %d fd %d: %u %s", c->t.w->id, c->t.nc.ev.fd, status, why);
	h1_stage_error(c, status, why);
	return h1_linger(c);
}

static int h1_do_linger(struct h1c *c)
{
	if (h1_flush(c))
		return 0;
	/* WHY: after the peer's FIN nothing more can come, and all before it
	 * was read: close() sends the FIN and no RST, with no shutdown and no
	 * recv to wait for (curl closing its kept connection: 2 calls fewer).
	 * Not over TLS, where the end read may be a close_notify with the
	 * socket still open */
	if ((c->t.nc.flags & H1C_EOF) && !(c->t.nc.flags & H1C_SHUT) && !c->t.nc.x.ssl) {
		h1_kill(c, 0, SC_PEER);
		return 0;
	}
	if (!(c->t.nc.flags & H1C_SHUT)) {
		tc_shut(&c->t);
		c->t.nc.flags |= H1C_SHUT;
	}
	/* WHY: drain what the peer still sends so that close() does not turn
	 * into a RST that destroys the response in flight */
	for (;;) {
		long n;

		c->rd = c->wr = 0;
		if (!(c->t.nc.flags & H1C_RD_READY) && !(c->t.nc.flags & H1C_EOF))
			return 0;
		n = h1_recv(c);
		if (n == 0 || n == XPRT_ERROR) {
			h1_kill(c, 0, SC_PEER);
			return 0;
		}
		if (n < 0)
			return 0;
	}
}

/* ---------- request body ---------- */

static int body_done(const struct h1c *c)
{
	if (c->info & H1I_CHUNKED)
		return c->ck.done;
	return c->body_left == 0;
}

/* consumes buffered body bytes; returns -1 on bad chunked framing */
/* a chunked body's payload, kept for E=2 */
static void echo_in(void *x, const char *p, size_t n)
{
	ex_body_in(x, p, n);
}

static int body_eat(struct h1c *c, uint64_t cap)
{
	uint32_t avail = c->wr - c->rd;
	const char *why;

	if (c->info & H1I_CHUNKED) {
		/* WHY one past --max-body: a chunked body has no length to refuse
		 * up front, so it is refused when it grows past the limit */
		uint64_t lim = MIN(cap, cfg.max_body + 1);
		long n = h1_chunk_feed_cb(&c->ck, c->in + c->rd, avail, lim - MIN(lim, c->body_read), &c->body_read,
					  &why, ex_wants_body(c->ex) ? echo_in : NULL, c->ex);

		if (n < 0)
			return h1_fail(c, 400, why), -1;
		c->rd += (uint32_t)n;
		if (c->body_read > cfg.max_body)
			return h1_fail(c, 413, "chunked request body larger than --max-body"), -1;
	} else {
		uint64_t n = MIN(MIN(c->body_left, (uint64_t)avail), cap - c->body_read);

		if (unlikely(ex_wants_body(c->ex)))
			ex_body_in(c->ex, c->in + c->rd, (size_t)n);
		c->rd += (uint32_t)n;
		c->body_left -= n;
		c->body_read += n;
	}
	return 0;
}

/* Drains the body up to <cap> payload bytes. Returns 1 when done or capped,
 * 0 when waiting for bytes, -1 when the connection is failed or dead. */
static int body_step(struct h1c *c, uint64_t cap)
{
	for (;;) {
		long n;
		uint32_t left;

		if (body_eat(c, cap) < 0)
			return -1;
		if (body_done(c) || c->body_read >= cap)
			return 1;
		/* keep the head where it is: E=1 may still echo it */
		left = c->wr - c->rd;
		memmove(c->in + c->hend, c->in + c->rd, left);
		c->rd = c->hend;
		c->wr = c->hend + left;
		if (!(c->t.nc.flags & H1C_RD_READY))
			return 0;
		n = h1_recv(c);
		if (n == XPRT_AGAIN)
			return 0;
		if (n <= 0) {
			h1_kill(c, 0, SC_PEER);
			return -1;
		}
	}
}

/* ---------- one request ---------- */

static void h1_next(struct h1c *c)
{
	c->t.nc.flags &= ~(H1C_HEAD_OUT | H1C_HEAD_END | H1C_TRL_OUT | H1C_CONTINUE);
	c->t_first = 0;
	c->st = H1S_HEAD;
}

/* waits until <until> (us), then goes on in state <next> */
static int h1_wait(struct h1c *c, uint64_t until, uint8_t next)
{
	c->until = until;
	c->next_st = next;
	c->st = H1S_UNTIL;
	return 1;
}

/* hint=: a 103 Early Hints with its Link, sent before any wait (HTTP/1.1;
 * an HTTP/1.0 client gets no 1xx). The value lives in the plan until the
 * exchange ends. -1: the connection is dead */
__attribute__((cold, noinline)) static int h1_hint(struct h1c *c)
{
	static const char eh[] = "HTTP/1.1 103 Early Hints\r\nLink: ";
	const struct hfield *f = ex_hint_take(c->ex);

	if (!f || !c->minor)
		return 0;
	if (oq_iov_room(&c->oq) < 3 && h1_flush(c) == -1)
		return -1;
	if (oq_iov_room(&c->oq) < 3)
		return 0; /* WHY: a queue still full of an earlier answer; the final one follows */
	oq_ref(&c->oq, eh, sizeof(eh) - 1);
	oq_ref(&c->oq, f->val, f->vlen);
	oq_ref(&c->oq, "\r\n\r\n", 4);
	ctr_add(&c->t.w->st.resp[c->t.nc.proto][1], 1);
	return h1_flush(c) == -1 ? -1 : 0;
}

/* the request can be answered: at once, or after the wait it asked for */
static int h1_ready(struct h1c *c)
{
	uint64_t until = ex_wait_until(c->ex, &cfg.gen);

	if (until)
		return h1_wait(c, until, H1S_SEND);
	c->st = H1S_SEND;
	return 1;
}

/* the head of <n> bytes at c->rd, parsed into the worker's request; <in>
 * its analysis, given by the memo (<replayed>) or made here and kept */
static int h1_got_head(struct h1c *c, int n, struct h1_info *in, int replayed)
{
	struct h1w *hw = h1w(c->t.w);
	const struct h1_req *r = &hw->req;
	struct h1_err err;
	const char *head = c->in + c->rd;
	uint32_t hstart = c->rd + r->skipped;

	/* WHY the recv's stamp for the first head its bytes end: that head
	 * ended when they came, so X-req and X-rsp stay true (X-rsp's real
	 * counts the parse too), and a clock read was 2 % of a small h1
	 * request's CPU. A head after it in the same bytes (pipelined) waited
	 * for the answers before it: its own read, as X-rsp times the server
	 * from the moment it takes a request up */
	if (c->t.nc.flags & H1C_FRESH) {
		c->ex->rq.t_head = c->t_recv;
		c->t.nc.flags &= ~H1C_FRESH;
	} else {
		c->ex->rq.t_head = clock_ns();
	}
	c->ex->rq.t_first = c->t_first;
	c->rd += (uint32_t)n;
	c->hend = c->rd;
	c->minor = r->minor;
	c->nreq++;
	ctr_add(&c->t.w->st.requests, 1);
	if (!replayed) {
		if (h1_analyze(r, in, cfg.max_body, &err) < 0)
			return h1_fail(c, err.status, err.why), -1;
		h1m_record(&hw->memo, head, n, r, in);
	}
	c->info = in->flags;
	c->body_left = in->clen;
	c->body_read = 0;
	if (c->info & H1I_CHUNKED) /* WHY only then: nothing else reads it */
		h1_chunk_init(&c->ck);
	c->ex->rq.flags = (in->flags & H1I_HEAD ? RQ_HEAD : 0) | (in->flags & H1I_GET ? RQ_GET : 0) |
			  (r->minor ? RQ_CAN_CHUNK : 0) |
			  (c->nreq == 1 && (uint32_t)n <= c->early_left ? RQ_EARLY : 0);
	c->early_left = 0; /* WHY: only a first request is told apart (the note in -h) */
	c->ex->rq.alt_port = c->alt_port;
	c->ex->rq.head_size = (uint32_t)n - r->skipped;
	c->ex->rq.target = r->target;
	if (unlikely(in->flags & H1I_COND)) {
		c->ex->rq.flags |= RQ_COND | (in->flags & H1I_LISTS ? RQ_LISTS : 0);
		c->ex->rq.c = in->c;
	}
	c->ex->rq.xhx = in->xhx;
	c->settings = in->settings;
	c->ex->rq.echo = (struct ist){ c->in + hstart, c->ex->rq.head_size };
	ex_plan(c->ex, &cfg.gen, &c->t.w->rng);
	c->ws_key = in->ws_key;
	if ((c->info & H1I_WS) || c->ex->plan.ws)
		ex_ws(c->ex, !!(c->info & H1I_WS));
	c->ex->rq.client = cinfo_for((struct cpeer){ c->t.nc.x.fd, NULL, &c->ci }, c->ex);
	return 0;
}

/* the queue straight to the socket, on the ring too (nothing of it in flight
 * there): HTTP/2 takes the socket over right after */
static int h1_flush_now(struct h1c *c)
{
	struct rio *rio = c->t.nc.x.rio;
	int r;

	if (rio && (rio->st & RIO_TX))
		return HX_AGAIN;
	c->t.nc.x.rio = NULL;
	r = h1_flush(c);
	c->t.nc.x.rio = rio;
	return r;
}

/* Upgrade: h2c: 101, then stream 1 answers this request (RFC 7540 3.2) */
static int h1_upgrade(struct h1c *c)
{
	static const char sw[] = "HTTP/1.1 101 Switching Protocols\r\n"
				 "Connection: Upgrade\r\nUpgrade: h2c\r\n\r\n";
	if (h1_flush_now(c)) /* earlier responses first; if they cannot go, no upgrade */
		return c->t.nc.flags & H1C_DEAD ? 0 : h1_ready(c);
	oq_ref(&c->oq, sw, sizeof(sw) - 1);
	if (h1_flush_now(c)) {
		h1_kill(c, 0, SC_PEER);
		return 0;
	}
	return h1_handoff(c, P_H2, c->in + c->rd, c->wr - c->rd, c->ex);
}

/* Upgrade: websocket: 101 with the accept key (RFC 6455 4.2.2), then the
 * connection is a WebSocket's */
static int h1_ws_upgrade(struct h1c *c)
{
	static const char sw[] = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
				 "Connection: Upgrade\r\nSec-WebSocket-Accept: ";
	struct ist xc = c->ex->rq.client;
	char key[29];

	if (h1_flush_now(c))
		return c->t.nc.flags & H1C_DEAD ? 0 : h1_ready(c);
	ws_accept_of(c->ws_key.ptr, c->ws_key.len, key);
	oq_ref(&c->oq, sw, sizeof(sw) - 1);
	oq_copy(&c->oq, key, strlen(key));
	if (xc.len) {
		oq_ref(&c->oq, "\r\nX-Client: ", 12);
		oq_copy(&c->oq, xc.ptr, xc.len);
	}
	oq_ref(&c->oq, "\r\n\r\n", 4);
	ctr_add(&c->t.w->st.resp[c->t.nc.proto][1], 1);
	if (h1_flush_now(c)) {
		h1_kill(c, 0, SC_PEER);
		return 0;
	}
	return h1_handoff(c, P_WS, c->in + c->rd, c->wr - c->rd, c->ex);
}

/* h2c by prior knowledge: 1 handed off, 0 not HTTP/2, HX_AGAIN need more bytes */
static int h1_preface(struct h1c *c)
{
	int r;

	if (c->nreq || c->t.nc.x.ssl || (r = sess_preface(c->in + c->rd, c->wr - c->rd)) == 0)
		return 0;
	if (r == HX_AGAIN)
		return HX_AGAIN;
	h1_handoff(c, P_H2, c->in + c->rd, c->wr - c->rd, NULL);
	return 1;
}

/* after the plan: keep-alive rules, then the body or the response */
static int h1_route(struct h1c *c)
{
	int has_body = !body_done(c);
	int keep = ex_keep(c->ex, c->minor ? !(c->info & H1I_CLOSE) : !!(c->info & H1I_KEEPALIVE));

	/* WHY one test: maxreq= and hint= are rare */
	if (ex_conn_keys(c->ex)) {
		c->max_req = ex_max_req(c->ex, c->max_req);
		if (h1_hint(c) < 0)
			return 0;
	}
	if (c->t.w->draining || (unlikely(c->max_req) && c->nreq >= c->max_req))
		keep = 0;
	c->idle_ms = ex_idle_ms(c->ex, c->idle_ms);
	c->t.nc.flags = (c->t.nc.flags & ~H1C_KEEP) | (keep ? H1C_KEEP : 0);
	if ((c->info & H1I_UPGRADE) && !has_body && c->minor && !c->t.nc.x.ssl)
		return h1_upgrade(c);
	if ((c->info & H1I_WS) && c->ex->plan.ws && !has_body)
		return h1_ws_upgrade(c);
	if (!has_body)
		return h1_ready(c);
	if (!ex_answer_early(c->ex, 0)) {
		if ((c->info & H1I_EXPECT) && c->rd == c->wr && c->minor)
			c->t.nc.flags |= H1C_CONTINUE;
		c->st = H1S_BODY;
		return 1;
	}
	/* WHY: a client that asked 100-continue and got a final status may
	 * never send its body: do not wait for it on a kept connection */
	if (c->info & H1I_EXPECT)
		c->t.nc.flags &= ~H1C_KEEP;
	return h1_ready(c);
}

static int h1_do_head(struct h1c *c)
{
	long n;

	if (c->rd == c->wr)
		c->rd = c->wr = 0;
	if (c->rd < c->wr && (n = h1_preface(c)))
		goto more;
	if (c->rd < c->wr) {
		/* WHY here: most calls find nothing buffered and go to recv */
		struct h1_limits lim = { cfg.max_uri, (unsigned)cfg.max_hdrs };
		struct h1_err err;
		struct h1w *hw = h1w(c->t.w);
		struct h1_info in;
		int replayed = 0;

		if (!c->t_first)
			c->t_first = c->t_recv;
		if ((n = h1m_hit(&hw->memo, c->in + c->rd, c->wr - c->rd))) {
			h1m_replay(&hw->memo, c->in + c->rd, &hw->req, &in);
			ctr_add(c->t.w->st.h1_memo, 1);
			replayed = 1;
		} else {
			n = h1_parse_req(c->in + c->rd, c->wr - c->rd, &hw->req, &lim, &err);
		}
		/* WHY: the buffer has BODY_ROOM more than --bufsize, so a head
		 * may complete beyond the limit: the limit is the same either
		 * way. WHY one call for both ways in: two made the compiler stop
		 * inlining h1_got_head and h1_route (66 instructions a request) */
		if (n > 0 && (size_t)n <= cfg.iobuf)
			return h1_got_head(c, (int)n, &in, replayed) < 0 ? 1 : h1_route(c);
		if (n == -1)
			return h1_fail(c, err.status, err.why);
		if (n > 0 || c->wr - c->rd >= cfg.iobuf)
			return h1_fail(c, 431, "request head larger than the buffer (--bufsize)");
		if (c->wr == c->in_size) {
			memmove(c->in, c->in + c->rd, c->wr - c->rd);
			c->wr -= c->rd;
			c->rd = 0;
		}
	}
more:
	if (c->t.nc.flags & H1C_DEAD)
		return 0;
	if (c->t.nc.flags & H1C_EOF) /* staged responses still go out */
		return h1_linger(c);
	if (!(c->t.nc.flags & H1C_RD_READY))
		return 0;
	n = h1_recv(c);
	if (n == XPRT_ERROR) {
		h1_kill(c, 0, SC_PEER);
		return 0;
	}
	return n >= 0;
}

static int h1_do_body(struct h1c *c)
{
	uint64_t cap = ex_body_cap(c->ex);
	int r;

	if (c->t.nc.flags & H1C_CONTINUE) {
		static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";

		oq_ref(&c->oq, cont, sizeof(cont) - 1);
		c->t.nc.flags &= ~H1C_CONTINUE;
		if (h1_flush(c) == -1)
			return 0;
	}
	r = body_step(c, cap);
	if (r <= 0)
		return 0;
	return h1_ready(c);
}

/* the response is about to start: build it (this stamps X-rsp's time) */
static void h1_start_response(struct h1c *c)
{
	int64_t now = clock_ns();

	ex_respond(c->ex, &cfg.gen, now);
	st_response(&c->t.w->st, (enum st_proto)c->t.nc.proto, c->ex->rs.status, now - c->ex->rq.t_head,
		    c->ex->rq.flags & RQ_EARLY, c->ex->plan.ign_len);
	if (c->t.w->alog)
		alog_write(c->t.w, (enum st_proto)c->t.nc.proto, c->ex, (struct cpeer){ c->t.nc.x.fd, NULL, &c->ci }, c->nreq,
			   now - c->ex->rq.t_head);
	c->chunk_left = 0;
	c->t.nc.flags &= ~(H1C_NOSPLICE | H1C_FRESH); /* WHY FRESH: a head after this answer waited for it */
	/* WHY: without a length or chunks, only the close ends the body */
	if ((c->ex->rs.clen < 0 && !c->ex->rs.chunked && c->ex->rs.body) || c->t.w->draining)
		c->t.nc.flags &= ~H1C_KEEP;
}

/* WHY: lingering is for a peer that may still be sending. One that asked to
 * close, whose request was read to its end with nothing after it, gets a
 * plain close: a FIN, no RST, and no shutdown, wake-up and recv to wait for */
static int h1_peer_closing(const struct h1c *c)
{
	int asked = c->minor ? (c->info & H1I_CLOSE) : !(c->info & H1I_KEEPALIVE);

	return asked && !(c->t.nc.flags & H1C_KEEP) && !c->t.nc.x.ssl && c->rd == c->wr &&
	       !(c->t.nc.flags & H1C_RD_READY);
}

static int h1_finish(struct h1c *c)
{
	if (!(c->t.nc.flags & H1C_KEEP) || c->t.w->draining) {
		if (c->t.nc.why == SC_UNSET)
			c->t.nc.why = c->t.w->draining ? SC_DRAIN : SC_SERVER;
		if (oq_pending(&c->oq) || !h1_peer_closing(c))
			return h1_linger(c);
		h1_kill(c, 0, SC_SERVER);
		return 0;
	}
	if (ex_pause_ms(c->ex))
		return h1_wait(c, c->t.w->loop.now_us + ex_pause_ms(c->ex) * 1000, H1S_HEAD);
	h1_next(c);
	return 1;
}

/* everything is staged; what follows may need it sent first */
static int h1_sent(struct h1c *c)
{
	enum ex_act end = ex_end(c->ex); /* END, RESET or CLOSE */
	int faulted = end != EXA_END;

	if (faulted || !(c->t.nc.flags & H1C_KEEP) || ex_pause_ms(c->ex)) {
		/* WHY: a close comes right after: MSG_MORE holds the last bytes
		 * back so that the FIN rides in their segment */
		int fin_next = !faulted && body_done(c) && h1_peer_closing(c);

		if (h1_flush_queue(c, fin_next))
			return 0;
	}
	if (end == EXA_RESET) {
		ctr_add(&c->t.w->st.faults[SF_RESET], 1);
		h1_kill(c, 1, SC_FAULT);
		return 0;
	}
	if (faulted) {
		ctr_add(&c->t.w->st.faults[SF_CLOSE], 1);
		if (c->t.nc.why == SC_UNSET)
			c->t.nc.why = SC_FAULT;
		return h1_linger(c);
	}
	if (!body_done(c)) {
		c->st = H1S_DRAIN;
		return 1;
	}
	return h1_finish(c);
}

/* a flush inside the send loop: 1 go on, 0 wait */
static int h1_push(struct h1c *c)
{
	return !h1_flush(c);
}

static int h1_do_send(struct h1c *c)
{
	enum h1_out o;

	if (!(c->t.nc.flags & H1C_HEAD_OUT)) {
		/* room for a whole head, or send what is queued first */
		if (oq_sc_room(&c->oq) < 4096 || oq_iov_room(&c->oq) < 32)
			if (!h1_push(c))
				return 0;
		h1_start_response(c);
	}
	if (!(c->t.nc.flags & H1C_HEAD_END)) {
		if (h1_stage_head(c) == H1O_FLUSH)
			return h1_push(c);
		c->t.nc.flags |= H1C_HEAD_END;
	}
	if (c->sp || h1_splice_ok(c)) {
		o = h1_splice_body(c);
		if (o == H1O_WAIT || o == H1O_DEAD)
			return 0;
		if (o == H1O_DONE)
			return h1_sent(c);
	}
	o = h1_stage_body(c);
	if (o == H1O_FLUSH) /* mid-body: more follows at once, hold a partial segment back */
		return !h1_flush_queue(c, 1);
	if (o == H1O_PIECE) { /* a piece ended: it goes out alone, then the drip */
		if (!h1_push(c))
			return 0;
		if (c->ex->pause_until > c->t.w->loop.now_us)
			return h1_wait(c, c->ex->pause_until, H1S_SEND);
		ex_resume(c->ex);
		return 1;
	}
	return h1_sent(c);
}

static int h1_do_drain(struct h1c *c)
{
	int r = body_step(c, UINT64_MAX);

	if (r <= 0)
		return 0;
	return h1_finish(c);
}

/* waits that end at <until>: the timer moves the state on */
static int h1_do_until(struct h1c *c)
{
	uint64_t now;

	if (c->t.w->loop.now_us < c->until)
		return 0;
	now = (uint64_t)clock_ns() / 1000;
	st_late(&c->t.w->st, now > c->until ? now - c->until : 0);
	if (c->next_st == H1S_HEAD) {
		h1_next(c);
		return 1;
	}
	if (c->t.nc.flags & H1C_HEAD_OUT) /* the drip after a piece ended */
		ex_resume(c->ex);
	c->st = c->next_st;
	return 1;
}

/* one step of the state machine: 1 when it made progress, 0 when waiting */
static int h1_step(struct h1c *c)
{
	switch (c->st) {
	case H1S_HEAD:   return h1_do_head(c);
	case H1S_BODY:   return h1_do_body(c);
	case H1S_SEND:   return h1_do_send(c);
	case H1S_DRAIN:  return h1_do_drain(c);
	case H1S_LINGER: return h1_do_linger(c);
	case H1S_UNTIL:  return h1_do_until(c);
	}
	return 0;
}

/* ---------- timers ---------- */

/* when the current state times out, in microseconds */
static uint64_t h1_deadline(const struct h1c *c)
{
	uint64_t d;

	switch (c->st) {
	case H1S_HEAD:
		if (c->rd == c->wr && !c->t_first)
			d = (c->t.nc.last_act + (c->nreq ? c->idle_ms : cfg.head_ms)) * 1000;
		else
			d = ((uint64_t)(c->t_first / 1000000) + cfg.head_ms) * 1000;
		break;
	case H1S_BODY:
	case H1S_DRAIN:
		d = (c->t.nc.last_act + cfg.body_ms) * 1000;
		break;
	case H1S_SEND:
		d = (c->t.nc.last_act + cfg.send_ms) * 1000;
		break;
	default:
		d = c->until;
	}
	if (oq_pending(&c->oq))
		d = MIN(d, (c->t.nc.last_act + cfg.send_ms) * 1000);
	return d;
}

static void h1_expire(struct h1c *c)
{
	if (oq_pending(&c->oq) && c->t.w->loop.now_ms >= c->t.nc.last_act + cfg.send_ms) {
		h1_kill(c, 1, SC_TIMEOUT); /* the client stopped reading */
		return;
	}
	switch (c->st) {
	case H1S_HEAD:
		if (c->rd == c->wr && !c->t_first)
			h1_kill(c, 0, SC_IDLE);
		else
			h1_fail(c, 408, "request head not received in time");
		break;
	case H1S_BODY:
		h1_fail(c, 408, "request body not received in time");
		break;
	case H1S_DRAIN:
	case H1S_SEND:
	case H1S_LINGER:
		h1_kill(c, 0, SC_TIMEOUT);
		break;
	}
}

static void h1_run(struct h1c *c);

static void h1_timer_cb(struct loop *l, struct timer *t)
{
	struct worker *w = worker_of(l);
	struct h1c *c = container_of(t, struct h1c, t.nc.tm);

	if (h1_buffers_take(c) < 0) {
		h1_kill(c, 0, SC_ERROR);
		h1_free(c);
		return;
	}
	if (w->loop.now_us >= h1_deadline(c) && c->st != H1S_UNTIL)
		h1_expire(c);
	h1_run(c);
}

/* Keeps the timer at or before the state's deadline. WHY: lazy refresh;
 * a timer that fires early is re-armed, so activity never touches the heap */
static void h1_timer_need(struct h1c *c)
{
	uint64_t d = h1_deadline(c);

	if (!timer_queued(&c->t.nc.tm) || c->t.nc.tm.expire > d)
		timer_arm(&c->t.w->loop.timers, &c->t.nc.tm, d);
}

/* ---------- events ---------- */

/* runs the state machine as far as it goes: 0 when <c> is gone */
static int h1_go(struct h1c *c)
{
	if (h1_buffers_take(c) < 0)
		h1_kill(c, 0, SC_ERROR);
	while (!(c->t.nc.flags & H1C_DEAD) && h1_step(c))
		;
	if (!(c->t.nc.flags & H1C_DEAD) && oq_pending(&c->oq))
		h1_flush(c);
	if (c->t.nc.flags & H1C_DEAD) {
		h1_free(c);
		return 0;
	}
	if (h1_idle(c))
		h1_buffers_put(c);
	if (c->t.nc.x.rio)
		h1u_arm(c);
	h1_timer_need(c);
	return 1;
}

static void h1_run(struct h1c *c)
{
	(void)h1_go(c);
}

static void h1_io_cb(struct loop *l, struct ev *e, uint32_t events)
{
	struct h1c *c = container_of(e, struct h1c, t.nc.ev);

	(void)l;
	nc_events(&c->t.nc, events);
	h1_run(c);
}

static struct h1c *h1c_get(struct worker *w)
{
	struct h1c *c = tc_get(&h1w(w)->set);

	if (!c)
		return NULL;
	c->in_size = (uint32_t)cfg.iobuf + BODY_ROOM;
	c->oq.sc_size = (uint32_t)(cfg.iobuf + 8192);
	return c;
}

/* --io-uring: a completion of the connection's transport (h1u_start's) */
static void h1u_wake(struct rio *r, int what)
{
	struct h1c *c = container_of(r, struct h1c, rio);

	if (!what) { /* the last operation of a closed connection: now it goes */
		tc_zombie_done(&h1w(c->t.w)->set, &c->t);
		return;
	}
	if (what < 0) {
		c->t.nc.flags |= H1C_DEAD;
	} else if (what == RIO_TX) {
		oq_sent(&c->oq, (size_t)r->sent);
		c->t.nc.last_act = c->t.w->loop.now_ms;
		ctr_add(c->t.w->st.bytes_out, r->sent);
		c->t.nc.flags |= H1C_WR_READY;
	} else {
		c->t.nc.flags |= H1C_RD_READY;
	}
	h1_run(c);
}

/* bytes of a pooled recv go to the input buffer, taken back from the pool */
static char *h1u_room(struct rio *r, size_t n)
{
	struct h1c *c = container_of(r, struct h1c, rio);

	if (h1_buffers_take(c) < 0 || n > c->in_size - c->wr)
		return NULL;
	return c->in + c->wr;
}


/* the connection on <x>, fresh from accept or from its TLS handshake */
static int h1_start(struct worker *w, struct xprt *x, const struct handoff *h)
{
	struct h1c *c = h1c_get(w);

	if (!c)
		return -1;
	c->t.nc.x = *x;
	c->t.nc.ev = (struct ev){ x->fd, h1_io_cb };
	c->t.nc.tm = (struct timer){ 0, 0, h1_timer_cb };
	c->t.w = w;
	c->t.nc.flags = H1C_WR_READY;
	c->st = H1S_HEAD;
	c->rd = c->wr = c->hend = c->nreq = 0;
	c->t.nc.proto = x->ssl ? SP_H1TLS : SP_H1;
	c->t.nc.why = SC_UNSET;
	c->t_first = 0;
	c->t_recv = 0;
	c->t.nc.last_act = w->loop.now_ms;
	c->idle_ms = cfg.idle_ms;
	c->max_req = cfg.conn_requests;
	c->alt_port = h->alt_port;
	c->ci = h->ci;
	c->early_left = 0;
	oq_reset(&c->oq);
	/* bytes the session read before (TLS early data) are the first input */
	if (h->len) {
		if (h->len > c->in_size || h1_buffers_take(c) < 0) {
			c->ci = NULL; /* WHY: the caller still owns it */
			tc_put(&h1w(w)->set, &c->t);
			return -1;
		}
		memcpy(c->in, h->buf, h->len);
		c->wr = (uint32_t)h->len;
		c->early_left = h->early ? (uint32_t)h->len : 0;
	}
	tc_add(&h1w(w)->set, &c->t);
	/* WHY: the listener defers accept until the request is there, so it is
	 * read at once; a Connection: close exchange then ends before epoll
	 * ever hears of the socket (no epoll_ctl, no wake-up). After a TLS
	 * handshake, SSL may hold decrypted bytes already. */
	c->t.nc.flags |= H1C_RD_READY;
	c->t.nc.x.rio = NULL;
	if (w->loop.ring && !x->ssl)
		h1u_start(c, h1u_wake, h1u_room);
	if (!h1_go(c) || c->t.nc.x.rio)
		return 0;
	if ((h->fresh ? loop_watch : loop_rewatch)(&w->loop, &c->t.nc.ev, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET) < 0) {
		h1_kill(c, 0, SC_ERROR);
		h1_free(c);
	}
	return 0;
}

/* WHY only the idle ones: a busy connection closes after its response
 * (w->draining) */
static void h1_drain_one(struct tc_link *l)
{
	struct h1c *c = container_of(l, struct h1c, t.l);

	if (c->st == H1S_HEAD && c->rd == c->wr && !c->t_first && !oq_pending(&c->oq))
		h1_free(c);
}

static void h1_drain(struct worker *w)
{
	tc_drain(&h1w(w)->set, h1_drain_one);
}

static int h1_thread_init(struct worker *w)
{
	struct h1w *hw = calloc(1, sizeof(*hw));

	if (!hw)
		return -1;
	tc_set_init(&hw->set, &h1_kind, &w->loop, &w->st);
	w->ps[P_H1] = hw;
	return 0;
}

static void h1_end(struct tc_link *l)
{
	h1_free(container_of(l, struct h1c, t.l));
}

static void h1_close_all(struct worker *w)
{
	if (h1w(w))
		tc_close_all(&h1w(w)->set, h1_end);
}

static void h1_trim(struct worker *w)
{
	struct h1w *hw = h1w(w);

	tc_set_free(&hw->set);
	pool_drain(&hw->in);
	pool_drain(&hw->sc);
	pool_drain(&hw->ex);
}

static void h1_thread_free(struct worker *w)
{
	struct h1w *hw = h1w(w);

	if (!hw)
		return;
	h1_trim(w);
	free(hw);
	w->ps[P_H1] = NULL;
}

const struct proto proto_h1 = {
	.name = "h1",
	.alpn = "http/1.1",
	.thread_init = h1_thread_init,
	.close_all = h1_close_all,
	.thread_free = h1_thread_free,
	.trim = h1_trim,
	.start = h1_start,
	.drain = h1_drain,
};

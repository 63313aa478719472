/* WebSocket over an HTTP/1.1 connection after its 101 (RFC 6455): the protocol table's "ws" row, a socket (clear or TLS) under a ws session. */
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "session.h"
#include "tc_set.h"
#include "timer.h"
#include "ws.h"

struct wsc {
	struct tconn t;      /* first: nc (ev, x, tm, last_act, flags, why, proto: SP_WS), w, node */
	struct ws ws;
	uint64_t wake_us;    /* a ws=gen message is due, 0: none */
	char *pre;           /* bytes read before the switch, still to feed */
	size_t pre_len, pre_off;
};

/* WebSocket's state in each worker (worker->ps[P_WS]) */
struct wsw {
	struct tc_set set;   /* its connections */
};

static struct wsw *wsw(const struct worker *w)
{
	return w->ps[P_WS];
}

/* ---------- the transport under the session ---------- */

static long c_recv(void *u, uint8_t *buf, size_t len)
{
	struct wsc *c = u;
	int drained = 0;
	long n;

	if (c->pre_off < c->pre_len) {
		n = (long)MIN(len, c->pre_len - c->pre_off);
		memcpy(buf, c->pre + c->pre_off, (size_t)n);
		c->pre_off += (size_t)n;
		return n;
	}
	if (!(c->t.nc.flags & NC_RD_READY))
		return HX_AGAIN;
	n = xprt_recv(&c->t.nc.x, buf, len, &drained);
	if (n == XPRT_AGAIN || drained)
		c->t.nc.flags &= ~NC_RD_READY; /* WHY: nothing more until the next epoll edge */
	if (n > 0) {
		c->t.nc.last_act = c->t.w->loop.now_ms;
		ctr_add(c->t.w->st.bytes_in, (uint64_t)n);
	}
	return n == XPRT_AGAIN ? HX_AGAIN : n;
}

static long c_send(void *u, const uint8_t *buf, size_t len)
{
	struct wsc *c = u;
	struct iovec iov = { (void *)buf, len };
	long n = xprt_writev(&c->t.nc.x, &iov, 1, 0);

	if (n > 0) {
		c->t.nc.last_act = c->t.w->loop.now_ms;
		ctr_add(c->t.w->st.bytes_out, (uint64_t)n);
	}
	return n == XPRT_AGAIN ? HX_AGAIN : n;
}

static void c_arm(struct wsc *c);

static void c_wake_at(void *u, uint64_t us)
{
	struct wsc *c = u;

	if (!c->wake_us || us < c->wake_us)
		c->wake_us = us;
}

static const struct ws_io c_io = { c_recv, c_send, c_wake_at };

/* ---------- the connection ---------- */

/* what a closed connection holds, freed (the set's release) */
static void c_release(struct tconn *t)
{
	struct wsc *c = container_of(t, struct wsc, t);

	ws_free(&c->ws);
	free(c->pre);
	c->pre = NULL;
}

static const struct tc_kind ws_kind = { sizeof(struct wsc), offsetof(struct wsc, t), c_release, sess_conn_gone };

static void c_free(struct wsc *c, enum ws_state how)
{
	struct worker *w = c->t.w;

	if (how == WS_RESET) {
		struct linger l = { 1, 0 };

		setsockopt(c->t.nc.ev.fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	}
	if (c->t.nc.why == SC_UNSET)
		c->t.nc.why = how == WS_RESET || how == WS_CUT ? SC_FAULT : how == WS_DONE ? SC_SERVER : SC_UNSET;
	if (how == WS_RESET || how == WS_CUT)
		ctr_add(how == WS_RESET ? &w->st.faults[SF_RESET] : &w->st.faults[SF_CLOSE], 1);
	tc_end(&wsw(w)->set, &c->t, 1);
}

static void c_run(struct wsc *c)
{
	enum ws_state st;

	c->wake_us = 0;
	st = ws_run(&c->ws, c->t.w->loop.now_us);
	if (st != WS_GOING) {
		c_free(c, st);
		return;
	}
	c_arm(c);
}

/* the next timer: a message due, else the idle timeout */
static void c_arm(struct wsc *c)
{
	uint64_t idle = (c->t.nc.last_act + cfg.idle_ms) * 1000;

	loop_cancel(&c->t.w->loop, &c->t.nc.tm);
	loop_arm(&c->t.w->loop, &c->t.nc.tm, c->wake_us && c->wake_us < idle ? c->wake_us : idle);
}

static void c_timer(struct loop *l, struct timer *t)
{
	struct wsc *c = container_of(t, struct wsc, t.nc.tm);

	if (!c->wake_us && l->now_ms >= c->t.nc.last_act + cfg.idle_ms) {
		c->t.nc.why = SC_IDLE;
		c_free(c, WS_FAILED);
		return;
	}
	c_run(c);
}

static void c_io_cb(struct loop *l, struct ev *e, uint32_t events)
{
	struct wsc *c = container_of(e, struct wsc, t.nc.ev);

	(void)l;
	nc_events(&c->t.nc, events);
	c_run(c);
}

/* the connection on <x> after its 101: <h->ex> planned it (ws=, s=, n=,
 * d=, R=, x=, X=), <h->buf> holds what came after the request */
static int ws_start(struct worker *w, struct xprt *x, const struct handoff *h)
{
	struct wsc *c = tc_get(&wsw(w)->set);

	if (!c)
		return -1;
	*c = (struct wsc){ 0 }; /* WHY: a kept one comes as it was left */
	if (h->len && !(c->pre = malloc(h->len))) {
		tc_put(&wsw(w)->set, &c->t);
		return -1;
	}
	if (h->len)
		memcpy(c->pre, h->buf, h->len);
	c->pre_len = h->len;
	c->t.nc.x = *x;
	c->t.nc.x.rio = NULL;
	c->t.nc.ev = (struct ev){ x->fd, c_io_cb };
	c->t.nc.tm = (struct timer){ 0, 0, c_timer };
	c->t.w = w;
	c->t.nc.why = SC_UNSET;
	c->t.nc.proto = SP_WS;
	c->t.nc.flags = NC_RD_READY;
	c->t.nc.last_act = w->loop.now_ms;
	if (ws_init(&c->ws, h->ex, &c_io, c, &w->rng) < 0 ||
	    loop_rewatch(&w->loop, &c->t.nc.ev, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET) < 0) {
		tc_put(&wsw(w)->set, &c->t);
		return -1;
	}
	free(h->ci); /* WHY: X-Client went in the 101; nothing here shows it */
	tc_add(&wsw(w)->set, &c->t);
	c_run(c);
	return 0;
}

/* ---------- the table row ---------- */

static int ws_thread_init(struct worker *w)
{
	struct wsw *ww = calloc(1, sizeof(*ww));

	if (!ww)
		return -1;
	tc_set_init(&ww->set, &ws_kind, &w->loop, &w->st);
	w->ps[P_WS] = ww;
	return 0;
}

static void ws_drain_one(struct tc_link *l)
{
	struct wsc *c = container_of(l, struct wsc, t.l);

	c->t.nc.why = SC_DRAIN;
	ws_going_away(&c->ws);
	c_run(c);
}

static void ws_drain(struct worker *w)
{
	tc_drain(&wsw(w)->set, ws_drain_one);
}

static void ws_end(struct tc_link *l)
{
	c_free(container_of(l, struct wsc, t.l), WS_FAILED);
}

static void ws_close_all(struct worker *w)
{
	if (wsw(w))
		tc_close_all(&wsw(w)->set, ws_end);
}

static void ws_thread_free(struct worker *w)
{
	if (wsw(w))
		tc_set_free(&wsw(w)->set);
	free(wsw(w));
	w->ps[P_WS] = NULL;
}

const struct proto proto_ws = {
	.name = "ws",
	.thread_init = ws_thread_init,
	.close_all = ws_close_all,
	.thread_free = ws_thread_free,
	.start = ws_start,
	.drain = ws_drain,
};

/* A hxload connection from connect to close: TCP (or its protocol's own), the PROXY header, TLS and ALPN, then the protocol's row; renewed, reset, retried. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "lc_conn.h"
#include "lc_fate.h"
#include "lc_record.h"
#include "lc_sched.h"
#include "lc_thread.h"
#include "lc_source.h"
#include "lc_tls.h"
#include "pp.h"
#include "timer.h"
#include "tls.h"

/* the client protocols, by enum lc_proto (LC_AUTO: chosen by ALPN) */
static const struct lc_protocol *const *protos;

uint32_t lc_conn_source(const struct lc_conn *c)
{
	return (uint32_t)c->idx * (uint32_t)lc_o->threads + (uint32_t)c->t->id;
}

void lc_conn_protocols(const struct lc_protocol *const *rows)
{
	protos = rows;
}

static void conn_io(struct loop *l, struct ev *e, uint32_t events);
static int conn_turn(struct lc_conn *c, int (*fn)(struct lc_conn *));

/* the connection's protocol is settled: counted */
static void conn_count(struct lc_conn *c)
{
	struct lc_thread *t = c->t;

	c->up = 1;
	if (!lc_in_window(t, t->loop.now_us))
		return;
	c->up = 2; /* WHY 2: counted, so its requests per connection are too */
	t->st.conns++;
	t->st.by_proto[c->nc.proto]++;
}

void lc_conn_up(struct lc_conn *c, int resumed)
{
	struct lc_thread *t = c->t;
	uint64_t from = c->up_us ? c->up_us : c->open_us;

	if (lc_in_window(t, t->loop.now_us)) {
		hist_add(&t->st.h[H_TLS], t->loop.now_us - from);
		t->st.resumed += resumed != 0;
	}
	lc_hs_up(c, resumed);
	if (c->nc.proto == LC_H3)
		conn_count(c);
}

static void conn_fresh(struct lc_conn *c)
{
	c->nc.flags = 0;
	c->got_bytes = c->up = c->goaway = c->h2_set = 0;
	c->nc.why = E_RESET;
	c->inflight = c->taken = 0;
	c->up_us = 0;
	c->open_us = c->t->loop.now_us = lc_now_us();
	c->t->fresh++;
	if (lc_o->hs)
		lc_hs_pick(c);
	c->ex_used = 0;
}

static int conn_open(struct lc_conn *c)
{
	int fd, one = 1;

	conn_fresh(c);
	if (lc_tg->proto != LC_AUTO && protos[lc_tg->proto]->open) {
		c->nc.proto = lc_tg->proto;
		c->nc.ev = (struct ev){ -1, conn_io };
		if (protos[c->nc.proto]->open(c) < 0)
			return -1;
		c->nc.ev.fd = c->nc.x.fd;
		c->state = LS_READY;
		return 0;
	}
	/* WHY first: a failed open is reset, which walks the exchanges by the
	 * protocol's rules; with none set, that walk read a NULL table row */
	c->nc.proto = lc_tg->proto == LC_AUTO ? LC_H1 : lc_tg->proto;
	fd = socket(lc_tg->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (lc_tg->addr.ss_family != AF_UNIX)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (lc_source_bind(fd, lc_conn_source(c)) < 0 ||
	    (connect(fd, (struct sockaddr *)&lc_tg->addr, lc_tg->alen) < 0 && errno != EINPROGRESS)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	c->nc.ev = (struct ev){ fd, conn_io };
	c->nc.x = (struct xprt){ .fd = fd };
	c->state = LS_CONNECTING;
	oq_reset(&c->oq);
	return loop_watch(&c->t->loop, &c->nc.ev, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET);
}

/* each exchange in flight on <c> */
void lc_conn_each(struct lc_conn *c, void (*fn)(struct lc_conn *, struct lc_ex *))
{
	uint32_t depth = (uint32_t)lc_o->depth;

	if (protos[c->nc.proto]->fifo) {
		for (uint32_t k = 0; k < c->inflight; k++)
			fn(c, LC_EX(c, (c->ex_head + k) % depth));
		return;
	}
	for (uint32_t k = 0; k < c->ex_used; k++)
		if (LC_EX(c, k)->id >= 0)
			fn(c, LC_EX(c, k));
}

struct lc_ex *lc_ex_free(struct lc_conn *c)
{
	struct lc_ex *e;

	for (uint32_t k = 0; k < c->ex_used; k++)
		if (LC_EX(c, k)->id < 0)
			return LC_EX(c, k);
	if (c->ex_used >= (uint32_t)lc_o->depth)
		return NULL;
	e = LC_EX(c, c->ex_used++);
	e->id = -1;
	return e;
}

/* the exchange goes again on the next connection: not sent after all */
static void requeue(struct lc_conn *c, struct lc_ex *e)
{
	struct lc_thread *t = c->t;

	t->budget++;
	t->started--;
	if (e->counted)
		t->st.sent--;
	if (lc_open_loop() && !lc_due_unshift(t, e->t0) && e->counted && e->sent_us > e->t0 + LC_LATE_US)
		t->st.late--;
}

void lc_retry(struct lc_conn *c, struct lc_ex *e)
{
	if (e->counted && !c->t->closed_us)
		c->t->st.retried++;
	requeue(c, e);
}

void lc_conn_close(struct lc_conn *c, int done)
{
	struct lc_thread *t = c->t;

	if (c->up == 2)
		hist_add(&t->st.h[H_RPC], c->taken);
	t->fresh -= !c->taken;
	c->taken = 1; /* WHY: counted out of <fresh> once */
	/* WHY the protocol's last words and close_notify: without them a proxy
	 * in front counts the close as an abort (RFC 9113 6.8, RFC 8446 6.1);
	 * one try each, never waited for */
	if (done && c->proto_state && protos[c->nc.proto]->bye)
		protos[c->nc.proto]->bye(c);
	if (c->proto_state && protos[c->nc.proto]->free)
		protos[c->nc.proto]->free(c);
	if (done)
		xprt_close_notify(&c->nc.x);
	/* WHY: OpenSSL marks the session of a connection freed without a
	 * shutdown as not resumable, and that is the one to resume */
	if (c->nc.x.ssl)
		SSL_set_shutdown(c->nc.x.ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
	xprt_release(&c->nc.x);
	lc_bufs_put(c, 1);
	if (c->nc.x.fd >= 0)
		close(c->nc.x.fd);
	c->nc.x.fd = c->nc.ev.fd = -1;
	c->state = 0;
	c->inflight = 0;
	c->ex_used = 0;
}

/* a lost connection: its exchanges failed; a new one, later if the server refuses them */
static void conn_reset(struct lc_conn *c)
{
	lc_conn_each(c, lc_lost);
	lc_conn_close(c, 0);
	if (lc_run_over(c->t))
		return;
	timer_arm(&c->t->loop.timers, &c->nc.tm, c->t->loop.now_us + (lc_succeeded() ? 1000 : 10000));
}

void lc_reset(struct lc_conn *c)
{
	conn_reset(c);
}

/* the server closes after a complete response, as it said it would (or
 * --close): a new connection at once, the requests sent after that one go again */
static void conn_renew(struct lc_conn *c)
{
	lc_conn_each(c, requeue);
	lc_conn_close(c, 1);
	/* WHY budget against fresh: --close opens no connection that no
	 * request is left for (it has no pipelined requests to give back, so
	 * a fresh one never waits idle for them) */
	if (lc_run_over(c->t) || !c->t->budget || (lc_o->close && c->t->budget <= c->t->fresh) || lc_hs_idle(c->t))
		return;
	if (conn_open(c) < 0) {
		lc_error(c, E_CONNECT);
		conn_reset(c);
	}
}

/* what conn_step() asked for */
static void conn_after(struct lc_conn *c, int r)
{
	if (r < 0)
		conn_reset(c);
	else if (r > 0 || (lc_o->close && c->taken && !c->inflight && c->state == LS_READY &&
			   !(protos[c->nc.proto]->linger && protos[c->nc.proto]->linger(c))))
		conn_renew(c);
	else if (!c->inflight) { /* WHY not between a request and its answer: no pool churn under load */
		lc_bufs_put(c, 0);
		/* WHY: OpenSSL's RELEASE_BUFFERS left a 16 KiB record buffer
		 * with each idle HTTP/1.1 connection (malloc's bytes in use,
		 * -c 1500 -R 100 over TLS: 34.9 KiB a connection on h1, 19.0 on
		 * h2); freed only when empty, taken again at the next record */
		if (c->nc.x.ssl)
			SSL_free_buffers(c->nc.x.ssl);
	}
}

void lc_conn_open(struct lc_conn *c)
{
	if (!c->state && conn_open(c) < 0) {
		lc_error(c, E_CONNECT);
		conn_reset(c);
	}
}

static void conn_retry(struct loop *l, struct timer *tm)
{
	(void)l;
	lc_conn_open(container_of(tm, struct lc_conn, nc.tm));
}

/* --h2 on https:// and the server chose something else */
static int alpn_check(struct lc_conn *c)
{
	char msg[600];

	if (lc_tg->proto != LC_H2 || tls_alpn_is(c->nc.x.ssl, "h2"))
		return 0;
	snprintf(msg, sizeof(msg), "the server at %s chose no ALPN h2 (%s): drop --h2", lc_tg->where,
		 tls_alpn_is(c->nc.x.ssl, "http/1.1") ? "it chose http/1.1" : "it chose none");
	lc_fatal_set(msg);
	return -1;
}

/* --proxy-protocol: the header before anything else, with the socket's
 * own addresses (a Unix socket's: v1 UNKNOWN, v2 LOCAL) */
static int proxy_send(struct lc_conn *c)
{
	struct sockaddr_storage src = { 0 }, dst = { 0 };
	socklen_t sl = sizeof(src), dl = sizeof(dst);
	char h[PP_V1_MAX + 1];
	size_t n;

	getsockname(c->nc.x.fd, (struct sockaddr *)&src, &sl);
	getpeername(c->nc.x.fd, (struct sockaddr *)&dst, &dl);
	n = pp_write(h, lc_o->proxy_proto, (struct sockaddr *)&src, (struct sockaddr *)&dst);
	/* WHY no retry: a fresh socket's send buffer takes 52 bytes whole */
	if (send(c->nc.x.fd, h, n, MSG_NOSIGNAL) != (ssize_t)n) {
		lc_error(c, E_CONNECT);
		return -1;
	}
	return 0;
}

/* the socket is connected: the PROXY header, TLS, then the protocol */
static int conn_ready(struct lc_conn *c)
{
	if (c->state == LS_CONNECTING && lc_o->proxy_proto && proxy_send(c) < 0)
		return -1;
	if (lc_tg->tls && c->state != LS_TLS) {
		if (!(c->nc.x.ssl = lc_tls_new(c)))
			return -1;
		c->state = LS_TLS;
		if (lc_hs_early_send(c) < 0)
			return -1;
	}
	if (c->state == LS_TLS) {
		int r = SSL_do_handshake(c->nc.x.ssl);

		if (r != 1) {
			int e = SSL_get_error(c->nc.x.ssl, r);

			if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
				return 0;
			lc_error(c, E_TLS);
			return -1;
		}
		if (lc_hs_early_end(c)) {
			/* WHY: the early request never reached the server: sent
			 * again after the handshake, as if not taken */
			lc_retry(c, &c->ex[0]);
			c->inflight = c->taken = 0;
			c->t->fresh++;
		}
		lc_tls_up(c);
		lc_conn_up(c, SSL_session_reused(c->nc.x.ssl));
		if (alpn_check(c) < 0)
			return -1;
		if (lc_tg->proto == LC_AUTO)
			c->nc.proto = tls_alpn_is(c->nc.x.ssl, "h2") ? LC_H2 : LC_H1;
		c->nc.flags |= NC_RD_READY;
	}
	c->state = LS_READY;
	conn_count(c);
	return conn_turn(c, protos[c->nc.proto]->start);
}

/* WHY pools: an idle connection holds no buffer; its 64 KiB input and
 * output blocks, whose touched pages were 8.3 KiB a connection at -c 10000,
 * are its thread's while nothing waits in them */
int lc_bufs_take(struct lc_conn *c)
{
	struct lc_thread *t = c->t;

	if (!c->in && !(c->in = pool_get(&t->inb)))
		return -1;
	return oq_take(&c->oq, &t->outb);
}

void lc_bufs_put(struct lc_conn *c, int all)
{
	struct lc_thread *t = c->t;

	if (all)
		c->in_len = 0, oq_reset(&c->oq);
	if (c->in && !c->in_len) {
		pool_put(&t->inb, c->in);
		c->in = NULL;
	}
	oq_give(&c->oq, &t->outb);
}

long lc_conn_recv(struct lc_conn *c, char *buf, size_t room)
{
	int drained;
	long n = xprt_recv(&c->nc.x, buf, room, &drained);

	if (drained && !(c->nc.flags & NC_RDHUP)) /* WHY: a FIN with the last bytes raises no new edge */
		c->nc.flags &= ~NC_RD_READY;
	if (n > 0 && lc_first_bytes(c, buf, (size_t)n) < 0)
		return LC_RECV_REFUSED;
	return n;
}

/* a TCP protocol's turn runs with its buffers (QUIC's rows have their own) */
static int conn_turn(struct lc_conn *c, int (*fn)(struct lc_conn *))
{
	if (!protos[c->nc.proto]->open && lc_bufs_take(c) < 0) {
		lc_fatal_set("hxload is out of memory: no buffer for a connection (fewer -c?)");
		lc_error(c, E_RESET);
		return -1;
	}
	return fn(c);
}

static int conn_step(struct lc_conn *c)
{
	return conn_turn(c, protos[c->nc.proto]->io);
}

static void conn_io(struct loop *l, struct ev *e, uint32_t events)
{
	struct lc_conn *c = container_of(e, struct lc_conn, nc.ev);
	int r = 0;

	(void)l;
	nc_events(&c->nc, events);
	if (c->state == LS_CONNECTING) {
		int err = 0;
		socklen_t el = sizeof(err);

		getsockopt(c->nc.x.fd, SOL_SOCKET, SO_ERROR, &err, &el);
		if (err || (events & (EPOLLERR | EPOLLHUP))) {
			errno = err ? err : ECONNREFUSED;
			lc_error(c, E_CONNECT);
			conn_reset(c);
			return;
		}
		if (!(c->nc.flags & NC_WR_READY))
			return;
		c->up_us = c->t->loop.now_us;
		if (lc_in_window(c->t, c->up_us))
			hist_add(&c->t->st.h[H_CONNECT], c->up_us - c->open_us);
	}
	if (c->state != LS_READY && (r = conn_ready(c)) <= 0 && c->state != LS_READY) {
		if (r < 0)
			conn_reset(c);
		return;
	}
	if (r < 0) {
		conn_reset(c);
		return;
	}
	conn_after(c, conn_step(c));
}

void lc_conn_step(struct lc_conn *c)
{
	conn_after(c, conn_step(c));
}

uint64_t lc_conn_oldest(const struct lc_conn *c)
{
	uint64_t oldest = UINT64_MAX;

	if (c->state != LS_READY || !c->inflight)
		return oldest;
	if (protos[c->nc.proto]->fifo)
		return LC_EX(c, c->ex_head)->sent_us;
	for (uint32_t k = 0; k < c->ex_used; k++)
		if (LC_EX(c, k)->id >= 0 && LC_EX(c, k)->sent_us < oldest)
			oldest = LC_EX(c, k)->sent_us;
	return oldest;
}

void lc_conn_init(struct lc_conn *c, struct lc_thread *t, int idx)
{
	c->t = t;
	c->idx = idx;
	c->nc.x.fd = c->nc.ev.fd = -1;
	c->nc.tm = (struct timer){ 0, 0, conn_retry };
	c->ex = t->ex + idx;
	c->in_size = LC_INBUF;
	c->oq.sc_size = LC_INBUF;
	if (!t->inb.size) {
		t->inb = (struct pool){ .size = LC_INBUF, .keep = LC_BUFS_KEPT };
		t->outb = (struct pool){ .size = oq_mem_size(LC_INBUF), .keep = LC_BUFS_KEPT };
	}
}

void lc_conn_free(struct lc_conn *c)
{
	lc_bufs_put(c, 1);
}

/* The session layer: a TCP connection from accept to its protocol (TLS handshake, ALPN, h2 preface, Upgrade), over the protocol table. */
#include <openssl/ssl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "session.h"
#include "timer.h"
#include "tls.h"
#include "tls_ctx.h"
#include "uring.h"

/* the table, in enum proto_id order */
static const struct proto *const protocols[P_MAX] = {
	[P_H1] = &proto_h1,
	[P_H2] = &proto_h2,
	[P_H3] = &proto_h3,
};

static atomic_int conn_count;

/* a TLS connection whose handshake is in progress */
struct tlshs {
	struct ev ev;
	struct xprt x;
	struct timer tm;
	struct worker *w;
	uint16_t alt_port;
	struct list node;    /* on w->hs, or w->free_hs */
};

/* ---------- the table ---------- */

int sess_init(void)
{
	for (int i = 0; i < P_MAX; i++)
		if (protocols[i]->init && protocols[i]->init() < 0)
			return -1;
	return 0;
}

void sess_free(void)
{
	for (int i = P_MAX - 1; i >= 0; i--)
		if (protocols[i]->free)
			protocols[i]->free();
}

int sess_thread_init(struct worker *w)
{
	list_init(&w->hs);
	list_init(&w->free_hs);
	for (int i = 0; i < P_MAX; i++)
		if (protocols[i]->thread_init(w) < 0)
			return -1;
	return 0;
}

int sess_listen(struct worker *w, const struct listen_addr *la)
{
	for (int i = 0; i < P_MAX; i++)
		if (protocols[i]->listen && la->tls_port && protocols[i]->listen(w, la, la->tls_port) < 0)
			return -1;
	return 0;
}

int sess_switch(struct worker *w, enum proto_id id, struct xprt *x, const struct handoff *h)
{
	return protocols[id]->start ? protocols[id]->start(w, x, h) : -1;
}

int sess_preface(const char *buf, size_t len)
{
	size_t n = MIN(len, sizeof(H2_PREFACE) - 1);

	if (memcmp(buf, H2_PREFACE, n))
		return 0;
	return n == sizeof(H2_PREFACE) - 1 ? 1 : HX_AGAIN;
}

uint32_t sess_live(const struct worker *w)
{
	uint32_t n = (uint32_t)ctr_get(&w->st.conns);

	for (int i = 0; i < P_MAX; i++)
		if (protocols[i]->live)
			n += protocols[i]->live(w);
	return n;
}

int sess_count(void)
{
	return atomic_load_explicit(&conn_count, memory_order_relaxed);
}

void sess_conn_gone(struct worker *w)
{
	ctr_add(&w->st.conns, (uint64_t)-1);
	atomic_fetch_sub_explicit(&conn_count, 1, memory_order_relaxed);
	if (w->conn_gone)
		w->conn_gone(w);
}

static void conn_open(struct worker *w)
{
	atomic_fetch_add_explicit(&conn_count, 1, memory_order_relaxed);
	ctr_add(&w->st.conns, 1);
	ctr_add(&w->st.accepted, 1);
}

/* ---------- TLS handshakes ---------- */

static void hs_unlink(struct tlshs *h)
{
	struct worker *w = h->w;

	loop_cancel(&w->loop, &h->tm);
	list_del(&h->node);
	list_add(&w->free_hs, &h->node);
}

/* the handshake failed, timed out, or the server stops: the connection goes */
static void hs_close(struct tlshs *h)
{
	struct worker *w = h->w;

	xprt_release(&h->x);
	close(h->x.fd);
	hs_unlink(h);
	sess_conn_gone(w);
}

/* done: the protocol ALPN chose (HTTP/1.1 when none) takes the connection */
static void hs_done(struct tlshs *h)
{
	struct worker *w = h->w;
	struct xprt x = h->x;
	struct handoff ho = { .alt_port = h->alt_port };
	enum proto_id id = tls_is_h2(x.ssl) ? P_H2 : P_H1;

	ctr_add(&w->st.tls[SSL_version(x.ssl) == TLS1_3_VERSION][SSL_session_reused(x.ssl)], 1);
	hs_unlink(h);
	if (protocols[id]->start(w, &x, &ho) < 0) {
		xprt_release(&x);
		close(x.fd);
		sess_conn_gone(w);
	}
}

static void hs_step(struct tlshs *h)
{
	int r = tls_handshake(h->x.ssl);

	if (r < 0)
		hs_close(h);
	else if (r > 0)
		hs_done(h);
}

static void hs_io(struct loop *l, struct ev *e, uint32_t events)
{
	(void)l, (void)events;
	hs_step(container_of(e, struct tlshs, ev));
}

/* WHY: --head-timeout covers a handshake left half-done too (slowloris) */
static void hs_timeout(struct loop *l, struct timer *t)
{
	(void)l;
	hs_close(container_of(t, struct tlshs, tm));
}

static int hs_start(struct worker *w, int fd, uint16_t tls_port)
{
	struct list *n = list_pop(&w->free_hs);
	struct tlshs *h = n ? list_elem(n, struct tlshs, node) : malloc(sizeof(*h));
	SSL *ssl;

	if (!h)
		return -1;
	if (!(ssl = tls_new(fd))) {
		list_add(&w->free_hs, &h->node);
		return -1;
	}
	*h = (struct tlshs){ .ev = { fd, hs_io }, .x = { fd, ssl, NULL }, .tm = { 0, 0, hs_timeout }, .w = w,
			     .alt_port = (!cfg.no_h3 && !cfg.no_alt_svc) ? tls_port : 0,
 };
	list_add(&w->hs, &h->node);
	conn_open(w);
	if (loop_watch(&w->loop, &h->ev, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET) < 0 ||
	    loop_arm(&w->loop, &h->tm, w->loop.now_us + cfg.head_ms * 1000) < 0) {
		hs_close(h);
		return 0;
	}
	/* WHY: with TCP_DEFER_ACCEPT the ClientHello is already there */
	hs_step(h);
	return 0;
}

static void hs_close_all(struct worker *w)
{
	while (!list_empty(&w->hs))
		hs_close(list_elem(w->hs.next, struct tlshs, node));
}

/* ---------- connections ---------- */

int sess_accept(struct worker *w, int fd, uint16_t tls_port)
{
	struct xprt x = { fd, NULL, NULL };

	if (tls_port)
		return hs_start(w, fd, tls_port);
	conn_open(w);
	if (protocols[P_H1]->start(w, &x, &(struct handoff){ 0 }) < 0) {
		ctr_add(&w->st.conns, (uint64_t)-1);
		ctr_add(&w->st.accepted, (uint64_t)-1);
		atomic_fetch_sub_explicit(&conn_count, 1, memory_order_relaxed);
		return -1;
	}
	return 0;
}

void sess_drain(struct worker *w)
{
	w->draining = 1;
	hs_close_all(w);
	for (int i = 0; i < P_MAX; i++)
		protocols[i]->drain(w);
}

void sess_thread_free(struct worker *w)
{
	hs_close_all(w);
	for (struct list *n; (n = list_pop(&w->free_hs));)
		free(list_elem(n, struct tlshs, node));
	for (int i = 0; i < P_MAX; i++)
		protocols[i]->close_all(w);
	/* WHY here: what the ring still does ends, so that no protocol frees a
	 * buffer the kernel writes into or sends from */
	uring_drain(w->loop.ring, &w->loop);
	for (int i = P_MAX - 1; i >= 0; i--)
		protocols[i]->thread_free(w);
}

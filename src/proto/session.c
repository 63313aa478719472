/* The session layer: a TCP connection from accept to its protocol (TLS handshake, ALPN, h2 preface, Upgrade), over the protocol table. */
#include <errno.h>
#include <openssl/ssl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client.h"
#include "config.h"
#include "log.h"
#include "pp.h"
#include "session.h"
#include "timer.h"
#include "tls.h"
#include "tls_auth.h"
#include "tls_ctx.h"
#include "uring.h"

/* the table, in enum proto_id order (sess_init's: the session layer names
 * no protocol, so the protocols may call it) */
static const struct proto *const *protocols;

static atomic_int conn_count;

/* a connection before its protocol: a PROXY header to read, a TLS
 * handshake in progress, or both in that order */
struct pre {
	struct tconn t;      /* first: nc (ev, x, tm, ...), w, node (on w->hs); no stats slot */
	uint16_t tls_port;   /* the TLS port it came to, 0: clear text */
	uint16_t alt_port;
	uint8_t proxy;       /* the PROXY header is still to read */
	uint8_t linger;      /* the handshake failed: its alert read, then close */
	uint8_t early_done;  /* --early-data: the early phase is over */
	uint32_t early_len;
	char *early;         /* --early-data: what came in it, or NULL */
	struct cinfo *ci;    /* what the PROXY header said, NULL: nothing */
};

static const struct tc_kind pre_kind;

/* ---------- the table ---------- */

int sess_init(const struct proto *const *table)
{
	protocols = table;
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
	tc_set_init(&w->hs, &pre_kind, &w->loop, &w->st);
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

/* ---------- before the protocol: PROXY header, TLS handshake ---------- */

/* what it still holds, freed (the set's release) */
static void pre_release(struct tconn *t)
{
	struct pre *h = container_of(t, struct pre, t);

	free(h->ci);
	h->ci = NULL;
	free(h->early);
	h->early = NULL;
}

static const struct tc_kind pre_kind = { sizeof(struct pre), offsetof(struct pre, t), pre_release, sess_conn_gone };

/* WHY no close_notify: the handshake failed or never ended */
static void pre_end(struct pre *h)
{
	xprt_release(&h->t.nc.x);
	tc_end(&h->t.w->hs, &h->t, 0);
}

/* it failed, timed out, or the server stops: the connection goes, counted
 * by <why> */
static void pre_close(struct pre *h, enum st_pre why)
{
	ctr_add(&h->t.w->st.pre_close[why], 1);
	pre_end(h);
}

/* what the peer still sends is read and dropped until it closes (or the
 * second is over): 1 when the connection is gone */
static int pre_drain(struct pre *h)
{
	char buf[4096];
	long n;

	while ((n = recv(h->t.nc.x.fd, buf, sizeof(buf), 0)) > 0)
		;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	pre_end(h);
	return 1;
}

/* WHY linger: a TLS 1.3 client sends its request right after its
 * Finished; closing at once with those bytes unread turns the close into
 * a RST that can destroy the alert (certificate required) on its way */
static void pre_linger(struct pre *h, enum st_pre why)
{
	struct worker *w = h->t.w;

	ctr_add(&w->st.pre_close[why], 1);
	xprt_release(&h->t.nc.x);
	h->t.nc.x.ssl = NULL;
	h->linger = 1;
	shutdown(h->t.nc.x.fd, SHUT_WR);
	loop_cancel(&w->loop, &h->t.nc.tm);
	if (loop_arm(&w->loop, &h->t.nc.tm, w->loop.now_us + 1000000) < 0)
		pre_end(h);
	else
		pre_drain(h);
}

/* the subject of the client's verified certificate, "" when it sent none,
 * NULL when none is asked for */
static const char *pre_cert(SSL *ssl, char *buf, size_t len)
{
	if (!cfg.client_cert)
		return NULL;
	tls_auth_subject(ssl, buf, len);
	return buf;
}

/* done: the protocol ALPN chose (HTTP/1.1 when none, or on clear text)
 * takes the connection */
static void pre_done(struct pre *h)
{
	struct worker *w = h->t.w;
	struct xprt x = h->t.nc.x;
	struct handoff ho = { .alt_port = h->alt_port, .ci = h->ci, .buf = h->early, .len = h->early_len };
	char *early = h->early;
	enum proto_id id = x.ssl && tls_is_h2(x.ssl) ? P_H2 : P_H1;
	char subj[512];
	const char *cert = x.ssl ? pre_cert(x.ssl, subj, sizeof(subj)) : NULL;

	if (x.ssl)
		ctr_add(&w->st.tls[SSL_version(x.ssl) == TLS1_3_VERSION][SSL_session_reused(x.ssl)], 1);
	ho.early = early && h->early_len && tls_early_accepted(x.ssl);
	ho.fresh = !x.ssl;
	h->early = NULL;
	if (cert && !ho.ci)
		ho.ci = cinfo_new(x.fd, NULL, NULL, cert);
	else if (cert)
		cinfo_cert(ho.ci, cert);
	h->ci = NULL;
	/* WHY: clear text after a PROXY header may go to the ring, which
	 * never takes the epoll registration over from us */
	if (!x.ssl)
		loop_forget(&w->loop, &h->t.nc.ev);
	/* the socket and its TLS are the protocol's now */
	h->t.nc.x.ssl = NULL;
	h->t.nc.ev.fd = h->t.nc.x.fd = -1;
	h->t.nc.flags |= TC_MOVED;
	tc_end(&w->hs, &h->t, 0);
	if ((cert && !ho.ci) || protocols[id]->start(w, &x, &ho) < 0) {
		free(ho.ci);
		xprt_release(&x);
		close(x.fd);
		sess_conn_gone(w);
	}
	free(early); /* WHY here: start() took a copy of its bytes */
}

/* the PROXY header, peeked then taken whole so that what follows it (a
 * ClientHello, a request) stays in the socket: 0 read, HX_AGAIN, or -1
 * after closing */
static int pre_proxy(struct pre *h)
{
	char buf[PP_MAX];
	struct pp_info pi;
	const char *why = "";
	long n = recv(h->t.nc.x.fd, buf, sizeof(buf), MSG_PEEK), r;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return HX_AGAIN;
	if (n <= 0)
		return pre_close(h, SPR_PEER), -1;
	if ((r = pp_parse(buf, (size_t)n, &pi, &why)) == HX_AGAIN)
		return HX_AGAIN;
	if (r < 0) {
		if (cfg.debug)
			log_debug("thread %d fd %d: %s", h->t.w->id, h->t.nc.x.fd, why);
		return pre_close(h, SPR_PROXY_BAD), -1;
	}
	if (recv(h->t.nc.x.fd, buf, (size_t)r, 0) != r || !(h->ci = cinfo_new(h->t.nc.x.fd, NULL, &pi, NULL)))
		return pre_close(h, SPR_ERROR), -1;
	ctr_add(&h->t.w->st.proxy_hdr[pi.version - 1], 1);
	h->proxy = 0;
	return 0;
}

static void pre_step(struct pre *h)
{
	int r;

	if (h->linger) {
		pre_drain(h);
		return;
	}
	if (h->proxy && pre_proxy(h) != 0)
		return;
	if (!h->tls_port)
		return pre_done(h);
	if (!h->t.nc.x.ssl && !(h->t.nc.x.ssl = tls_new(h->t.nc.x.fd)))
		return pre_close(h, SPR_ERROR);
	if (cfg.early_data && !h->early_done) {
		size_t n = h->early_len;

		if (!h->early && !(h->early = malloc(TLS_EARLY_MAX)))
			return pre_close(h, SPR_ERROR);
		r = tls_read_early(h->t.nc.x.ssl, h->early, &n);
		h->early_len = (uint32_t)n;
		if (r == -1)
			return pre_linger(h, SPR_TLS_FAILED);
		if (r == HX_AGAIN)
			return;
		h->early_done = 1;
	}
	r = tls_handshake(h->t.nc.x.ssl);
	if (r == -1)
		pre_linger(h, SPR_TLS_FAILED);
	else if (!r)
		pre_done(h);
}

static void pre_io(struct loop *l, struct ev *e, uint32_t events)
{
	(void)l, (void)events;
	pre_step(container_of(e, struct pre, t.nc.ev));
}

/* WHY: --head-timeout covers a PROXY header or a handshake left half-done
 * too (slowloris) */
static void pre_timeout(struct loop *l, struct timer *t)
{
	struct pre *h = container_of(t, struct pre, t.nc.tm);

	(void)l;
	if (h->linger)
		pre_end(h);
	else
		pre_close(h, h->proxy ? SPR_PROXY_TIMEOUT : SPR_TLS_TIMEOUT);
}

static int pre_start(struct worker *w, int fd, uint16_t tls_port, int proxy)
{
	struct pre *h = tc_get(&w->hs);

	if (!h)
		return -1;
	*h = (struct pre){ .t = { .nc = { .ev = { fd, pre_io }, .x = { .fd = fd }, .tm = { 0, 0, pre_timeout },
					 .proto = TC_NO_SLOT }, .w = w },
			   .tls_port = tls_port, .proxy = (uint8_t)proxy,
			   .alt_port = (tls_port && !cfg.no_h3 && !cfg.no_alt_svc) ? tls_port : 0 };
	tc_add(&w->hs, &h->t);
	conn_open(w);
	if (loop_watch(&w->loop, &h->t.nc.ev, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET) < 0 ||
	    loop_arm(&w->loop, &h->t.nc.tm, w->loop.now_us + cfg.head_ms * 1000) < 0) {
		pre_close(h, SPR_ERROR);
		return 0;
	}
	/* WHY: with TCP_DEFER_ACCEPT the first bytes are already there */
	pre_step(h);
	return 0;
}

static void pre_stop(struct tc_link *l)
{
	struct pre *h = container_of(l, struct pre, t.l);

	if (h->linger)
		pre_end(h);
	else
		pre_close(h, SPR_DRAIN);
}

static void pre_close_all(struct worker *w)
{
	tc_close_all(&w->hs, pre_stop);
}

/* ---------- connections ---------- */

int sess_accept(struct worker *w, int fd, uint16_t tls_port, int proxy)
{
	struct xprt x = { .fd = fd };

	if (tls_port || proxy)
		return pre_start(w, fd, tls_port, proxy);
	conn_open(w);
	if (protocols[P_H1]->start(w, &x, &(struct handoff){ .fresh = 1 }) < 0) {
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
	pre_close_all(w);
	for (int i = 0; i < P_MAX; i++)
		protocols[i]->drain(w);
}

void sess_trim(struct worker *w)
{
	tc_set_free(&w->hs);
	for (int i = 0; i < P_MAX; i++)
		if (protocols[i]->trim)
			protocols[i]->trim(w);
}

void sess_thread_free(struct worker *w)
{
	pre_close_all(w);
	tc_set_free(&w->hs);
	for (int i = 0; i < P_MAX; i++)
		protocols[i]->close_all(w);
	/* WHY here: what the ring still does ends, so that no protocol frees a
	 * buffer the kernel writes into or sends from */
	uring_drain(w->loop.ring, &w->loop);
	for (int i = P_MAX - 1; i >= 0; i--)
		protocols[i]->thread_free(w);
}

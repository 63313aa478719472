/* hxload's run: each thread's loop, its connections from connect to close, the open-loop schedule, what is recorded. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "lc.h"
#include "timer.h"
#include "tls.h"
#include "tls_bio.h"

#define TICK_US 100000 /* housekeeping: timeouts, progress, the end */

/* the client protocols, by enum lc_proto (LC_AUTO: chosen by ALPN) */
static const struct lc_protocol *const protos[] = { [LC_H1] = &lc_h1, [LC_H2] = &lc_h2, [LC_H3] = &lc_h3 };

SSL_CTX *lc_tls;
static atomic_int interrupted;
static atomic_int fatal_seen;        /* a connection could never be made */
static char fatal_msg[512];
static atomic_int any_success;

int lc_protos_init(void)
{
	for (size_t i = LC_H1; i < ARRAY_SIZE(protos); i++)
		if (protos[i]->global_init && protos[i]->global_init() < 0)
			return -1;
	return 0;
}

void lc_protos_free(void)
{
	for (size_t i = LC_H1; i < ARRAY_SIZE(protos); i++)
		if (protos[i]->global_free)
			protos[i]->global_free();
}

void lc_interrupt(void)
{
	interrupted = 1;
}

const char *lc_fatal(void)
{
	return fatal_seen ? fatal_msg : NULL;
}

static uint64_t now_us(void)
{
	return (uint64_t)clock_ns() / 1000;
}

/* ---------- what the protocol modules call ---------- */

uint64_t lc_take(struct lc_conn *c)
{
	struct lc_thread *t = c->t;

	if (interrupted || t->loop.now_us >= t->end_us || !t->budget)
		return 0;
	if (t->o->rate > 0) {
		uint64_t due;

		if (!t->due_n)
			return 0;
		due = t->due[t->due_head];
		t->due_head = (t->due_head + 1) % t->due_cap;
		t->due_n--;
		t->budget--;
		t->started++;
		return due ? due : 1;
	}
	t->budget--;
	t->started++;
	return now_us();
}

static const char line[] = ".123456789.123456789.123456789.123456789.12345678\n";

void lc_verify(struct lc_ex *e, const char *p, size_t n)
{
	if (lc_opts.verify && !e->bad && !e->random) {
		for (size_t i = 0; i < n; i++)
			if (p[i] != line[(e->bytes + i) % 50]) {
				e->bad = 1;
				break;
			}
	}
	e->bytes += n;
}

/* the decimal number at <p>, digits only; <*end> after it */
static uint64_t dec(const char *p, const char *lim, const char **end)
{
	uint64_t v = 0;

	for (; p < lim && *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	*end = p;
	return v;
}

/* X-rsp: ... size=<n>, time=<w> ms (<ms>.<us> real): by hand, it runs per response */
void lc_xrsp(struct lc_ex *e, const char *v, size_t len)
{
	const char *lim = v + len, *p = memmem(v, len, "size=", 5), *q;

	if (p)
		e->announced = (int64_t)dec(p + 5, lim, &q);
	p = memchr(v, '(', len);
	if (p) {
		uint64_t ms = dec(p + 1, lim, &q), us = 0;
		int digits = 0;

		if (q < lim && *q == '.')
			for (q++; q < lim && *q >= '0' && *q <= '9' && digits < 3; q++, digits++)
				us = us * 10 + (uint64_t)(*q - '0');
		while (digits++ < 3)
			us *= 10;
		e->server_us = ms * 1000 + us;
	}
}

void lc_record(struct lc_conn *c, struct lc_ex *e)
{
	struct lc_thread *t = c->t;
	uint64_t now = now_us(), lat = now > e->t0 ? now - e->t0 : 0;

	any_success = 1;
	t->done++;
	t->progress = t->done;
	if (now < t->record_from_us || now > t->end_us)
		return;
	if (lc_opts.verify && (e->bad || (e->announced >= 0 && e->status != 204 && e->status != 304 &&
				      strcmp(lc_opts.method, "HEAD") && (uint64_t)e->announced != e->bytes))) {
		t->errors[E_BODY]++;
		return;
	}
	t->reqs++;
	if (e->status < 600)
		t->status[e->status]++;
	hist_add(&t->lat, lat);
	if (e->server_us != UINT64_MAX) {
		hist_add(&t->srv, e->server_us);
		hist_add(&t->oth, lat > e->server_us ? lat - e->server_us : 0);
	}
}

void lc_error(struct lc_conn *c, enum lc_err kind)
{
	struct lc_thread *t = c->t;

	if (now_us() >= t->record_from_us)
		t->errors[kind]++;
	if ((kind == E_CONNECT || kind == E_TLS) && !any_success && !fatal_seen) {
		snprintf(fatal_msg, sizeof(fatal_msg), "hxload: %s failed to %s: %s", lc_err_names[kind],
			 lc_target.authority, kind == E_TLS ? "TLS handshake failed" : strerror(errno));
		fatal_seen = 1;
	}
}

/* ---------- connections ---------- */

static void conn_io(struct loop *l, struct ev *e, uint32_t events);

static int conn_open(struct lc_conn *c)
{
	if (lc_target.proto != LC_AUTO && protos[lc_target.proto]->open) {
		c->proto = lc_target.proto;
		c->ev = (struct ev){ -1, conn_io };
		c->rd_ready = c->wr_ready = c->rdhup = 0;
		c->inflight = 0;
		if (protos[c->proto]->open(c) < 0)
			return -1;
		c->ev.fd = c->x.fd;
		c->state = LS_READY;
		return 0;
	}
	{
	int fd = socket(lc_target.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&lc_target.addr, lc_target.alen) < 0 && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	c->ev = (struct ev){ fd, conn_io };
	c->x = (struct xprt){ fd, NULL, NULL };
	c->state = LS_CONNECTING;
	c->rd_ready = c->wr_ready = c->rdhup = 0;
	c->inflight = 0;
	c->proto = lc_target.proto == LC_AUTO ? LC_H1 : lc_target.proto;
	oq_reset(&c->oq);
	return loop_watch(&c->t->loop, &c->ev, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET);
	}
}

static void conn_close(struct lc_conn *c)
{
	if (c->proto_state && protos[c->proto]->free)
		protos[c->proto]->free(c);
	xprt_release(&c->x);
	if (c->x.fd >= 0)
		close(c->x.fd);
	c->x.fd = c->ev.fd = -1;
	c->state = 0;
}

/* a lost connection: a new one, later if the server refuses them */
static void conn_reset(struct lc_conn *c)
{
	conn_close(c);
	if (interrupted || c->t->loop.now_us >= c->t->end_us || fatal_seen)
		return;
	timer_arm(&c->t->loop.timers, &c->tm, c->t->loop.now_us + (any_success ? 1000 : 10000));
}

void lc_reset(struct lc_conn *c)
{
	conn_reset(c);
}

/* the server closes after a complete response, as it said it would: a new
 * connection at once, and the requests sent after that one go again */
static void conn_renew(struct lc_conn *c)
{
	c->t->budget += c->inflight;
	c->t->started -= c->inflight;
	conn_close(c);
	if (interrupted || c->t->loop.now_us >= c->t->end_us || fatal_seen)
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
	else if (r > 0)
		conn_renew(c);
}

static void conn_retry(struct loop *l, struct timer *tm)
{
	struct lc_conn *c = container_of(tm, struct lc_conn, tm);

	(void)l;
	if (!c->state && conn_open(c) < 0) {
		lc_error(c, E_CONNECT);
		conn_reset(c);
	}
}

/* the socket is connected: TLS or the protocol */
static int conn_ready(struct lc_conn *c)
{
	if (lc_target.tls && c->state != LS_TLS) {
		if (!(c->x.ssl = SSL_new(lc_tls)) || tls_bio_attach(c->x.ssl, c->x.fd))
			return -1;
		SSL_set_connect_state(c->x.ssl);
		SSL_set_tlsext_host_name(c->x.ssl, "localhost");
		c->state = LS_TLS;
	}
	if (c->state == LS_TLS) {
		int r = SSL_do_handshake(c->x.ssl);

		if (r != 1) {
			int e = SSL_get_error(c->x.ssl, r);

			if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
				return 0;
			lc_error(c, E_TLS);
			return -1;
		}
		if (lc_target.proto == LC_AUTO)
			c->proto = tls_alpn_is(c->x.ssl, "h2") ? LC_H2 : LC_H1;
		c->rd_ready = 1;
	}
	c->state = LS_READY;
	return protos[c->proto]->start(c);
}

static int conn_step(struct lc_conn *c)
{
	return protos[c->proto]->io(c);
}

static void conn_io(struct loop *l, struct ev *e, uint32_t events)
{
	struct lc_conn *c = container_of(e, struct lc_conn, ev);
	int r = 0;

	(void)l;
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		c->rd_ready = 1;
	if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		c->rdhup = 1;
	if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
		c->wr_ready = 1;
	if (c->state == LS_CONNECTING) {
		int err = 0;
		socklen_t el = sizeof(err);

		getsockopt(c->x.fd, SOL_SOCKET, SO_ERROR, &err, &el);
		if (err || (events & (EPOLLERR | EPOLLHUP))) {
			errno = err ? err : ECONNREFUSED;
			lc_error(c, E_CONNECT);
			conn_reset(c);
			return;
		}
		if (!c->wr_ready)
			return;
	}
	if (c->state != LS_READY && (r = conn_ready(c)) <= 0 && c->state != LS_READY) {
		if (r < 0)
			conn_reset(c);
		return;
	}
	conn_after(c, conn_step(c));
}

/* ---------- a thread ---------- */

static void dispatch(struct lc_thread *t)
{
	for (int i = 0; i < t->nconns && t->due_n; i++) {
		struct lc_conn *c = &t->conns[i];

		if (c->state == LS_READY && c->inflight < (uint32_t)lc_opts.depth)
			conn_after(c, conn_step(c));
	}
}

/* open loop: every intended send time is queued, whatever the server does */
static void due_tick(struct lc_thread *t)
{
	while (t->next_due_us <= t->loop.now_us && t->loop.now_us < t->end_us && t->due_n < t->budget) {
		if (t->due_n == t->due_cap) {
			uint32_t cap = t->due_cap * 2;
			uint64_t *d = malloc(cap * sizeof(*d));

			if (!d)
				break;
			for (uint32_t i = 0; i < t->due_n; i++)
				d[i] = t->due[(t->due_head + i) % t->due_cap];
			free(t->due);
			t->due = d;
			t->due_head = 0;
			t->due_cap = cap;
		}
		t->due[(t->due_head + t->due_n++) % t->due_cap] = t->next_due_us;
		t->next_due_us += (uint64_t)t->interval_us;
	}
	dispatch(t);
}

/* the oldest exchange of each connection against --timeout */
static void timeouts(struct lc_thread *t)
{
	for (int i = 0; i < t->nconns; i++) {
		struct lc_conn *c = &t->conns[i];
		uint64_t oldest = UINT64_MAX;

		if (c->state != LS_READY || !c->inflight)
			continue;
		for (int k = 0; k < lc_opts.depth; k++)
			if ((protos[c->proto]->fifo || c->ex[k].id >= 0) && c->ex[k].t0 && c->ex[k].t0 < oldest)
				oldest = c->ex[k].t0;
		if (protos[c->proto]->fifo)
			oldest = c->ex[c->ex_head].t0;
		if (oldest != UINT64_MAX && t->loop.now_us > oldest + lc_opts.timeout_us) {
			lc_error(c, E_TIMEOUT);
			conn_reset(c);
		}
	}
}

static int thread_busy(const struct lc_thread *t)
{
	for (int i = 0; i < t->nconns; i++)
		if (t->conns[i].inflight)
			return 1;
	return t->due_n > 0;
}

void *lc_thread_main(void *arg)
{
	struct lc_thread *t = arg;
	uint64_t next_tick = 0;

	for (int i = 0; i < t->nconns; i++)
		conn_retry(&t->loop, &t->conns[i].tm);
	while (!interrupted && !fatal_seen) {
		uint64_t next = next_tick;

		if (t->o->rate > 0)
			next = MIN(next, t->next_due_us);
		loop_turn(&t->loop, next > t->loop.now_us ? MIN(next - t->loop.now_us, (uint64_t)TICK_US) : 0);
		if (t->o->rate > 0)
			due_tick(t);
		if (t->loop.now_us >= next_tick) {
			timeouts(t);
			next_tick = t->loop.now_us + TICK_US;
		}
		if (t->loop.now_us >= t->end_us || (!t->budget && !thread_busy(t)))
			break;
	}
	for (int i = 0; i < t->nconns; i++) {
		timer_cancel(&t->loop.timers, &t->conns[i].tm);
		if (t->conns[i].state)
			conn_close(&t->conns[i]);
	}
	return NULL;
}

void lc_thread_init(struct lc_thread *t, int id, uint64_t start)
{
	t->id = id;
	t->o = &lc_opts;
	t->tg = &lc_target;
	if (loop_init(&t->loop) < 0)
		lc_die("%s", "cannot create an epoll set");
	t->loop.now_us = start;
	t->start_us = start;
	t->record_from_us = start + lc_opts.warmup_us;
	t->end_us = start + lc_opts.warmup_us + lc_opts.duration_us;
	t->nconns = lc_opts.conns / lc_opts.threads + (id < lc_opts.conns % lc_opts.threads);
	t->budget = lc_opts.total ? lc_opts.total / (uint64_t)lc_opts.threads +
				 ((uint64_t)id < lc_opts.total % (uint64_t)lc_opts.threads) : UINT64_MAX;
	if (lc_opts.rate > 0) {
		t->interval_us = 1e6 * lc_opts.threads / lc_opts.rate;
		t->next_due_us = start + (uint64_t)(t->interval_us * id / lc_opts.threads);
		t->due_cap = 1024;
		t->due = malloc(t->due_cap * sizeof(*t->due));
	}
	t->conns = calloc((size_t)t->nconns, sizeof(*t->conns));
	for (int i = 0; i < t->nconns; i++) {
		struct lc_conn *c = &t->conns[i];

		c->t = t;
		c->tg = &lc_target;
		c->idx = i;
		c->x.fd = c->ev.fd = -1;
		c->tm = (struct timer){ 0, 0, conn_retry };
		c->ex = calloc((size_t)lc_opts.depth, sizeof(*c->ex));
		c->in_size = 65536;
		c->in = malloc(c->in_size);
		oq_alloc(&c->oq, 65536);
	}
}

void lc_thread_free(struct lc_thread *t)
{
	for (int i = 0; i < t->nconns; i++) {
		free(t->conns[i].ex);
		free(t->conns[i].in);
		oq_free(&t->conns[i].oq);
	}
	free(t->conns);
	free(t->due);
	loop_free(&t->loop);
}

void lc_progress(struct lc_thread *ts, uint64_t start)
{
	uint64_t last = 0, now, done;

	while (!interrupted) {
		int alive = 0;

		usleep(1000000);
		done = 0;
		for (int i = 0; i < lc_opts.threads; i++) {
			done += ts[i].progress;
			alive += !pthread_tryjoin_np(ts[i].th, NULL) ? 0 : 1;
		}
		now = now_us();
		if (!alive || fatal_seen)
			return;
		fprintf(stderr, "\r  %5.1f s  %10.0f req/s  ", (now - start) / 1e6, (double)(done - last));
		last = done;
	}
}


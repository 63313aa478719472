/* hxload's run: each thread's loop, its connections from connect to close, the open-loop schedule, what is recorded. */
#include <errno.h>
#include <fcntl.h>
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

#include "body.h"
#include "clock.h"
#include "common.h"
#include "lc.h"
#include "lc_tls.h"
#include "pp.h"
#include "qh3mem.h"
#include "timer.h"
#include "tls.h"

#define TICK_US 100000 /* housekeeping: timeouts, intervals, the end */

/* the client protocols, by enum lc_proto (LC_AUTO: chosen by ALPN) */
static const struct lc_protocol *const protos[] = { [LC_H1] = &lc_h1, [LC_H2] = &lc_h2, [LC_H3] = &lc_h3,
						     [LC_WS] = &lc_ws };

static atomic_int interrupted;
static atomic_int fatal_seen;        /* nothing can work: a connection never made, a mismatch */
static char fatal_msg[1024];
static atomic_int any_success;
static atomic_int silent_closes;      /* cleartext connections closed before a byte came */
static pthread_mutex_t fatal_lock = PTHREAD_MUTEX_INITIALIZER;

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

int lc_interrupted(void)
{
	return interrupted;
}

const char *lc_fatal(void)
{
	return fatal_seen ? fatal_msg : NULL;
}

void lc_fatal_set(const char *msg)
{
	pthread_mutex_lock(&fatal_lock);
	if (!fatal_seen) {
		snprintf(fatal_msg, sizeof(fatal_msg), "hxload: %s", msg);
		fatal_seen = 1;
	}
	pthread_mutex_unlock(&fatal_lock);
}

static uint64_t now_us(void)
{
	return (uint64_t)clock_ns() / 1000;
}

static int open_loop(const struct lc_thread *t)
{
	return t->o->nstages > 0;
}

static int in_window(const struct lc_thread *t, uint64_t at)
{
	return at >= t->record_from_us && at < t->end_us;
}

/* ---------- what the protocol modules call ---------- */

int lc_take(struct lc_conn *c, struct lc_ex *e)
{
	struct lc_thread *t = c->t;
	uint64_t due, now;

	if (interrupted || t->closed_us || t->loop.now_us >= t->end_us || !t->budget ||
	    (t->o->close && c->taken))
		return 0;
	now = now_us();
	if (open_loop(t)) {
		if (!t->due_n)
			return 0;
		due = t->due[t->due_head];
		t->due_head = (t->due_head + 1) % t->due_cap;
		t->due_n--;
	} else {
		due = now;
	}
	t->budget--;
	t->started++;
	t->fresh -= !c->taken++;
	*e = (struct lc_ex){ .t0 = due, .sent_us = now, .server_us = UINT64_MAX, .announced = -1,
			     .path = lc_path_pick(t), .counted = in_window(t, due) };
	if (e->counted) {
		t->st.sent++;
		t->st.late += open_loop(t) && now > due + LC_LATE_US;
	}
	return 1;
}

void lc_head(struct lc_conn *c, struct lc_ex *e, unsigned status)
{
	e->status = (uint16_t)status;
	/* WHY the loop's clock (read when the turn's events came, the same
	 * clock as lc_record's): one clock read less per response; at least
	 * the send, so that ttfb + body still span exactly the latency */
	if (!e->head_us)
		e->head_us = MAX(c->t->loop.now_us, e->sent_us);
}

void lc_verify(struct lc_ex *e, const char *p, size_t n)
{
	if (lc_opts.verify && !e->bad && !e->random) {
		for (size_t i = 0; i < n; i++)
			if (p[i] != body_line[(e->bytes + i) % BODY_LINE]) {
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

void lc_ignored(struct lc_thread *t, const char *v, size_t len)
{
	if (!t->ignored[0])
		snprintf(t->ignored, sizeof(t->ignored), "%.*s", (int)MIN(len, sizeof(t->ignored) - 1), v);
}

/* X-rsp: ... size=<n>, time=<w> ms (<ms>.<us> real)[, pace=<ms> ms]: by
 * hand, it runs per response */
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
		/* WHY here, not a search: pace= follows " real)" when it is there */
		if (lim - q >= 13 && !memcmp(q, " real), pace=", 13))
			e->pace_us = dec(q + 13, lim, &q) * 1000;
	}
}

/* ---------- --log ---------- */

static int log_fd = -1;
static int64_t epoch_off_us;         /* realtime - monotonic */

static void log_flush(struct lc_thread *t)
{
	if (t->loglen && write(log_fd, t->logbuf, t->loglen) < 0)
		lc_fatal_set("--log: cannot write");
	t->loglen = 0;
}

static void log_line(struct lc_thread *t, const struct lc_ex *e, uint64_t lat)
{
	char srv[24] = "-";

	if (t->loglen > 65536 - 128)
		log_flush(t);
	if (e->server_us != UINT64_MAX)
		snprintf(srv, sizeof(srv), "%llu", (unsigned long long)e->server_us);
	t->loglen += (size_t)snprintf(t->logbuf + t->loglen, 128, "%lld %llu %u %s\n",
				      (long long)((int64_t)e->t0 + epoch_off_us), (unsigned long long)lat,
				      e->status, srv);
}

int lc_log_open(const char *file)
{
	struct timespec rt;

	clock_gettime(CLOCK_REALTIME, &rt);
	epoch_off_us = (int64_t)rt.tv_sec * 1000000 + rt.tv_nsec / 1000 - (int64_t)now_us();
	log_fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	return log_fd < 0 ? -1 : 0;
}

/* the parts of an answered exchange's time, in us: what the README's
 * table of rows says, and what add up: latency = queue + ttfb + body,
 * ttfb = server + other, body = paced + body_other */
static void put(struct lc_stats *st, struct hist *iv, enum lc_hist k, uint64_t v)
{
	hist_add(&st->h[k], v);
	for (int i = 0; iv && i < IV_MAX; i++)
		if (lc_iv_hist[i] == (int)k)
			hist_add(&iv[i], v);
}

/* ... into the run's histograms and, with --json or --interval, the
 * interval's <iv> */
static void record_times(struct lc_stats *st, struct hist *iv, const struct lc_ex *e, uint64_t now, uint64_t lat,
			 int open)
{
	uint64_t head = e->head_us ? e->head_us : now;
	uint64_t ttfb = head - e->sent_us, body = now > head ? now - head : 0;
	uint64_t paced = MIN(e->pace_us, body);

	put(st, iv, H_LAT, lat);
	if (open)
		put(st, iv, H_QUEUE, e->sent_us - MIN(e->t0, e->sent_us));
	put(st, iv, H_TTFB, ttfb);
	put(st, iv, H_BODY, body);
	put(st, iv, H_PACED, paced);
	put(st, iv, H_BOTH, body - paced);
	if (e->server_us != UINT64_MAX) {
		put(st, iv, H_SRV, e->server_us);
		put(st, iv, H_OTH, ttfb > e->server_us ? ttfb - e->server_us : 0);
	}
}

void lc_record(struct lc_conn *c, struct lc_ex *e)
{
	struct lc_thread *t = c->t;
	struct lc_stats *st = &t->st;
	uint64_t now = MAX(now_us(), e->sent_us), lat = now > e->t0 ? now - e->t0 : 0;

	any_success = 1;
	t->done++;
	t->progress = t->done;
	if (!e->counted)
		return;
	if (lc_opts.verify && (e->bad || (e->announced >= 0 && e->status != 204 && e->status != 304 &&
				      strcmp(lc_opts.method, "HEAD") && (uint64_t)e->announced != e->bytes))) {
		st->errors[E_BODY]++;
		st->failed++;
		return;
	}
	st->reqs++;
	/* WHY here: the bytes of the requests the run reports, body bytes
	 * alone; a warm-up's or a failed one's are not its figures */
	st->bytes += e->bytes;
	st->verified += lc_opts.verify && !e->random;
	st->verified_bytes += lc_opts.verify && !e->random ? e->bytes : 0;
	if (e->status >= 100 && e->status < LC_STATUS_MAX)
		st->status[e->status]++;
	st->non2xx += e->status < 200 || e->status > 299;
	st->end_answered += t->closed_us != 0;
	record_times(st, t->o->series_us ? t->ival.h : NULL, e, now, lat, open_loop(t));
	t->ival.reqs += t->o->series_us != 0;
	if (log_fd >= 0)
		log_line(t, e, lat);
}

/* WHY one error per lost request: a reset that takes 8 streams is 8
 * failed requests and 8 errors, so errors by kind add up to failed +
 * unanswered + the connections that failed before any request */
void lc_lost(struct lc_conn *c, struct lc_ex *e)
{
	struct lc_stats *st = &c->t->st;

	if (!e->counted)
		return;
	if (c->t->closed_us)
		st->end_timeout++;
	else
		st->failed++;
	st->errors[c->err_kind]++;
}

void lc_fail(struct lc_conn *c, struct lc_ex *e, enum lc_err kind)
{
	uint8_t was = c->err_kind;

	c->err_kind = (uint8_t)kind;
	lc_lost(c, e);
	c->err_kind = was;
}

void lc_error(struct lc_conn *c, enum lc_err kind)
{
	struct lc_thread *t = c->t;

	/* WHY by what it takes: with requests in flight, each one lost counts
	 * (lc_lost); without, the connection itself failed */
	c->err_kind = (uint8_t)kind;
	if (!c->inflight && now_us() >= t->record_from_us && !t->closed_us) {
		t->st.errors[kind]++;
		t->st.conn_errors++;
	}
	if (kind == E_RESET && c->x.ssl && !any_success && lc_tls_alert(c->x.ssl)) {
		char msg[600];

		snprintf(msg, sizeof(msg), "the server at %s ended the TLS session: alert %s%s", lc_target.where,
			 lc_tls_alert(c->x.ssl), lc_opts.cert ? "" : " (does it want a client certificate? --cert)");
		lc_fatal_set(msg);
	}
	if (kind == E_RESET && !c->got_bytes && !c->x.ssl && !any_success &&
	    atomic_fetch_add(&silent_closes, 1) == 2) {
		char msg[600];

		snprintf(msg, sizeof(msg), "the server at %s closed the connection without a byte, 3 times "
			 "(a TLS port? use https://%s)", lc_target.where,
			 lc_opts.proxy_proto ? "" : "; one that wants a PROXY header? --proxy-protocol");
		lc_fatal_set(msg);
	}
	if ((kind == E_CONNECT || kind == E_TLS) && !any_success && !fatal_seen) {
		char why[300];

		if (kind == E_TLS && c->x.ssl)
			lc_tls_why(c->x.ssl, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "%s", kind == E_TLS ? "TLS handshake failed" : strerror(errno));
		char msg[900];

		snprintf(msg, sizeof(msg), "%s failed to %s: %s", lc_err_names[kind], lc_target.where, why);
		lc_fatal_set(msg);
	}
}

/* the first bytes a cleartext connection got: one line when the server
 * speaks something else; -1 then */
int lc_first_bytes(struct lc_conn *c, const char *p, size_t n)
{
	char msg[600];

	if (c->got_bytes || c->x.ssl || !n)
		return 0;
	c->got_bytes = 1;
	if (n >= 2 && (p[0] == 0x15 || p[0] == 0x16) && p[1] == 0x03)
		snprintf(msg, sizeof(msg), "the server at %s answered TLS on a cleartext URL (use https://)",
			 lc_target.where);
	else if (c->proto == LC_H2 && n >= 5 && !memcmp(p, "HTTP/", 5))
		snprintf(msg, sizeof(msg), "the server at %s answered HTTP/1 to the HTTP/2 preface: "
			 "it does not speak h2c (use http://)", lc_target.where);
	else
		return 0;
	if (!any_success) {
		lc_fatal_set(msg);
		return -1;
	}
	return 0;
}

/* ---------- connections ---------- */

static void conn_io(struct loop *l, struct ev *e, uint32_t events);

/* the connection's protocol is settled: counted */
static void conn_count(struct lc_conn *c)
{
	struct lc_thread *t = c->t;

	c->up = 1;
	if (!in_window(t, t->loop.now_us))
		return;
	c->up = 2; /* WHY 2: counted, so its requests per connection are too */
	t->st.conns++;
	t->st.by_proto[c->proto]++;
}

void lc_conn_up(struct lc_conn *c, int resumed)
{
	struct lc_thread *t = c->t;
	uint64_t from = c->up_us ? c->up_us : c->open_us;

	if (in_window(t, t->loop.now_us)) {
		hist_add(&t->st.h[H_TLS], t->loop.now_us - from);
		t->st.resumed += resumed != 0;
	}
	if (c->proto == LC_H3)
		conn_count(c);
}

static void conn_fresh(struct lc_conn *c)
{
	c->rd_ready = c->wr_ready = c->rdhup = c->got_bytes = c->up = c->goaway = 0;
	c->err_kind = E_RESET;
	c->inflight = c->taken = 0;
	c->up_us = 0;
	c->open_us = c->t->loop.now_us = now_us();
	c->t->fresh++;
	for (int i = 0; i < c->t->o->depth; i++)
		c->ex[i].id = -1;
}

static int conn_open(struct lc_conn *c)
{
	int fd, one = 1;

	conn_fresh(c);
	if (lc_target.proto != LC_AUTO && protos[lc_target.proto]->open) {
		c->proto = lc_target.proto;
		c->ev = (struct ev){ -1, conn_io };
		if (protos[c->proto]->open(c) < 0)
			return -1;
		c->ev.fd = c->x.fd;
		c->state = LS_READY;
		return 0;
	}
	/* WHY first: a failed open is reset, which walks the exchanges by the
	 * protocol's rules; with none set, that walk read a NULL table row */
	c->proto = lc_target.proto == LC_AUTO ? LC_H1 : lc_target.proto;
	fd = socket(lc_target.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (lc_target.addr.ss_family != AF_UNIX)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&lc_target.addr, lc_target.alen) < 0 && errno != EINPROGRESS) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	c->ev = (struct ev){ fd, conn_io };
	c->x = (struct xprt){ fd, NULL, NULL };
	c->state = LS_CONNECTING;
	oq_reset(&c->oq);
	return loop_watch(&c->t->loop, &c->ev, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET);
}

/* each exchange in flight on <c> */
static void each_inflight(struct lc_conn *c, void (*fn)(struct lc_conn *, struct lc_ex *))
{
	uint32_t depth = (uint32_t)c->t->o->depth;

	if (protos[c->proto]->fifo) {
		for (uint32_t k = 0; k < c->inflight; k++)
			fn(c, &c->ex[(c->ex_head + k) % depth]);
		return;
	}
	for (uint32_t k = 0; k < depth; k++)
		if (c->ex[k].id >= 0)
			fn(c, &c->ex[k]);
}

/* the exchange goes again on the next connection: not sent after all */
static void requeue(struct lc_conn *c, struct lc_ex *e)
{
	struct lc_thread *t = c->t;

	t->budget++;
	t->started--;
	if (e->counted)
		t->st.sent--;
	if (open_loop(t) && t->due_n < t->due_cap) {
		/* WHY at the head: it was due before every queued one */
		t->due_head = (t->due_head + t->due_cap - 1) % t->due_cap;
		t->due[t->due_head] = e->t0;
		t->due_n++;
		if (e->counted && e->sent_us > e->t0 + LC_LATE_US)
			t->st.late--;
	}
}

void lc_retry(struct lc_conn *c, struct lc_ex *e)
{
	if (e->counted && !c->t->closed_us)
		c->t->st.retried++;
	requeue(c, e);
}

static void conn_close(struct lc_conn *c)
{
	struct lc_thread *t = c->t;

	if (c->up == 2)
		hist_add(&t->st.h[H_RPC], c->taken);
	t->fresh -= !c->taken;
	c->taken = 1; /* WHY: counted out of <fresh> once */
	if (c->proto_state && protos[c->proto]->free)
		protos[c->proto]->free(c);
	/* WHY: OpenSSL marks the session of a connection freed without a
	 * shutdown as not resumable, and that is the one to resume */
	if (c->x.ssl)
		SSL_set_shutdown(c->x.ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
	xprt_release(&c->x);
	if (c->x.fd >= 0)
		close(c->x.fd);
	c->x.fd = c->ev.fd = -1;
	c->state = 0;
	c->inflight = 0;
	for (int i = 0; i < t->o->depth; i++)
		c->ex[i].id = -1;
}

static int run_over(const struct lc_thread *t)
{
	return interrupted || fatal_seen || t->closed_us;
}

/* a lost connection: its exchanges failed; a new one, later if the server refuses them */
static void conn_reset(struct lc_conn *c)
{
	each_inflight(c, lc_lost);
	conn_close(c);
	if (run_over(c->t))
		return;
	timer_arm(&c->t->loop.timers, &c->tm, c->t->loop.now_us + (any_success ? 1000 : 10000));
}

void lc_reset(struct lc_conn *c)
{
	conn_reset(c);
}

/* the server closes after a complete response, as it said it would (or
 * --close): a new connection at once, the requests sent after that one go again */
static void conn_renew(struct lc_conn *c)
{
	each_inflight(c, requeue);
	conn_close(c);
	/* WHY budget against fresh: --close opens no connection that no
	 * request is left for (it has no pipelined requests to give back, so
	 * a fresh one never waits idle for them) */
	if (run_over(c->t) || !c->t->budget || (c->t->o->close && c->t->budget <= c->t->fresh))
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
	else if (r > 0 || (c->t->o->close && c->taken && !c->inflight && c->state == LS_READY &&
			   !(protos[c->proto]->linger && protos[c->proto]->linger(c))))
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

/* --h2 on https:// and the server chose something else */
static int alpn_check(struct lc_conn *c)
{
	char msg[600];

	if (lc_target.proto != LC_H2 || tls_alpn_is(c->x.ssl, "h2"))
		return 0;
	snprintf(msg, sizeof(msg), "the server at %s chose no ALPN h2 (%s): drop --h2", lc_target.where,
		 tls_alpn_is(c->x.ssl, "http/1.1") ? "it chose http/1.1" : "it chose none");
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

	getsockname(c->x.fd, (struct sockaddr *)&src, &sl);
	getpeername(c->x.fd, (struct sockaddr *)&dst, &dl);
	n = pp_write(h, lc_opts.proxy_proto, (struct sockaddr *)&src, (struct sockaddr *)&dst);
	/* WHY no retry: a fresh socket's send buffer takes 52 bytes whole */
	if (send(c->x.fd, h, n, MSG_NOSIGNAL) != (ssize_t)n) {
		lc_error(c, E_CONNECT);
		return -1;
	}
	return 0;
}

/* the socket is connected: the PROXY header, TLS, then the protocol */
static int conn_ready(struct lc_conn *c)
{
	if (c->state == LS_CONNECTING && lc_opts.proxy_proto && proxy_send(c) < 0)
		return -1;
	if (lc_target.tls && c->state != LS_TLS) {
		if (!(c->x.ssl = lc_tls_new(c)))
			return -1;
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
		lc_conn_up(c, SSL_session_reused(c->x.ssl));
		if (alpn_check(c) < 0)
			return -1;
		if (lc_target.proto == LC_AUTO)
			c->proto = tls_alpn_is(c->x.ssl, "h2") ? LC_H2 : LC_H1;
		c->rd_ready = 1;
	}
	c->state = LS_READY;
	conn_count(c);
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
		c->up_us = c->t->loop.now_us;
		if (in_window(c->t, c->up_us))
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

/* ---------- a thread ---------- */

static void dispatch(struct lc_thread *t)
{
	for (int i = 0; i < t->nconns && t->due_n; i++) {
		struct lc_conn *c = &t->conns[i];

		if (c->state == LS_READY && c->inflight < (uint32_t)lc_opts.depth)
			conn_after(c, conn_step(c));
	}
}

static int due_grow(struct lc_thread *t)
{
	uint32_t cap = t->due_cap * 2;
	uint64_t *d = malloc(cap * sizeof(*d));

	if (!d)
		return -1;
	for (uint32_t i = 0; i < t->due_n; i++)
		d[i] = t->due[(t->due_head + i) % t->due_cap];
	free(t->due);
	t->due = d;
	t->due_head = 0;
	t->due_cap = cap;
	return 0;
}

/* the next send time of this thread's share of the schedule */
static void due_next(struct lc_thread *t)
{
	uint64_t rel = lc_due_at(t->o, (double)t->due_k * t->o->threads + t->id);

	t->next_due_us = rel == UINT64_MAX ? UINT64_MAX : t->start_us + rel;
	t->due_k++;
}

/* open loop: every intended send time is queued, whatever the server does */
static void due_tick(struct lc_thread *t)
{
	while (t->next_due_us <= t->loop.now_us && t->next_due_us < t->end_us && t->due_n < t->budget) {
		if (t->due_n == t->due_cap - 1 && due_grow(t) < 0)
			break;
		t->due[(t->due_head + t->due_n++) % t->due_cap] = t->next_due_us;
		t->st.scheduled += in_window(t, t->next_due_us);
		due_next(t);
	}
	dispatch(t);
}

static void count_inflight(struct lc_conn *c, struct lc_ex *e)
{
	c->t->st.inflight_end += e->counted;
}

static void end_timeout(struct lc_conn *c, struct lc_ex *e)
{
	if (e->counted) {
		c->t->st.end_timeout++;
		c->t->st.errors[E_TIMEOUT]++;
	}
}

static int inflight_any(const struct lc_thread *t)
{
	for (int i = 0; i < t->nconns; i++)
		if (t->conns[i].inflight)
			return 1;
	return 0;
}

/* the window closes: what is in flight is counted, and waited for */
static void window_close(struct lc_thread *t)
{
	t->closed_us = MAX(t->loop.now_us, t->record_from_us + 1);
	if (t->closed_us > t->end_us)
		t->closed_us = t->end_us;
	for (int i = 0; i < t->nconns; i++)
		if (t->conns[i].state == LS_READY)
			each_inflight(&t->conns[i], count_inflight);
}

/* the oldest exchange of each connection against --timeout */
static void timeouts(struct lc_thread *t)
{
	for (int i = 0; i < t->nconns; i++) {
		struct lc_conn *c = &t->conns[i];
		uint64_t oldest = UINT64_MAX;

		if (c->state != LS_READY || !c->inflight)
			continue;
		if (protos[c->proto]->fifo)
			oldest = c->ex[c->ex_head].sent_us;
		else
			for (int k = 0; k < lc_opts.depth; k++)
				if (c->ex[k].id >= 0 && c->ex[k].sent_us < oldest)
					oldest = c->ex[k].sent_us;
		if (oldest != UINT64_MAX && t->loop.now_us > oldest + lc_opts.timeout_us) {
			/* WHY: the loop can see both late; a deadline after the window's end is in flight at it */
			if (!t->closed_us && oldest + lc_opts.timeout_us >= t->end_us)
				window_close(t);
			lc_error(c, E_TIMEOUT);
			conn_reset(c);
		}
	}
}

static void ival_reset(struct lc_thread *t, uint64_t now)
{
	memset(t->ival.h, 0, sizeof(t->ival.h));
	t->ival.from_us = now;
	t->ival.reqs = 0;
	t->ival_errs = lc_stats_errors(&t->st);
	t->ival_bytes = t->st.bytes;
}

/* --interval: the interval ends; the main thread reads it from the ring */
static void ival_publish(struct lc_thread *t, uint64_t now)
{
	uint32_t k = atomic_load_explicit(&t->ival_pub, memory_order_relaxed);

	if (k - atomic_load_explicit(&t->ival_read, memory_order_acquire) >= LC_IVAL_RING)
		return; /* WHY: the reader is behind; this interval grows until it catches up */
	t->ival.to_us = now;
	t->ival.errors = lc_stats_errors(&t->st) - t->ival_errs;
	t->ival.bytes = t->st.bytes - t->ival_bytes;
	t->ring[k % LC_IVAL_RING] = t->ival;
	atomic_store_explicit(&t->ival_pub, k + 1, memory_order_release);
	ival_reset(t, now);
}

static void ival_tick(struct lc_thread *t)
{
	uint64_t now = t->loop.now_us;

	if (!t->o->series_us || now < t->record_from_us)
		return;
	if (!t->ival.from_us) {
		ival_reset(t, t->record_from_us);
		t->next_ival_us = t->record_from_us + t->o->series_us;
	}
	if (now >= t->next_ival_us) {
		ival_publish(t, MIN(now, t->end_us));
		while (t->next_ival_us <= now)
			t->next_ival_us += t->o->series_us;
	}
}

/* the loop's wait: to the next send, tick or interval */
static uint64_t next_wake(const struct lc_thread *t, uint64_t next_tick)
{
	uint64_t next = next_tick, now = t->loop.now_us;

	if (open_loop(t) && !t->closed_us)
		next = MIN(next, t->next_due_us);
	if (t->o->series_us && t->next_ival_us)
		next = MIN(next, t->next_ival_us);
	if (!t->closed_us)
		next = MIN(next, t->end_us);
	return next > now ? MIN(next - now, (uint64_t)TICK_US) : 0;
}

void *lc_thread_main(void *arg)
{
	struct lc_thread *t = arg;
	uint64_t next_tick = 0;

	for (int i = 0; i < t->nconns; i++)
		conn_retry(&t->loop, &t->conns[i].tm);
	while (!fatal_seen) {
		loop_turn(&t->loop, next_wake(t, next_tick));
		if (open_loop(t) && !t->closed_us)
			due_tick(t);
		if (t->loop.now_us >= next_tick) {
			timeouts(t);
			next_tick = t->loop.now_us + TICK_US;
		}
		ival_tick(t);
		if (!t->closed_us && (interrupted || t->loop.now_us >= t->end_us ||
				      (!t->budget && !inflight_any(t) && !t->due_n)))
			window_close(t);
		if (t->closed_us && (interrupted || !inflight_any(t) ||
				     t->loop.now_us >= t->closed_us + lc_opts.timeout_us))
			break;
	}
	for (int i = 0; i < t->nconns; i++) {
		timer_cancel(&t->loop.timers, &t->conns[i].tm);
		if (t->conns[i].state == LS_READY)
			each_inflight(&t->conns[i], end_timeout);
		if (t->conns[i].state)
			conn_close(&t->conns[i]);
	}
	qh3mem_drain(); /* WHY here: its connections are gone, and the pools are this thread's */
	if (t->o->series_us && t->ival.from_us && (t->ival.reqs || MIN(t->loop.now_us, t->end_us) > t->ival.from_us))
		ival_publish(t, t->ival.reqs ? MAX(t->loop.now_us, t->ival.from_us + 1) : MIN(t->loop.now_us, t->end_us));
	if (log_fd >= 0)
		log_flush(t);
	atomic_store_explicit(&t->ended, 1, memory_order_release);
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
	rng_seed(&t->rng, start + (uint64_t)id * 0x9e3779b97f4a7c15ULL);
	if (open_loop(t)) {
		t->due_cap = 1024;
		if (!(t->due = malloc(t->due_cap * sizeof(*t->due))))
			lc_die("%s", "out of memory");
		due_next(t);
	}
	if (log_fd >= 0 && !(t->logbuf = malloc(65536)))
		lc_die("%s", "out of memory");
	if (!(t->conns = calloc((size_t)t->nconns, sizeof(*t->conns))))
		lc_die("%s", "out of memory");
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
		if (!c->ex || !c->in || oq_alloc(&c->oq, 65536) < 0)
			lc_die("%s", "out of memory");
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
	free(t->logbuf);
	free(t->qbuf);
	while (t->nsess)
		SSL_SESSION_free(t->sess[--t->nsess]);
	while (t->nqtick)
		free(t->qtick[--t->nqtick]);
	loop_free(&t->loop);
}

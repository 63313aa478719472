/* What hxload records as a protocol's exchanges go: the start of each, its head, body check and X-rsp, its times, its loss; --log. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "body.h"
#include "common.h"
#include "lc_conn.h"
#include "lc_fate.h"
#include "lc_record.h"
#include "lc_sched.h"
#include "lc_thread.h"
#include "lc_hits.h"
#include "lc_source.h"
#include "lc_tls.h"
#include "rng.h"

/* a path for a new request, by the --urls weights */
static uint16_t path_pick(struct lc_thread *t)
{
	const struct lc_target *tg = lc_tg;
	double u;
	int lo = 0, hi = tg->npaths - 1;

	if (tg->npaths == 1)
		return 0;
	u = rng_unit(&t->rng);
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (tg->paths[mid].cum > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return (uint16_t)lo;
}

/* WHY here, set by each thread as it starts: the body's bytes come without
 * their thread, and its figures are what the readers count into */
__thread struct lc_thread *lc_self;

int lc_take(struct lc_conn *c, struct lc_ex *e)
{
	struct lc_thread *t = c->t;
	uint64_t due, now;

	/* WHY not the clock past the end in an open loop: a send time queued
	 * was before it (lc_due_fill), and the turn that reached it may end
	 * after it: refused, it was counted scheduled and never sent
	 * (45-hxload-shard: 1 of 1,200 unsent, once in a while); the window's
	 * close, that same turn, stops the rest */
	if (lc_interrupted() || t->closed_us || (!lc_open_loop() && t->loop.now_us >= t->end_us) || !t->budget ||
	    (lc_o->close && c->taken))
		return 0;
	now = lc_clock(t);
	if (!lc_open_loop())
		due = now;
	else if (!lc_due_take(t, &due))
		return 0;
	t->budget--;
	t->started++;
	t->fresh -= !c->taken++;
	if (unlikely(lc_rd->drop != NULL))
		lc_rd->drop(e);
	*e = (struct lc_ex){ .t0 = due, .sent_us = now, .server_us = UINT64_MAX, .announced = -1,
			     .path = path_pick(t), .counted = lc_in_window(t, due) };
	if (unlikely(lc_rd->init != NULL))
		lc_rd->init(e);
	if (e->counted) {
		t->st.sent++;
		/* WHY the open: --handshakes opens a connection when its request
		 * is due, and the handshake before the send is no lateness */
		t->st.late += lc_open_loop() && (lc_o->hs ? c->open_us : now) > due + LC_LATE_US;
	}
	return 1;
}

static int expected(unsigned status)
{
	if (lc_o->expect)
		return status < LC_STATUS_MAX && lc_o->expect_set[status];
	return status >= 200 && status <= 299;
}

void lc_head(struct lc_conn *c, struct lc_ex *e, unsigned status)
{
	e->status = (uint16_t)status;
	if (lc_o->hs)
		lc_hs_head(c);
	/* WHY the thread's first only: the report quotes one answer, and the
	 * hot path pays one test per response, no copy */
	if (unlikely(!c->t->why.status && e->counted && !expected(status))) {
		struct lc_why *w = &c->t->why;

		w->status = (uint16_t)status;
		snprintf(w->line, sizeof(w->line), "%s %u", c->nc.proto == LC_H2 ? "HTTP/2" : c->nc.proto == LC_H3 ? "HTTP/3" :
			 "HTTP/1.1", status);
		e->why = w;
	}
	/* WHY the loop's clock (read when the turn's events came, the same
	 * clock as lc_record's): one clock read less per response; at least
	 * the send, so that ttfb + body still span exactly the latency */
	if (!e->head_us)
		e->head_us = MAX(c->t->loop.now_us, e->sent_us);
}

void lc_status_line(struct lc_ex *e, const char *p, size_t n)
{
	size_t len = 0;

	if (likely(!e->why))
		return;
	while (len < n && len < sizeof(e->why->line) - 1 && p[len] != '\r' && p[len] != '\n')
		len++;
	memcpy(e->why->line, p, len);
	e->why->line[len] = 0;
}

/* the first LC_WHY_BODY bytes of an unexpected answer's body */
static void why_feed(struct lc_ex *e, const char *p, size_t n)
{
	struct lc_why *w = e->why;
	size_t take = MIN(n, (size_t)(LC_WHY_BODY - w->len));

	memcpy(w->body + w->len, p, take);
	w->len = (uint16_t)(w->len + take);
	if (w->len == LC_WHY_BODY)
		e->why = NULL;
}

void lc_verify(struct lc_ex *e, const char *p, size_t n)
{
	if (unlikely(e->why != NULL))
		why_feed(e, p, n);
	if (lc_rd->feed)
		lc_rd->feed(e, &lc_self->st, p, n);
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

/* "size=" in <v>, or NULL. WHY not memmem: glibc's cost 248 instructions a
 * response (callgrind, h3), the first 's' of hxterm's X-rsp is the one */
static const char *size_key(const char *v, const char *lim)
{
	for (const char *p = v; (p = memchr(p, 's', (size_t)(lim - p))); p++)
		if (lim - p >= 5 && !memcmp(p, "size=", 5))
			return p;
	return NULL;
}

/* X-rsp: ... size=<n>, time=<w> ms (<ms>.<us> real)[, pace=<ms> ms]: by
 * hand, it runs per response */
void lc_xrsp(struct lc_ex *e, const char *v, size_t len)
{
	const char *lim = v + len, *p = size_key(v, lim), *q;

	if (p)
		e->announced = (int64_t)dec(p + 5, lim, &q);
	/* WHY hxterm's order looked for first: ", time=<w> ms (" follows the
	 * size, and a memchr from the start was 50 of 215 instructions */
	if (p && lim - q > 7 && !memcmp(q, ", time=", 7) && (dec(q + 7, lim, &q), lim - q > 5) &&
	    !memcmp(q, " ms (", 5))
		p = q + 4;
	else
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

void lc_log_flush(struct lc_thread *t)
{
	if (t->loglen && write(log_fd, t->logbuf, t->loglen) < 0)
		lc_fatal_set("--log: cannot write");
	t->loglen = 0;
}

static void log_line(struct lc_thread *t, const struct lc_ex *e, uint64_t lat)
{
	char srv[24] = "-";

	if (t->loglen > 65536 - 128)
		lc_log_flush(t);
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
	epoch_off_us = (int64_t)rt.tv_sec * 1000000 + rt.tv_nsec / 1000 - (int64_t)lc_now_us();
	log_fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	return log_fd < 0 ? -1 : 0;
}

int lc_log_on(void)
{
	return log_fd >= 0;
}

static int8_t iv_of[H_MAX]; /* the interval row that is run-wide row k (lc_iv_hist), -1: none */

/* WHY a table made once, not lc_iv_hist searched: the search was 5 tests
 * for each of a request's 8 times under --json (callgrind: h1 3,098 ->
 * 2,889 instructions a request, h3 7,118 -> 6,869) */
__attribute__((constructor)) static void iv_of_init(void)
{
	memset(iv_of, -1, sizeof(iv_of));
	for (int i = 0; i < IV_MAX; i++)
		iv_of[lc_iv_hist[i]] = (int8_t)i;
}

/* the parts of an answered exchange's time, in us: what the README's
 * table of rows says, and what add up: latency = queue + ttfb + body,
 * ttfb = server + other, body = paced + body_other */
static void put(struct lc_stats *st, struct hist *iv, enum lc_hist k, uint64_t v)
{
	hist_add(&st->h[k], v);
	if (iv && iv_of[k] >= 0)
		hist_add(&iv[iv_of[k]], v);
}

/* ... into the run's histograms and, with --json or --interval, the
 * interval's <iv> */
static void record_times(struct lc_stats *st, struct hist *iv, const struct lc_ex *e, uint64_t now, uint64_t lat,
			 int open, int hit)
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
	/* WHY not the split: a hit carries the server time of the answer it
	 * repeats, which no request of its own took */
	if (hit == 1)
		put(st, iv, H_HIT, lat);
	else if (e->server_us != UINT64_MAX) {
		put(st, iv, H_SRV, e->server_us);
		put(st, iv, H_OTH, ttfb > e->server_us ? ttfb - e->server_us : 0);
	}
}

void lc_record(struct lc_conn *c, struct lc_ex *e)
{
	struct lc_thread *t = c->t;
	struct lc_stats *st = &t->st;
	/* WHY read apart from MAX(): a macro, it read the clock twice */
	uint64_t now = lc_clock(t), lat;
	int hit;

	now = MAX(now, e->sent_us);
	lat = now > e->t0 ? now - e->t0 : 0;

	lc_success();
	if (unlikely(lc_rd->drop != NULL))
		lc_rd->drop(e);
	t->done++;
	t->progress = t->done;
	if (!e->counted)
		return;
	if (lc_rd->end && lc_rd->end(e, st) < 0) {
		st->errors[E_BODY]++;
		st->failed++;
		return;
	}
	st->reqs++;
	/* WHY here: the bytes of the requests the run reports, body bytes
	 * alone; a warm-up's or a failed one's are not its figures */
	st->bytes += e->bytes;
	if (e->status >= 100 && e->status < LC_STATUS_MAX)
		st->status[e->status]++;
	st->non2xx += e->status < 200 || e->status > 299;
	st->unexpected += !expected(e->status);
	e->why = NULL;
	if (t->closed_us) {
		st->end_answered++;
		t->tail_us = MAX(t->tail_us, now);
	}
	hit = lc_hit(e);
	st->hits += hit == 1;
	st->misses += hit == 0;
	record_times(st, lc_o->series_us ? t->ival.h : NULL, e, now, lat, lc_open_loop(), hit);
	t->ival.reqs += lc_o->series_us != 0;
	t->ival.hits += hit == 1;
	t->ival.misses += hit == 0;
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
	st->errors[c->nc.why]++;
}

void lc_fail(struct lc_conn *c, struct lc_ex *e, enum lc_err kind)
{
	uint8_t was = c->nc.why;

	c->nc.why = (uint8_t)kind;
	lc_lost(c, e);
	c->nc.why = was;
}

void lc_error(struct lc_conn *c, enum lc_err kind)
{
	struct lc_thread *t = c->t;

	/* WHY by what it takes: with requests in flight, each one lost counts
	 * (lc_lost); without, the connection itself failed */
	c->nc.why = (uint8_t)kind;
	if (lc_o->hs)
		lc_hs_fail(c);
	if (kind == E_CONNECT && errno == EADDRNOTAVAIL)
		lc_source_exhausted();
	if (!c->inflight && lc_now_us() >= t->record_from_us && !t->closed_us) {
		t->st.errors[kind]++;
		t->st.conn_errors++;
	}
	if (kind == E_RESET && c->nc.x.ssl && !lc_succeeded() && lc_tls_alert(c->nc.x.ssl)) {
		char msg[600];

		snprintf(msg, sizeof(msg), "the server at %s ended the TLS session: alert %s%s", lc_tg->where,
			 lc_tls_alert(c->nc.x.ssl), lc_o->cert ? "" : " (does it want a client certificate? --cert)");
		lc_fatal_set(msg);
	}
	if (kind == E_RESET && !c->got_bytes && !c->nc.x.ssl && !lc_succeeded() &&
	    lc_silent_close() == 3) {
		char msg[600];

		snprintf(msg, sizeof(msg), "the server at %s closed the connection without a byte, 3 times "
			 "(a TLS port? use https://%s)", lc_tg->where,
			 lc_o->proxy_proto ? "" : "; one that wants a PROXY header? --proxy-protocol");
		lc_fatal_set(msg);
	}
	if ((kind == E_CONNECT || kind == E_TLS) && !lc_succeeded() && !lc_fatal()) {
		char why[300];

		if (kind == E_TLS && c->nc.x.ssl)
			lc_tls_why(c->nc.x.ssl, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "%s", kind == E_TLS ? "TLS handshake failed" : strerror(errno));
		char msg[900];

		snprintf(msg, sizeof(msg), "%s failed to %s: %s", lc_err_names[kind], lc_tg->where, why);
		lc_fatal_set(msg);
	}
}

/* the first bytes a cleartext connection got: one line when the server
 * speaks something else; -1 then */
int lc_first_bytes(struct lc_conn *c, const char *p, size_t n)
{
	char msg[600];

	if (c->got_bytes || c->nc.x.ssl || !n)
		return 0;
	c->got_bytes = 1;
	if (n >= 2 && (p[0] == 0x15 || p[0] == 0x16) && p[1] == 0x03)
		snprintf(msg, sizeof(msg), "the server at %s answered TLS on a cleartext URL (use https://)",
			 lc_tg->where);
	else if (c->nc.proto == LC_H2 && n >= 5 && !memcmp(p, "HTTP/", 5))
		snprintf(msg, sizeof(msg), "the server at %s answered HTTP/1 to the HTTP/2 preface: "
			 "it does not speak h2c (use http://)", lc_tg->where);
	else
		return 0;
	if (!lc_succeeded()) {
		lc_fatal_set(msg);
		return -1;
	}
	return 0;
}


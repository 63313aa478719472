/* hxload: a load generator for h1, h2 (and h3) that splits latency into server time and the rest. */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <signal.h>
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
#include "timer.h"
#include "tls.h"
#include "tls_bio.h"

#define TICK_US 100000 /* housekeeping: timeouts, progress, the end */

static struct lc_opts opts = { .threads = 1, .conns = 10, .depth = 1, .method = "GET",
			       .timeout_us = 10000000, .duration_us = 10000000 };
static struct lc_target target;
static SSL_CTX *client_ctx;
static atomic_int interrupted;
static atomic_int fatal_seen;        /* a connection could never be made */
static char fatal_msg[512];
static atomic_int any_success;

static uint64_t now_us(void)
{
	return (uint64_t)clock_ns() / 1000;
}

static const char *err_names[E_MAX] = { "connect", "tls", "timeout", "reset", "protocol", "body" };

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
	if (opts.verify && !e->bad && !e->random) {
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
	if (opts.verify && (e->bad || (e->announced >= 0 && e->status != 204 && e->status != 304 &&
				      strcmp(opts.method, "HEAD") && (uint64_t)e->announced != e->bytes))) {
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
		snprintf(fatal_msg, sizeof(fatal_msg), "hxload: %s failed to %s: %s", err_names[kind],
			 target.authority, kind == E_TLS ? "TLS handshake failed" : strerror(errno));
		fatal_seen = 1;
	}
}

/* ---------- connections ---------- */

static void conn_io(struct loop *l, struct ev *e, uint32_t events);

static int conn_open(struct lc_conn *c)
{
	if (target.proto == LC_H3) {
		c->proto = LC_H3;
		c->ev = (struct ev){ -1, conn_io };
		c->rd_ready = c->wr_ready = c->rdhup = 0;
		c->inflight = 0;
		if (lc_h3_open(c) < 0)
			return -1;
		c->ev.fd = c->x.fd;
		c->state = LS_READY;
		return 0;
	}
	{
	int fd = socket(target.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&target.addr, target.alen) < 0 && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	c->ev = (struct ev){ fd, conn_io };
	c->x = (struct xprt){ fd, NULL };
	c->state = LS_CONNECTING;
	c->rd_ready = c->wr_ready = c->rdhup = 0;
	c->inflight = 0;
	c->proto = target.proto == LC_AUTO ? LC_H1 : target.proto;
	oq_reset(&c->oq);
	return loop_watch(&c->t->loop, &c->ev, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET);
	}
}

static void conn_close(struct lc_conn *c)
{
	if (c->proto == LC_H2 && c->proto_state)
		lc_h2_free(c);
	if (c->proto == LC_H3)
		lc_h3_free(c);
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
	if (target.tls && c->state != LS_TLS) {
		if (!(c->x.ssl = SSL_new(client_ctx)) || tls_bio_attach(c->x.ssl, c->x.fd))
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
		if (target.proto == LC_AUTO)
			c->proto = tls_alpn_is(c->x.ssl, "h2") ? LC_H2 : LC_H1;
		c->rd_ready = 1;
	}
	c->state = LS_READY;
	return c->proto == LC_H2 ? lc_h2_start(c) : lc_h1_start(c);
}

static int conn_step(struct lc_conn *c)
{
	switch (c->proto) {
	case LC_H2: return lc_h2_io(c);
	case LC_H3: return lc_h3_io(c);
	default: return lc_h1_io(c);
	}
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

		if (c->state == LS_READY && c->inflight < (uint32_t)opts.depth)
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
		for (int k = 0; k < opts.depth; k++)
			if ((c->proto == LC_H1 || c->ex[k].id >= 0) && c->ex[k].t0 && c->ex[k].t0 < oldest)
				oldest = c->ex[k].t0;
		if (c->proto == LC_H1)
			oldest = c->ex[c->ex_head].t0;
		if (oldest != UINT64_MAX && t->loop.now_us > oldest + opts.timeout_us) {
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

static void *thread_main(void *arg)
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

/* ---------- set-up ---------- */

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "hxload: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

/* http://, https://, h2c://host[:port][/path] */
static void parse_url(const char *url)
{
	char host[256] = "", port[8] = "";
	const char *p, *slash, *hp, *dport;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	size_t hl;

	if (!strncmp(url, "http://", 7))
		p = url + 7, dport = "80";
	else if (!strncmp(url, "https://", 8))
		p = url + 8, dport = "443", target.tls = 1;
	else if (!strncmp(url, "h2c://", 6))
		p = url + 6, dport = "80", target.proto = LC_H2;
	else
		die("bad URL '%s': use http://, https:// or h2c://", url);
	snprintf(port, sizeof(port), "%s", dport);
	slash = strchr(p, '/');
	hl = slash ? (size_t)(slash - p) : strlen(p);
	if (!hl || hl >= sizeof(target.authority))
		die("bad URL '%s': no host", url);
	memcpy(target.authority, p, hl);
	target.authority[hl] = 0;
	snprintf(target.path, sizeof(target.path), "%s", slash ? slash : "/");
	hp = target.authority;
	if (*hp == '[') {
		const char *rb = strchr(hp, ']');

		if (!rb)
			die("bad URL '%s': unclosed [", url);
		snprintf(host, sizeof(host), "%.*s", (int)(rb - hp - 1), hp + 1);
		if (rb[1] == ':')
			snprintf(port, sizeof(port), "%s", rb + 2);
	} else {
		const char *colon = strchr(hp, ':');

		snprintf(host, sizeof(host), "%.*s", colon ? (int)(colon - hp) : (int)strlen(hp), hp);
		if (colon)
			snprintf(port, sizeof(port), "%s", colon + 1);
	}
	if (getaddrinfo(host, port, &hints, &res) || !res)
		die("cannot resolve '%s'", target.authority);
	memcpy(&target.addr, res->ai_addr, res->ai_addrlen);
	target.alen = res->ai_addrlen;
	freeaddrinfo(res);
}

static void build_request(void)
{
	size_t cap = 8192 + strlen(target.path) + opts.body, n;
	char *r = malloc(cap);

	if (!r)
		die("%s", "out of memory");
	n = (size_t)snprintf(r, cap, "%s %s HTTP/1.1\r\nHost: %s\r\n", opts.method, target.path,
			     target.authority);
	for (int i = 0; i < opts.nhdrs; i++)
		n += (size_t)snprintf(r + n, cap - n, "%s\r\n", opts.hdrs[i]);
	if (opts.body)
		n += (size_t)snprintf(r + n, cap - n, "Content-Length: %llu\r\n",
				      (unsigned long long)opts.body);
	n += (size_t)snprintf(r + n, cap - n, "\r\n");
	memset(r + n, 'u', opts.body);
	target.req = r;
	target.reqlen = n + opts.body;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: hxload [options] URL\n"
"  URL: http://host:port/path (HTTP/1.1), https://... (ALPN: h2, else\n"
"  HTTP/1.1), h2c://host:port/path (HTTP/2 by prior knowledge)\n"
"  -t <n>          threads, each with its own connections (1)\n"
"  -c <n>          connections in all (10)\n"
"  -m <n>          in flight per connection: h2 streams, h1 pipeline depth (1)\n"
"  -d <s>          duration in seconds (10); with -n, whichever ends first\n"
"  -n <n>          requests in all\n"
"  -R <rate>       open loop: requests per second, latency measured from each\n"
"                  request's intended send time (no coordinated omission)\n"
"  -w <s>          warm-up seconds, not counted\n"
"  -H 'N: V'       extra request header (repeatable)\n"
"  --method <m>    request method (GET)\n"
"  --body <n>      request body bytes\n"
"  --timeout <s>   a request unanswered this long is an error (10)\n"
"  --h1 / --h2     force HTTP/1.1 or HTTP/2 on https://\n"
"  --h3            HTTP/3 over QUIC to the https:// URL's host and port\n"
"  --verify        check every body byte against hxterm's pattern and the\n"
"                  length against X-rsp's size\n"
"  --json          one JSON object with every figure\n"
"  -q              no progress line\n"
"When the server is hxterm, its X-rsp time splits each latency into server\n"
"time and the rest (network + proxy).\n");
}

static double num_arg(const char *opt, const char *arg, double min, double max)
{
	char *end;
	double v = strtod(arg, &end);

	if (*end || end == arg || v < min || v > max) {
		fprintf(stderr, "hxload: %s '%s': expected a number in [%g, %g]\n", opt, arg, min, max);
		exit(2);
	}
	return v;
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "method", 1, NULL, 'M' }, { "body", 1, NULL, 'B' }, { "timeout", 1, NULL, 'T' },
		{ "h1", 0, NULL, '1' }, { "h2", 0, NULL, '2' }, { "h3", 0, NULL, '3' },
		{ "verify", 0, NULL, 'V' }, { "json", 0, NULL, 'J' }, { "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:c:m:d:n:R:w:H:qh", lo, NULL)) != -1) {
		switch (c) {
		case 't': opts.threads = (int)num_arg("-t", optarg, 1, 256); break;
		case 'c': opts.conns = (int)num_arg("-c", optarg, 1, 100000); break;
		case 'm': opts.depth = (int)num_arg("-m", optarg, 1, LC_MAX_DEPTH); break;
		case 'd': opts.duration_us = (uint64_t)(num_arg("-d", optarg, 0.001, 1e6) * 1e6); break;
		case 'n': opts.total = (uint64_t)num_arg("-n", optarg, 1, 1e15); break;
		case 'R': opts.rate = num_arg("-R", optarg, 0.001, 1e9); break;
		case 'w': opts.warmup_us = (uint64_t)(num_arg("-w", optarg, 0, 1e6) * 1e6); break;
		case 'T': opts.timeout_us = (uint64_t)(num_arg("--timeout", optarg, 0.001, 1e6) * 1e6); break;
		case 'B': opts.body = (uint64_t)num_arg("--body", optarg, 0, 1 << 30); break;
		case 'M': opts.method = optarg; break;
		case 'H':
			if (opts.nhdrs == 32 || !strchr(optarg, ':'))
				die("-H '%s': expected 'Name: value' (at most 32)", optarg);
			opts.hdrs[opts.nhdrs++] = optarg;
			break;
		case '1': opts.force = LC_H1; break;
		case '2': opts.force = LC_H2; break;
		case '3': opts.force = LC_H3; break;
		case 'V': opts.verify = 1; break;
		case 'J': opts.json = 1; break;
		case 'q': opts.quiet = 1; break;
		case 'h': usage(stdout); exit(0);
		default: die("bad option '%s' (try -h)", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		die("%s", "expected one URL (try -h)");
	if (opts.conns < opts.threads)
		opts.threads = opts.conns;
}

/* ---------- report ---------- */

struct total {
	struct hist lat, srv, oth;
	uint64_t status[600], errors[E_MAX], bytes, reqs;
	double secs;
};

static void pct_json(const char *name, const struct hist *h)
{
	printf(", \"%s\": {\"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f, \"p999\": %.3f, \"p9999\": %.3f, "
	       "\"max\": %.3f}", name, hist_quantile(h, 0.5) / 1e3, hist_quantile(h, 0.9) / 1e3,
	       hist_quantile(h, 0.99) / 1e3, hist_quantile(h, 0.999) / 1e3,
	       hist_quantile(h, 0.9999) / 1e3, h->max / 1e3);
}

static void report_json(const struct total *T)
{
	int first = 1;

	printf("{\"requests\": %llu, \"seconds\": %.3f, \"requests_per_second\": %.1f, "
	       "\"bytes_per_second\": %.1f, \"errors\": {", (unsigned long long)T->reqs, T->secs,
	       T->reqs / T->secs, T->bytes / T->secs);
	for (int i = 0; i < E_MAX; i++)
		printf("%s\"%s\": %llu", i ? ", " : "", err_names[i], (unsigned long long)T->errors[i]);
	printf("}, \"status\": {");
	for (int s = 0; s < 600; s++)
		if (T->status[s]) {
			printf("%s\"%d\": %llu", first ? "" : ", ", s, (unsigned long long)T->status[s]);
			first = 0;
		}
	printf("}");
	pct_json("latency_ms", &T->lat);
	if (T->srv.n) {
		pct_json("server_ms", &T->srv);
		pct_json("other_ms", &T->oth);
	}
	printf("}\n");
}

static void row(const char *name, const struct hist *h)
{
	static const double q[] = { 0.5, 0.9, 0.99, 0.999, 0.9999 };

	printf("%-9s", name);
	for (size_t i = 0; i < ARRAY_SIZE(q); i++)
		printf(" %9.3f", hist_quantile(h, q[i]) / 1e3);
	printf(" %9.3f\n", h->max / 1e3);
}

static void report_text(const struct total *T)
{
	uint64_t errs = 0;

	for (int i = 0; i < E_MAX; i++)
		errs += T->errors[i];
	printf("requests  %llu in %.2f s: %.1f req/s, %.2f MB/s, %llu errors\n",
	       (unsigned long long)T->reqs, T->secs, T->reqs / T->secs, T->bytes / T->secs / 1e6,
	       (unsigned long long)errs);
	if (errs) {
		printf("errors   ");
		for (int i = 0; i < E_MAX; i++)
			if (T->errors[i])
				printf(" %s %llu", err_names[i], (unsigned long long)T->errors[i]);
		printf("\n");
	}
	printf("status   ");
	for (int s = 0; s < 600; s++)
		if (T->status[s])
			printf(" %d: %llu", s, (unsigned long long)T->status[s]);
	printf("\n%-9s %9s %9s %9s %9s %9s %9s   (ms)\n", "", "p50", "p90", "p99", "p99.9", "p99.99", "max");
	row("latency", &T->lat);
	if (T->srv.n) {
		row("server", &T->srv);
		row("other", &T->oth);
	}
}

/* ---------- main ---------- */

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void thread_init(struct lc_thread *t, int id, uint64_t start)
{
	t->id = id;
	t->o = &opts;
	t->tg = &target;
	if (loop_init(&t->loop) < 0)
		die("%s", "cannot create an epoll set");
	t->loop.now_us = start;
	t->start_us = start;
	t->record_from_us = start + opts.warmup_us;
	t->end_us = start + opts.warmup_us + opts.duration_us;
	t->nconns = opts.conns / opts.threads + (id < opts.conns % opts.threads);
	t->budget = opts.total ? opts.total / (uint64_t)opts.threads +
				 ((uint64_t)id < opts.total % (uint64_t)opts.threads) : UINT64_MAX;
	if (opts.rate > 0) {
		t->interval_us = 1e6 * opts.threads / opts.rate;
		t->next_due_us = start + (uint64_t)(t->interval_us * id / opts.threads);
		t->due_cap = 1024;
		t->due = malloc(t->due_cap * sizeof(*t->due));
	}
	t->conns = calloc((size_t)t->nconns, sizeof(*t->conns));
	for (int i = 0; i < t->nconns; i++) {
		struct lc_conn *c = &t->conns[i];

		c->t = t;
		c->tg = &target;
		c->idx = i;
		c->x.fd = c->ev.fd = -1;
		c->tm = (struct timer){ 0, 0, conn_retry };
		c->ex = calloc((size_t)opts.depth, sizeof(*c->ex));
		c->in_size = 65536;
		c->in = malloc(c->in_size);
		oq_alloc(&c->oq, 65536);
	}
}

static void thread_free(struct lc_thread *t)
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

static void progress(struct lc_thread *ts, uint64_t start)
{
	uint64_t last = 0, now, done;

	while (!interrupted) {
		int alive = 0;

		usleep(1000000);
		done = 0;
		for (int i = 0; i < opts.threads; i++) {
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

int main(int argc, char **argv)
{
	static const unsigned char alpn_any[] = "\x02h2\x08http/1.1", alpn_h2[] = "\x02h2",
				   alpn_h1[] = "\x08http/1.1";
	struct lc_thread *ts;
	static struct total T;
	uint64_t start;

	parse_args(argc, argv);
	parse_url(argv[optind]);
	if (opts.force && target.tls)
		target.proto = opts.force;
	if (opts.force == LC_H2 && !target.tls)
		target.proto = LC_H2;
	if (opts.force == LC_H3 && !target.tls)
		die("%s", "--h3 needs an https:// URL");
	build_request();
	if (target.tls) {
		client_ctx = target.proto == LC_H2 ? tls_client_ctx(alpn_h2, sizeof(alpn_h2) - 1) :
			     target.proto == LC_H1 ? tls_client_ctx(alpn_h1, sizeof(alpn_h1) - 1) :
			     tls_client_ctx(alpn_any, sizeof(alpn_any) - 1);
		if (!client_ctx)
			die("%s", "cannot create the TLS context");
	}
	if (lc_h2_global_init() < 0 || lc_h3_global_init() < 0)
		die("%s", "cannot initialise the HTTP/2 or QUIC library");
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ts = calloc((size_t)opts.threads, sizeof(*ts));
	start = now_us();
	for (int i = 0; i < opts.threads; i++)
		thread_init(&ts[i], i, start);
	for (int i = 0; i < opts.threads; i++)
		pthread_create(&ts[i].th, NULL, thread_main, &ts[i]);
	if (!opts.quiet && !opts.json && isatty(2))
		progress(ts, start);
	for (int i = 0; i < opts.threads; i++) {
		pthread_join(ts[i].th, NULL);
		hist_merge(&T.lat, &ts[i].lat);
		hist_merge(&T.srv, &ts[i].srv);
		hist_merge(&T.oth, &ts[i].oth);
		for (int s = 0; s < 600; s++)
			T.status[s] += ts[i].status[s];
		for (int e = 0; e < E_MAX; e++)
			T.errors[e] += ts[i].errors[e];
		T.bytes += ts[i].bytes;
		T.reqs += ts[i].reqs;
		thread_free(&ts[i]);
	}
	free(ts);
	free(target.req);
	SSL_CTX_free(client_ctx);
	lc_h2_global_free();
	lc_h3_global_free();
	if (!opts.quiet && !opts.json && isatty(2))
		fprintf(stderr, "\r%60s\r", "");
	if (fatal_seen) {
		fprintf(stderr, "%s\n", fatal_msg);
		return 1;
	}
	T.secs = (now_us() - start - opts.warmup_us) / 1e6;
	if (T.secs <= 0)
		T.secs = 1e-6;
	if (opts.json)
		report_json(&T);
	else
		report_text(&T);
	return T.reqs ? 0 : 1;
}

/* The stats listener (--stats): a thread of its own with an event loop, many short HTTP/1.1 exchanges at once, never on the test ports. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common.h"
#include "config.h"
#include "listen.h"
#include "log.h"
#include "loop.h"
#include "nofd.h"
#include "stats_out.h"
#include "stats_srv.h"

#define SC_MAX      64        /* clients at once: past it, the oldest makes room */
#define SC_HEAD_MAX 8192      /* a request head larger is answered 431 */
#define SC_HEAD_US  2000000   /* the whole head within this, else 408 */
#define SC_SEND_US  5000000   /* the whole answer within this, else closed */
#define SC_PAUSE_US 100000    /* out of descriptors, no reserve: accept again after this */

/* one client: its head as it arrives, then its answer as it leaves */
struct sconn {
	struct ev ev;
	struct timer tm;
	uint64_t born_us;
	int slot;
	int reserve;             /* took the reserve descriptor */
	char head[256];          /* the answer's head */
	struct iovec iov[2];     /* what is left to send: head, body */
	char *owned;             /* the body, when it is ours to free */
	size_t n;
	char req[SC_HEAD_MAX];
};

static int lfd = -1;
static int stop_pipe[2] = { -1, -1 };
static struct nofd reserve = { -1, 0 }; /* out of descriptors, a scrape is still answered */
static pthread_t th;
static struct loop sl;
static struct ev lev, stop_ev;
static struct timer resume, sample;
static struct sconn *conns[SC_MAX];
static int nconns, running;

static void sc_close(struct sconn *c)
{
	loop_drop(&sl, &c->ev);
	loop_cancel(&sl, &c->tm);
	close(c->ev.fd);
	if (c->reserve)
		nofd_restore(&reserve);
	conns[c->slot] = conns[--nconns];
	conns[c->slot]->slot = c->slot;
	free(c->owned);
	free(c);
}

/* sends what is left: 1 when all of it went, 0 when the socket is full, -1 on an error */
static int sc_send(struct sconn *c)
{
	while (c->iov[0].iov_len + c->iov[1].iov_len) {
		struct msghdr m = { .msg_iov = c->iov, .msg_iovlen = 2 };
		ssize_t w = sendmsg(c->ev.fd, &m, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno == EAGAIN ? 0 : -1;
		for (int i = 0; i < 2; i++) {
			size_t k = (size_t)w < c->iov[i].iov_len ? (size_t)w : c->iov[i].iov_len;

			c->iov[i].iov_base = (char *)c->iov[i].iov_base + k;
			c->iov[i].iov_len -= k;
			w -= (ssize_t)k;
		}
	}
	return 1;
}

static void sc_flush(struct sconn *c)
{
	int r = sc_send(c);

	if (r)
		sc_close(c);
	else
		loop_modify(&sl, &c->ev, EPOLLOUT);
}

/* answers <c> with <status> and <body> (<owned>: ours to free), then closes */
static void sc_reply(struct sconn *c, const char *status, const char *type, const char *body, size_t len,
		     char *owned, int head_only, const char *extra)
{
	int n = snprintf(c->head, sizeof(c->head),
			 "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "Cache-Control: no-store\r\n%sConnection: close\r\n\r\n", status, type, len, extra);

	c->owned = owned;
	c->iov[0] = (struct iovec){ c->head, (size_t)n };
	c->iov[1] = (struct iovec){ (void *)body, head_only ? 0 : len };
	loop_arm(&sl, &c->tm, sl.now_us + SC_SEND_US);
	sc_flush(c);
}

static void sc_text(struct sconn *c, const char *status, const char *text, const char *extra)
{
	sc_reply(c, status, "text/plain", text, strlen(text), NULL, 0, extra);
}

/* the document at <path>, its <query> ("" when none) */
static void serve(struct sconn *c, const char *path, const char *query, int head)
{
	struct sbuf b = { malloc(16384), 0, 16384, 0 };
	const char *type = "text/plain; version=0.0.4; charset=utf-8";

	b.failed = !b.p;
	if (!strcmp(path, "/metrics")) {
		stats_metrics(&b);
	} else if (!strcmp(path, "/stats.json")) {
		stats_json(&b);
		type = "application/json";
	} else if (!strcmp(path, "/history.json")) {
		stats_hist_json(&b, !strncmp(query, "since=", 6) ? atof(query + 6) : 0);
		type = "application/json";
	} else if (!strcmp(path, "/") && stats_page()) {
		free(b.p);
		sc_reply(c, "200 OK", "text/html; charset=utf-8", stats_page(), strlen(stats_page()), NULL, head, "");
		return;
	} else {
		free(b.p);
		sc_text(c, "404 Not Found", "not found: /metrics, /stats.json, /history.json or /\n", "");
		return;
	}
	if (b.failed) {
		free(b.p);
		sc_text(c, "500 Internal Server Error", "out of memory\n", "");
		return;
	}
	sc_reply(c, "200 OK", type, b.p, b.len, b.p, head, "");
}

/* what the head read so far asks for: 1 answered, 0 wait for more */
static int sc_head(struct sconn *c)
{
	size_t m = strspn(c->req, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
	char path[256], *q;
	int head;

	/* WHY at once: a method is capital letters then a space; anything else
	 * (a NUL, a TLS hello, a binary probe) will never become a request */
	if ((m < c->n && (c->req[m] != ' ' || !m)) || m > 16)
		return sc_text(c, "400 Bad Request", "bad request line (GET /metrics HTTP/1.1)\n", ""), 1;
	if (!strstr(c->req, "\r\n\r\n")) {
		if (c->n < SC_HEAD_MAX - 1 && strlen(c->req) == c->n)
			return 0;
		/* WHY the strlen: a NUL inside the head ends what strstr sees */
		if (strlen(c->req) != c->n)
			return sc_text(c, "400 Bad Request", "bad request: a NUL byte in the head\n", ""), 1;
		return sc_text(c, "431 Request Header Fields Too Large", "request head too large (8 KiB at most)\n", ""), 1;
	}
	head = !strncmp(c->req, "HEAD ", 5);
	if (strncmp(c->req, "GET ", 4) && !head)
		return sc_text(c, "405 Method Not Allowed", "GET or HEAD only\n", "Allow: GET, HEAD\r\n"), 1;
	if (sscanf(c->req + 4 + head, "%255s", path) != 1 || path[0] != '/')
		return sc_text(c, "400 Bad Request", "bad request line (GET /metrics HTTP/1.1)\n", ""), 1;
	q = path + strcspn(path, "?");
	if (*q)
		*q++ = 0;
	serve(c, path, q, head);
	return 1;
}

static void sc_io(struct loop *l, struct ev *e, uint32_t events)
{
	struct sconn *c = container_of(e, struct sconn, ev);
	ssize_t r;

	(void)l;
	if (c->iov[0].iov_base) {
		if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			sc_flush(c);
		return;
	}
	r = recv(c->ev.fd, c->req + c->n, SC_HEAD_MAX - 1 - c->n, 0);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0) {
		sc_close(c);
		return;
	}
	c->n += (size_t)r;
	c->req[c->n] = 0;
	sc_head(c);
}

/* the head's deadline (408), or the answer's (closed) */
static void sc_expire(struct loop *l, struct timer *t)
{
	struct sconn *c = container_of(t, struct sconn, tm);

	(void)l;
	if (c->iov[0].iov_base) {
		sc_close(c);
		return;
	}
	sc_text(c, "408 Request Timeout", "request head not received within 2 s\n", "");
}

/* the oldest client makes room for a new one, the one still sending its head first */
static void sc_evict(void)
{
	struct sconn *old = NULL;

	for (int i = 0; i < nconns; i++) {
		struct sconn *c = conns[i];

		if (!old || (!c->iov[0].iov_base && old->iov[0].iov_base) ||
		    (!c->iov[0].iov_base == !old->iov[0].iov_base && c->born_us < old->born_us))
			old = c;
	}
	sc_close(old);
}

static void sc_new(int fd, int took_reserve)
{
	struct sconn *c = calloc(1, sizeof(*c));

	if (!c) {
		close(fd);
		if (took_reserve)
			nofd_restore(&reserve);
		return;
	}
	if (nconns == SC_MAX)
		sc_evict();
	c->ev = (struct ev){ fd, sc_io };
	c->tm.cb = sc_expire;
	c->born_us = sl.now_us;
	c->reserve = took_reserve;
	c->slot = nconns;
	conns[nconns++] = c;
	loop_arm(&sl, &c->tm, sl.now_us + SC_HEAD_US);
	if (loop_watch(&sl, &c->ev, EPOLLIN) < 0)
		sc_close(c);
}

static void resume_accept(struct loop *l, struct timer *t)
{
	(void)t;
	loop_modify(l, &lev, EPOLLIN);
}

static void accept_cb(struct loop *l, struct ev *e, uint32_t events)
{
	(void)events;
	for (int i = 0; i < SC_MAX; i++) {
		int fd = accept4(e->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), took = 0;

		/* WHY the reserve: out of descriptors is when the figures are
		 * wanted most */
		if (fd < 0 && nofd_out(errno) && reserve.fd >= 0) {
			fd = nofd_accept(&reserve, e->fd, SOCK_NONBLOCK);
			took = fd >= 0;
			if (fd < 0)
				nofd_restore(&reserve);
		}
		if (fd >= 0) {
			sc_new(fd, took);
			continue;
		}
		if (nofd_out(errno)) {
			/* WHY: no reserve either: the pending client would wake us at once */
			loop_modify(l, &lev, 0);
			loop_arm(l, &resume, l->now_us + SC_PAUSE_US);
		}
		return;
	}
}

/* each second: the history's sample, the next one armed */
static void sample_cb(struct loop *l, struct timer *t)
{
	stats_hist_tick();
	loop_arm(l, t, t->expire + 1000000);
}

static void stop_cb(struct loop *l, struct ev *e, uint32_t events)
{
	(void)l, (void)e, (void)events;
	running = 0;
}

static void *stats_main(void *arg)
{
	(void)arg;
	while (running)
		loop_turn(&sl, 1000000);
	while (nconns)
		sc_close(conns[0]);
	return NULL;
}

int stats_listen(void)
{
	char name[160];

	if (!cfg.stats.clear_port)
		return 0;
	listen_name(&cfg.stats, cfg.stats.clear_port, name, sizeof(name));
	if (listen_free(&cfg.stats, cfg.stats.clear_port, SOCK_STREAM) < 0 ||
	    (lfd = listen_tcp(&cfg.stats, cfg.stats.clear_port)) < 0) {
		log_err("--stats %s: %s", name, strerror(errno));
		return -1;
	}
	log_info("stats on http://%s/ (/metrics, /stats.json, /history.json)", name);
	return 0;
}

int stats_start(void)
{
	if (lfd < 0)
		return 0;
	lev = (struct ev){ lfd, accept_cb };
	resume.cb = resume_accept;
	sample.cb = sample_cb;
	if (pipe2(stop_pipe, O_CLOEXEC) < 0 || nofd_init(&reserve) < 0 || loop_init(&sl) < 0)
		return log_err("--stats: cannot start its thread"), -1;
	stop_ev = (struct ev){ stop_pipe[0], stop_cb };
	loop_clock(&sl);
	stats_hist_tick(); /* WHY at once: the page's first rates need a sample before them */
	loop_arm(&sl, &sample, sl.now_us + 1000000);
	running = 1;
	if (loop_watch(&sl, &lev, EPOLLIN) < 0 || loop_watch(&sl, &stop_ev, EPOLLIN) < 0 ||
	    pthread_create(&th, NULL, stats_main, NULL)) {
		log_err("--stats: cannot start its thread");
		return -1;
	}
	pthread_setname_np(th, "hxterm-stats"); /* WHY: bench/stats finds its CPU time by name */
	return 0;
}

void stats_stop(void)
{
	if (lfd < 0)
		return;
	if (write(stop_pipe[1], "x", 1) == 1)
		pthread_join(th, NULL);
	loop_free(&sl);
	close(lfd);
	close(stop_pipe[0]);
	close(stop_pipe[1]);
	nofd_free(&reserve);
	lfd = -1;
}

/* hxload --idle N: more connections that each send one request, then stay idle beside the load; when the server or a proxy closed them. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "lc_fate.h"
#include "lc_thread.h"
#include "lc_idle.h"
#include "lc_idle_int.h"
#include "lc_source.h"

#define CONNECTING_MAX 256 /* connects in progress at once: a listen backlog's worth */
/* WHY fewer for QUIC: each is a handshake's CPU on both sides, no kernel's
 * backlog; 1000 against hxterm -t 1 opened in 2.0-3.3 s at 256, 1.0-2.3 s
 * at 8-64; 5000 in 4.3-5.5 s at 32, 5.9-8.2 s at 128 (noisy, 2 shared cores) */
#define Q_CONNECTING_MAX 32
#define OPEN_WAIT_US 20000000 /* each answered, or given up on */


/* WHY a few bytes each and no buffer: hxload's own memory per idle
 * connection is one of the figures; reads go to the thread's scratch */
static char scratch[16384];

/* its TLS or QUIC state and its socket */
static void conn_free(struct idle_conn *c)
{
	if (c->ssl)
		idle_tls_free(c);
	if (c->q)
		idle_h3_free(c);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

void idle_gone(struct idle_conn *c, uint64_t now)
{
	struct idle_state *s = &lc_idle;

	epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
	conn_free(c);
	if (c->st != IC_ANSWERED) {
		idle_why(s, 0);
		c->st = IC_FAILED;
		atomic_fetch_add(&s->failed, 1);
		return;
	}
	c->st = IC_CLOSED;
	idle_closed(s, now - c->since_us);
}

static int conn_open(struct idle_conn *c)
{
	struct idle_state *s = &lc_idle;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP, .data.ptr = c };
	int one = 1;

	if (s->h3) {
		if (idle_h3_open(c, s->ep, (uint32_t)(lc_o->conns + (c - s->conns))) < 0) {
			idle_why(s, errno);
			conn_free(c);
			return -1;
		}
		c->st = IC_CONNECTING;
		s->connecting++;
		return 0;
	}
	c->fd = socket(lc_tg->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -1;
	if (lc_tg->addr.ss_family != AF_UNIX)
		setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* WHY after the load's: --source hands each idle connection its own turn */
	if (lc_source_bind(c->fd, (uint32_t)(lc_o->conns + (c - s->conns))) < 0 ||
	    (connect(c->fd, (struct sockaddr *)&lc_tg->addr, lc_tg->alen) < 0 && errno != EINPROGRESS) ||
	    epoll_ctl(s->ep, EPOLL_CTL_ADD, c->fd, &ev) < 0) {
		idle_why(s, errno);
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	c->st = IC_CONNECTING;
	s->connecting++;
	return 0;
}

/* the next connections, CONNECTING_MAX in progress at most */
static void open_more(struct idle_state *s)
{
	while (s->opened < s->n && s->connecting < (s->h3 ? Q_CONNECTING_MAX : CONNECTING_MAX)) {
		struct idle_conn *c = &s->conns[s->opened++];

		if (conn_open(c) < 0) {
			if (!s->why[0])
				idle_why(s, errno);
			c->st = IC_FAILED;
			atomic_fetch_add(&s->failed, 1);
		}
	}
}

/* connected (TLS: once the handshake is done): its one request */
static int conn_request(struct idle_conn *c)
{
	int r;

	if (c->st == IC_TLS) {
		if ((r = idle_tls_step(c)) <= 0) {
			if (r < 0)
				idle_why(&lc_idle, EPROTO);
			return r;
		}
	} else if (c->st != IC_CONNECTING) {
		return 0;
	}
	if (idle_send_request(c) < 0) {
		idle_why(&lc_idle, errno ? errno : ECONNRESET);
		return -1;
	}
	c->st = IC_SENT;
	return 0;
}

static void conn_event(struct idle_state *s, struct idle_conn *c, uint32_t events, uint64_t now)
{
	if (s->h3) {
		if (idle_h3_event(c) < 0)
			idle_gone(c, now);
		return;
	}
	if (c->st == IC_CONNECTING) {
		int err = 0;
		socklen_t el = sizeof(err);

		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el);
		if (!err && !(events & (EPOLLERR | EPOLLHUP)) && !(events & EPOLLOUT))
			return;
		s->connecting--;
		if (err || (events & (EPOLLERR | EPOLLHUP)) || (lc_tg->tls && idle_tls_start(c) < 0)) {
			idle_why(s, err ? err : ECONNRESET);
			idle_gone(c, now);
			return;
		}
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = c };
		epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev);
		open_more(s);
	}
	if (conn_request(c) < 0) {
		idle_gone(c, now);
		return;
	}
	if (c->st == IC_TLS) /* WHY: SSL_read would end the handshake, and no request sent */
		return;
	for (long n; (n = idle_recv(c, scratch, sizeof(scratch))) != -1;)
		if (n == 0 || idle_read(c, scratch, (size_t)n, now) < 0) {
			idle_gone(c, now); /* the peer closed it, or said it would */
			return;
		}
}

static void *idle_main(void *arg)
{
	struct idle_state *s = arg;
	struct epoll_event evs[256];
	uint64_t next_ping = lc_now_us() + lc_o->idle_ping_us;

	open_more(s);
	while (!atomic_load(&s->stop)) {
		int n = epoll_wait(s->ep, evs, 256, s->h3 ? idle_h3_wait_ms(100) : 100);
		uint64_t now = lc_now_us();

		for (int i = 0; i < n; i++)
			conn_event(s, evs[i].data.ptr, evs[i].events, now);
		if (s->h3) { /* WHY here: a handshake's end frees a place for the next */
			for (struct idle_conn *c; (c = idle_h3_timers(s));)
				idle_gone(c, lc_now_us());
			open_more(s);
		}
		if (lc_o->idle_ping_us && now >= next_ping) {
			idle_ping_all(s, now);
			next_ping = now + lc_o->idle_ping_us;
		}
	}
	return NULL;
}

/* WHY the hard limit: N held connections are N files beside the load's */
static int nofile_raise(int need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)need) {
		fprintf(stderr, "hxload: --idle %d: %d files needed with -c, the open-file limit is %llu "
			"(hard; raise it: ulimit -Hn)\n", lc_o->idle, need, (unsigned long long)rl.rlim_cur);
		return -1;
	}
	return 0;
}

int lc_idle_start(void)
{
	struct idle_state *s = &lc_idle;
	uint64_t t0;

	if (!lc_o->idle)
		return 0;
	if (lc_tg->proto == LC_WS) {
		fprintf(stderr, "hxload: --idle: HTTP/1.1 keep-alive, h2 (h2c, TLS) and h3 only, not WebSocket yet\n");
		return -1;
	}
	if (nofile_raise(lc_o->idle + lc_o->conns + 64) < 0)
		return -1;
	s->n = lc_o->idle;
	s->h2 = lc_tg->proto == LC_H2 && !lc_tg->tls;
	s->h3 = lc_o->force == LC_H3;
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0 || !(s->conns = calloc((size_t)s->n, sizeof(*s->conns)))) {
		fprintf(stderr, "hxload: --idle %d: out of memory\n", s->n);
		return -1;
	}
	for (int i = 0; i < s->n; i++)
		s->conns[i].fd = -1, s->conns[i].h2 = (uint8_t)s->h2;
	idle_rss(s, RSS_REST);
	t0 = lc_now_us();
	s->start_us = t0;
	if (pthread_create(&s->th, NULL, idle_main, s)) {
		fprintf(stderr, "hxload: --idle: cannot start its thread\n");
		return -1;
	}
	s->running = 1;
	while (atomic_load(&s->answered) + atomic_load(&s->failed) < (unsigned)s->n &&
	       lc_now_us() < t0 + OPEN_WAIT_US && !lc_interrupted())
		usleep(10000);
	s->open_s = (lc_now_us() - t0) / 1e6;
	s->unanswered = s->n - (int)(atomic_load(&s->answered) + atomic_load(&s->failed));
	idle_rss(s, RSS_OPENED);
	return 0;
}

void lc_idle_stop(void)
{
	struct idle_state *s = &lc_idle;

	if (!s->running)
		return;
	idle_rss(s, RSS_END);
	atomic_store(&s->stop, 1);
	pthread_join(s->th, NULL);
	s->running = 0;
	for (int i = 0; i < s->n; i++) {
		idle_end(&s->conns[i]);
		conn_free(&s->conns[i]);
	}
	if (s->h3)
		idle_h3_end();
	s->held = (int)(atomic_load(&s->answered) - s->closed);
	free(s->conns);
	s->conns = NULL;
	close(s->ep);
}

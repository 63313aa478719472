/* Worker threads: one epoll loop each, shared nothing; start, stop, connection accounting. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "h1_conn.h"
#include "uring.h"
#include "h2_conn.h"
#include "listen.h"
#include "quic.h"
#include "log.h"
#include "timer.h"
#include "worker.h"

#define ACCEPT_BURST 64

static atomic_int hx_stop;  /* leave now */
static atomic_int hx_drain; /* stop accepting, finish what is in flight */
static atomic_int conn_count;
static atomic_int running;   /* workers still in their loop */
static struct worker *workers;
static struct ev stop_ev;

static void listeners_set(struct worker *w, int on)
{
	for (int i = 0; i < w->nlst; i++)
		loop_modify(&w->loop, &w->lst[i].ev, on ? EPOLLIN : 0);
	w->paused = !on;
}

void worker_conn_gone(struct worker *w)
{
	w->nconn--;
	atomic_fetch_sub_explicit(&conn_count, 1, memory_order_relaxed);
	if (w->paused && !w->draining)
		listeners_set(w, 1);
}

/* WHY: set on the listener, Linux copies these options to every accepted
 * socket: one setsockopt per connection saved (the Connection: close row) */
static void conn_setup(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* accept only once the first bytes came: h1c_accept reads them at once */
	if (!cfg.no_defer_accept)
		setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &one, sizeof(one));
	if (cfg.sndbuf)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cfg.sndbuf, sizeof(cfg.sndbuf));
}

static void accept_cb(struct loop *l, struct ev *e, uint32_t events)
{
	struct worker *w = worker_of(l);
	(void)events;
	for (int i = 0; i < ACCEPT_BURST; i++) {
		int fd;

		/* WHY: beyond -n, leave new connections in the kernel's backlog */
		if (atomic_load_explicit(&conn_count, memory_order_relaxed) >= cfg.maxconn) {
			listeners_set(w, 0);
			return;
		}
		fd = accept4(e->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE)
				listeners_set(w, 0);
			return;
		}
		if (cfg.debug)
			log_debug("thread %d: accepted fd %d on port %u", w->id, fd,
				  container_of(e, struct listener, ev)->port);
		atomic_fetch_add_explicit(&conn_count, 1, memory_order_relaxed);
		w->nconn++;
		w->st.accepted++;
		struct listener *lst = container_of(e, struct listener, ev);

		if (h1c_accept(w, fd, lst->tls ? lst->port : 0) < 0) {
			close(fd);
			w->nconn--;
			atomic_fetch_sub_explicit(&conn_count, 1, memory_order_relaxed);
		}
	}
}

static void stop_cb(struct loop *l, struct ev *e, uint32_t events)
{
	(void)l, (void)e, (void)events;
}

/* first turn after a drain was asked: no more accepts, idle ones closed */
static void worker_drain_start(struct worker *w)
{
	for (int i = 0; i < w->nlst; i++) {
		close(w->lst[i].ev.fd);
		w->lst[i].ev.fd = -1;
	}
	w->nlst = 0;
	w->draining = 1;
	w->drain_end = w->loop.now_ms + cfg.drain_ms;
	h1c_drain(w);
	h2c_drain(w);
	quic_drain(w);
}

void worker_turn(struct worker *w, uint64_t max_wait_us)
{
	/* WHY: paused listeners and a drain are checked between turns */
	if (w->paused || w->draining)
		max_wait_us = MIN(max_wait_us, 100000);
	loop_turn(&w->loop, max_wait_us);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	if (cfg.io_uring)
		loop_use_ring(&w->loop, w->id);
	while (!hx_stop) {
		worker_turn(w, UINT64_MAX);
		if (hx_drain && !w->drain_end)
			worker_drain_start(w);
		if (w->drain_end && ((!w->nconn && !w->nqconns) || w->loop.now_ms >= w->drain_end))
			break;
		if (w->paused && !w->draining && atomic_load(&conn_count) < cfg.maxconn)
			listeners_set(w, 1);
	}
	h1c_release_all(w);
	h2c_release_all(w);
	quic_release_all(w);
	if (cfg.splice)
		spl_free(&w->spl);
	atomic_fetch_sub(&running, 1);
	return NULL;
}

static int worker_listen_one(struct worker *w, const struct listen_addr *la,
			     uint16_t port, int tls)
{
	struct listener *l = &w->lst[w->nlst];
	char name[160];
	int fd = listen_tcp(la, port);

	if (fd >= 0)
		conn_setup(fd);
	if (fd < 0) {
		listen_name(la, port, name, sizeof(name));
		log_err("cannot listen on %s: %s", name, strerror(errno));
		return -1;
	}
	*l = (struct listener){ .ev = { fd, accept_cb }, .la = la, .port = port, .tls = (uint8_t)tls };
	w->nlst++;
	return loop_watch(&w->loop, &l->ev, EPOLLIN);
}

static int worker_listen(struct worker *w)
{
	for (int i = 0; i < cfg.naddrs; i++) {
		const struct listen_addr *la = &cfg.addrs[i];

		if (worker_listen_one(w, la, la->clear_port, 0) < 0 ||
		    (la->tls_port && worker_listen_one(w, la, la->tls_port, 1) < 0) ||
		    (la->tls_port && !cfg.no_h3 && quic_listen(w, la, la->tls_port) < 0))
			return -1;
	}
	return 0;
}

static int worker_init(struct worker *w, int id)
{
	w->id = id;
	rng_seed(&w->rng, (uint64_t)clock_ns() ^ ((uint64_t)id << 48) ^ (uint64_t)getpid());
	/* WHY edge-triggered: the eventfd is shared and never read; level-
	 * triggered, it woke every worker on every turn of a drain (a core
	 * spinning for --drain-timeout) */
	if (loop_init(&w->loop) < 0 || loop_watch(&w->loop, &stop_ev, EPOLLIN | EPOLLET) < 0)
		return -1;
	if (cfg.splice)
		spl_init(&w->spl);
	return worker_listen(w);
}

int workers_start(void)
{
	stop_ev = (struct ev){ eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), stop_cb };
	workers = calloc((size_t)cfg.threads, sizeof(*workers));
	if (stop_ev.fd < 0 || !workers)
		return log_err("out of resources at start-up"), -1;
	for (int i = 0; i < cfg.threads; i++)
		if (worker_init(&workers[i], i) < 0)
			return -1;
	atomic_store(&running, cfg.threads);
	for (int i = 0; i < cfg.threads; i++)
		if (pthread_create(&workers[i].th, NULL, worker_main, &workers[i])) {
			log_err("cannot start thread %d", i);
			return -1;
		}
	return 0;
}

static void workers_wake(void)
{
	uint64_t one = 1;

	if (write(stop_ev.fd, &one, sizeof(one)) < 0)
		log_err("cannot wake the workers: %s", strerror(errno));
}

void workers_drain(void)
{
	hx_drain = 1;
	workers_wake();
}

int workers_idle(void)
{
	return atomic_load(&running) == 0;
}

void workers_join(void)
{
	for (int i = 0; i < cfg.threads; i++) {
		struct worker *w = &workers[i];

		pthread_join(w->th, NULL);
		for (int j = 0; j < w->nlst; j++)
			close(w->lst[j].ev.fd);
		loop_free(&w->loop);
	}
	close(stop_ev.fd);
	free(workers);
}

void workers_stop(void)
{
	hx_stop = 1;
	workers_wake();
}

void workers_report(void)
{
	for (int i = 0; i < cfg.threads; i++) {
		const struct wstats *st = &workers[i].st;

		fprintf(stderr, "hxterm: thread %d: %u connections, %llu accepted, %llu requests, "
			"%llu errors, %llu bytes in, %llu bytes out\n", i, workers[i].nconn,
			(unsigned long long)st->accepted, (unsigned long long)st->requests,
			(unsigned long long)st->errors, (unsigned long long)st->bytes_in,
			(unsigned long long)st->bytes_out);
	}
}

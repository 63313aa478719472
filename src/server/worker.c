/* Worker threads: one loop each, shared nothing; listeners, start, drain, stop. The protocols are the session layer's. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "xprt.h"
#include "alog.h"
#include "clock.h"
#include "config.h"
#include "listen.h"
#include "log.h"
#include "nofd.h"
#include "plan.h"
#include "session.h"
#include "szpool.h"
#include "worker.h"
#include "xstream.h"

#define ACCEPT_BURST 64
#define EMFILE_PAUSE_MS 100 /* out of descriptors: accept again after this */
#define TRIM_PEAK 1024 /* connections a thread held before closes bring the heap back */
#define TRIM_LAST 16    /* connections left below which the next trim waits for the last close */

struct listener {
	struct ev ev;
	uint16_t port;
	uint8_t tls;         /* the TLS port: h1 or h2 by ALPN */
	uint8_t proxy;       /* a PROXY header comes first */
};

/* a worker thread: what the protocols see, and the server's own part */
struct wthread {
	struct worker w;
	pthread_t th;
	atomic_int cpu_clock; /* the thread's CPU-time clock, for the stats thread; 0 until known */
	struct listener lst[2 * CFG_MAX_LISTEN];
	int nlst;
	struct nofd reserve; /* out of descriptors: the connections are answered with it */
	int paused;          /* listeners off: -n reached or out of descriptors */
	uint64_t fd_wait;    /* ms: out of descriptors, no accept before then */
	uint64_t drain_end;  /* ms: end of a graceful drain, 0 when none */
	uint64_t peak;       /* the most connections open since the last went */
	uint64_t trim_at;    /* the heap is trimmed when the open ones fall to it */
};

static atomic_int hx_stop;  /* leave now */
static atomic_int hx_drain; /* stop accepting, finish what is in flight */
static atomic_int running;  /* workers still in their loop */
/* WHY one socket: a Unix socket cannot be bound once per worker
 * (SO_REUSEPORT is for TCP and UDP); each worker watches its own dup */
static int unix_fd[CFG_MAX_LISTEN];
static ino_t unix_ino[CFG_MAX_LISTEN];
static struct wthread *workers;
static struct ev stop_ev;

static struct wthread *wthread_of(struct worker *w)
{
	return container_of(w, struct wthread, w);
}

static void listeners_set(struct wthread *t, int on)
{
	for (int i = 0; i < t->nlst; i++)
		loop_modify(&t->w.loop, &t->lst[i].ev, on ? EPOLLIN : 0);
	t->paused = !on;
}

/* WHY: the memory of thousands of closed connections stayed with the
 * thread's arena (main.c's trim threshold: 32 MiB), 89 MB after 5,000 h2c
 * closed; given back as they fall to a quarter of their peak, then to a
 * quarter of that down to TRIM_LAST, and when the last went; never at
 * every close of a few (QUIC's rule).
 * WHY the spares first: what the crowd left in the pools and free lists
 * (64 h2 work states of 5.8 KB, 256 header buffers, the kept connections)
 * pinned the pages they sat in; freed before the trim, those go with it.
 * WHY the steps: malloc_trim() gives back the free chunks of a thread's
 * arena but not its top (glibc trims the main arena's top alone; a
 * thread's shrinks in free(), only past M_TOP_PAD, 16 MiB here), so what
 * the connections open at the last trim freed into the top stayed.
 * The worker's arena once 5,000 h1, then 5,000 h2c closed (bench/mem's
 * run, smaps): 1.35 MB resident at a quarter and the last; 1.0 with the
 * spares freed; 0.02 to 0.38 with the steps too (0.02 at rest) */
static void heap_trim(struct wthread *t, uint64_t open)
{
	if (open >= t->peak) {
		t->peak = open + 1;
		t->trim_at = t->peak / 4;
	}
	if (t->peak < TRIM_PEAK || open > t->trim_at)
		return;
	sess_trim(&t->w);
	plan_ext_thread_free();
	xs_thread_free();
	szp_drain(); /* OpenSSL's blocks this thread's pools kept (tls_mem) */
	malloc_trim(0);
	t->trim_at = open / 4 >= TRIM_LAST ? open / 4 : 0;
	if (!open)
		t->peak = 0;
}

/* a connection ended: accept again if -n had paused the listeners; the
 * heap trimmed after a crowd left */
static void conn_gone(struct worker *w)
{
	struct wthread *t = wthread_of(w);

	heap_trim(t, ctr_get(&w->st.conns));
	if (t->paused && !w->draining) {
		t->fd_wait = 0;
		listeners_set(t, 1);
	}
}

/* WHY: set on the listener, Linux copies these options to every accepted
 * socket: one setsockopt per connection saved (the Connection: close row) */
static void conn_setup(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* accept only once the first bytes came: the session reads them at once */
	if (!cfg.no_defer_accept)
		setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &one, sizeof(one));
	if (cfg.sndbuf)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cfg.sndbuf, sizeof(cfg.sndbuf));
}

static void accept_cb(struct loop *l, struct ev *e, uint32_t events)
{
	struct wthread *t = wthread_of(worker_of(l));
	struct listener *lst = container_of(e, struct listener, ev);

	(void)events;
	for (int i = 0; i < ACCEPT_BURST; i++) {
		int fd;

		/* WHY: beyond -n, leave new connections in the kernel's backlog */
		if (sess_count() >= cfg.maxconn) {
			listeners_set(t, 0);
			return;
		}
		fd = accept4(e->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			/* WHY the reserve: a connection left in the backlog waits
			 * for a descriptor with no word why (or spins the loop on
			 * EMFILE, 12,000 failed accepts a second); taken with the
			 * reserve, it is answered at once and the client knows */
			if (nofd_out(errno) &&
			    nofd_refuse(&t->reserve, e->fd, lst->tls, t->w.loop.now_ms) == 0) {
				ctr_add(&t->w.st.pre_close[SPR_NOFD], 1);
				continue;
			}
			/* WHY a pause: no reserve left (another thread took the
			 * slot); a closing connection ends it early */
			if (nofd_out(errno)) {
				listeners_set(t, 0);
				t->fd_wait = t->w.loop.now_ms + EMFILE_PAUSE_MS;
			}
			return;
		}
		if (cfg.debug)
			log_debug("thread %d: accepted fd %d on port %u", t->w.id, fd, lst->port);
		if (sess_accept(&t->w, fd, lst->tls ? lst->port : 0, lst->proxy) < 0)
			close(fd);
	}
}

static void stop_cb(struct loop *l, struct ev *e, uint32_t events)
{
	(void)l, (void)e, (void)events;
}

/* first turn after a drain was asked: no more accepts, idle ones closed */
static void worker_drain_start(struct wthread *t)
{
	for (int i = 0; i < t->nlst; i++) {
		close(t->lst[i].ev.fd);
		t->lst[i].ev.fd = -1;
	}
	t->nlst = 0;
	t->drain_end = t->w.loop.now_ms + cfg.drain_ms;
	sess_drain(&t->w);
}

static void *worker_main(void *arg)
{
	struct wthread *t = arg;
	struct worker *w = &t->w;

	loop_exact_wake();
	if (cfg.io_uring)
		loop_use_ring(&w->loop, w->id);
	while (!hx_stop) {
		/* WHY at most 100 ms: paused listeners and a drain are checked
		 * between turns */
		loop_turn(&w->loop, (t->paused || w->draining) ? 100000 : UINT64_MAX);
		if (hx_drain && !t->drain_end)
			worker_drain_start(t);
		if (t->drain_end && (!sess_live(w) || w->loop.now_ms >= t->drain_end))
			break;
		if (t->paused && !w->draining && sess_count() < cfg.maxconn &&
		    w->loop.now_ms >= t->fd_wait)
			listeners_set(t, 1);
	}
	sess_thread_free(w);
	/* WHY after the streams: they gave theirs back */
	plan_ext_thread_free();
	xs_thread_free();
	xprt_thread_free();
	szp_drain(); /* WHY last: the TLS states freed above gave their blocks to the pools */
	alog_thread_flush(w);
	if (cfg.splice)
		spl_free(&w->spl);
	atomic_fetch_sub(&running, 1);
	return NULL;
}

static int worker_listen_one(struct wthread *t, int i, uint16_t port, int tls)
{
	const struct listen_addr *la = &cfg.addrs[i];
	struct listener *l = &t->lst[t->nlst];
	char name[160];
	int ux = la->ss.ss_family == AF_UNIX;
	int fd = ux ? fcntl(unix_fd[i], F_DUPFD_CLOEXEC, 0) : listen_tcp(la, port);

	if (fd < 0) {
		listen_name(la, port, name, sizeof(name));
		log_err("cannot listen on %s: %s", name, strerror(errno));
		return -1;
	}
	if (!ux)
		conn_setup(fd);
	*l = (struct listener){ .ev = { fd, accept_cb }, .port = port, .tls = (uint8_t)tls, .proxy = la->proxy };
	t->nlst++;
	return loop_watch(&t->w.loop, &l->ev, EPOLLIN);
}

static int worker_listen(struct wthread *t)
{
	for (int i = 0; i < cfg.naddrs; i++) {
		const struct listen_addr *la = &cfg.addrs[i];

		if (worker_listen_one(t, i, la->clear_port, 0) < 0 ||
		    (la->tls_port && worker_listen_one(t, i, la->tls_port, 1) < 0) ||
		    sess_listen(&t->w, la) < 0)
			return -1;
	}
	return 0;
}

static int worker_init(struct wthread *t, int id)
{
	struct worker *w = &t->w;

	w->id = id;
	w->conn_gone = conn_gone;
	rng_seed(&w->rng, (uint64_t)clock_ns() ^ ((uint64_t)id << 48) ^ (uint64_t)getpid());
	/* WHY edge-triggered: the eventfd is shared and never read; level-
	 * triggered, it woke every worker on every turn of a drain (a core
	 * spinning for --drain-timeout) */
	if (loop_init(&w->loop) < 0 || loop_watch(&w->loop, &stop_ev, EPOLLIN | EPOLLET) < 0 ||
	    sess_thread_init(w) < 0 || alog_thread_init(w) < 0)
		return -1;
	if (cfg.splice)
		spl_init(&w->spl);
	if (nofd_init(&t->reserve) < 0)
		return log_err("out of descriptors at start-up"), -1;
	return worker_listen(t);
}

/* WHY: SO_REUSEPORT lets a second hxterm (or anything of this user) take
 * half of a port's connections without a word; refuse unless --share-port */
static int port_free(const struct listen_addr *la, uint16_t port, int type)
{
	char name[160];

	if (listen_free(la, port, type) == 0)
		return 0;
	listen_name(la, port, name, sizeof(name));
	log_err("cannot listen on %s%s: %s%s", name, type == SOCK_DGRAM ? " (UDP)" : "", strerror(errno),
		errno == EADDRINUSE ? " (another process has it; --share-port shares it)" : "");
	return -1;
}

static int ports_free(void)
{
	for (int i = 0; i < cfg.naddrs && !cfg.share_port; i++) {
		const struct listen_addr *la = &cfg.addrs[i];

		if (la->ss.ss_family == AF_UNIX)
			continue; /* WHY: listen_unix() refuses a socket another process answers on */
		if (port_free(la, la->clear_port, SOCK_STREAM) < 0 ||
		    (la->tls_port && port_free(la, la->tls_port, SOCK_STREAM) < 0) ||
		    (la->tls_port && !cfg.no_h3 && port_free(la, la->tls_port, SOCK_DGRAM) < 0))
			return -1;
	}
	return 0;
}

/* the Unix sockets, once for every worker */
static int unix_listen(void)
{
	for (int i = 0; i < cfg.naddrs; i++) {
		const struct listen_addr *la = &cfg.addrs[i];
		char name[160];

		unix_fd[i] = -1;
		if (la->ss.ss_family != AF_UNIX)
			continue;
		if ((unix_fd[i] = listen_unix(la, cfg.nreplace > 0, &unix_ino[i])) < 0) {
			listen_name(la, 0, name, sizeof(name));
			log_err("cannot listen on %s: %s%s", name, strerror(errno),
				errno == EADDRINUSE ? " (another process answers on it)" :
				errno == EEXIST ? " (the path exists and is no socket)" : "");
			return -1;
		}
	}
	return 0;
}

static void unix_close(void)
{
	for (int i = 0; i < cfg.naddrs; i++)
		if (unix_fd[i] >= 0) {
			listen_unix_remove(&cfg.addrs[i], unix_ino[i]);
			close(unix_fd[i]);
			unix_fd[i] = -1;
		}
}

int workers_start(void)
{
	if (ports_free() < 0 || unix_listen() < 0)
		return -1;
	stop_ev = (struct ev){ eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), stop_cb };
	workers = calloc((size_t)cfg.threads, sizeof(*workers));
	if (stop_ev.fd < 0 || !workers)
		return log_err("out of resources at start-up"), -1;
	for (int i = 0; i < cfg.threads; i++)
		if (worker_init(&workers[i], i) < 0)
			return -1;
	atomic_store(&running, cfg.threads);
	for (int i = 0; i < cfg.threads; i++) {
		clockid_t c;

		if (pthread_create(&workers[i].th, NULL, worker_main, &workers[i])) {
			log_err("cannot start thread %d", i);
			return -1;
		}
		if (pthread_getcpuclockid(workers[i].th, &c) == 0)
			atomic_store(&workers[i].cpu_clock, c);
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
		struct wthread *t = &workers[i];

		pthread_join(t->th, NULL);
		for (int j = 0; j < t->nlst; j++)
			close(t->lst[j].ev.fd);
		loop_free(&t->w.loop);
		nofd_free(&t->reserve);
	}
	close(stop_ev.fd);
	free(workers);
	unix_close();
}

void workers_stop(void)
{
	hx_stop = 1;
	workers_wake();
}

const struct wstats *worker_stats(int i)
{
	return workers && i < cfg.threads ? &workers[i].w.st : NULL;
}

/* WHY a clock id, not the thread: a clock of a thread gone answers an
 * error, where pthread_getcpuclockid on one joined is undefined */
double worker_cpu_s(int i)
{
	struct timespec ts;
	clockid_t c = workers && i < cfg.threads ? atomic_load(&workers[i].cpu_clock) : 0;

	if (!c || clock_gettime(c, &ts) < 0)
		return 0;
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

const struct loop *worker_loop(int i)
{
	return workers && i < cfg.threads ? &workers[i].w.loop : NULL;
}


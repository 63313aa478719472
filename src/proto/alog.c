/* The access log (--access-log): a JSON line per request (or one in --access-log-sample), buffered per worker, written by a thread of its own. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alog.h"
#include "config.h"
#include "listen.h"
#include "log.h"
#include "session-t.h"
#include "timer.h"

#define ALOG_BUF   65536
#define ALOG_ROOM  (ALOG_BUF / 2)     /* hand the buffer over past this */
#define ALOG_TICK  1000000            /* us: a quiet worker's lines wait no longer */

/* a batch of lines on its way to the writer */
struct abuf {
	struct abuf *next;
	size_t len;
	char p[ALOG_BUF];
};

struct alog_w {
	struct abuf *b;
	uint64_t seen;                /* requests, for the sample */
	struct timer tm;
	struct worker *w;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static struct abuf *qhead, *qtail;
static int stopping, fd = -1;
static atomic_int reopen_asked;
static _Atomic uint64_t dropped;
static pthread_t th;

static int open_log(void)
{
	if (!strcmp(cfg.access_log, "-"))
		return dup(1);
	return open(cfg.access_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

static void write_batch(struct abuf *b)
{
	size_t off = 0;

	while (off < b->len) {
		ssize_t n = write(fd, b->p + off, b->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* WHY counted: a full disk loses lines, but says how many */
			for (size_t i = off; i < b->len; i++)
				dropped += b->p[i] == '\n';
			return;
		}
		off += (size_t)n;
	}
}

static void *writer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		struct abuf *b;

		while (!qhead && !stopping)
			pthread_cond_wait(&cv, &mu);
		if (!qhead)
			break;
		b = qhead;
		qhead = NULL;
		qtail = NULL;
		pthread_mutex_unlock(&mu);
		if (atomic_exchange(&reopen_asked, 0)) {
			int nfd = open_log();

			if (nfd >= 0) {
				close(fd);
				fd = nfd;
			}
		}
		while (b) {
			struct abuf *next = b->next;

			write_batch(b);
			free(b);
			b = next;
		}
		pthread_mutex_lock(&mu);
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

/* hands <b> to the writer; the worker holds the lock for a pointer or two */
static void hand_over(struct abuf *b)
{
	b->next = NULL;
	pthread_mutex_lock(&mu);
	if (qtail)
		qtail->next = b;
	else
		qhead = b;
	qtail = b;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

int alog_start(void)
{
	if (!cfg.access_log)
		return 0;
	if ((fd = open_log()) < 0) {
		log_err("--access-log %s: %s", cfg.access_log, strerror(errno));
		return -1;
	}
	if (pthread_create(&th, NULL, writer, NULL)) {
		log_err("--access-log: cannot start its thread");
		return -1;
	}
	pthread_setname_np(th, "hxterm-alog");
	return 0;
}

void alog_reopen(void)
{
	if (!cfg.access_log)
		return;

	struct abuf *wake;

	/* WHY once: a burst of SIGHUP is one reopen, not a 64 KiB batch each */
	if (atomic_exchange(&reopen_asked, 1))
		return;
	/* WHY an empty batch: it wakes the writer, which a quiet server would
	 * not until its next line */
	if ((wake = calloc(1, sizeof(*wake))))
		hand_over(wake);
}

void alog_stop(void)
{
	if (fd < 0)
		return;
	pthread_mutex_lock(&mu);
	stopping = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(th, NULL);
	close(fd);
	fd = -1;
}

uint64_t alog_dropped(void)
{
	return dropped;
}

static void flush_w(struct alog_w *a)
{
	if (a->b && a->b->len) {
		hand_over(a->b);
		a->b = NULL;
	}
}

static void tick(struct loop *l, struct timer *t)
{
	struct alog_w *a = container_of(t, struct alog_w, tm);

	flush_w(a);
	timer_arm(&l->timers, &a->tm, l->now_us + ALOG_TICK);
}

int alog_thread_init(struct worker *w)
{
	struct alog_w *a;

	if (!cfg.access_log)
		return 0;
	if (!(a = calloc(1, sizeof(*a))))
		return -1;
	a->w = w;
	a->tm = (struct timer){ 0, 0, tick };
	timer_arm(&w->loop.timers, &a->tm, w->loop.now_us + ALOG_TICK);
	w->alog = a;
	return 0;
}

void alog_thread_flush(struct worker *w)
{
	struct alog_w *a = w->alog;

	if (!a)
		return;
	timer_cancel(&w->loop.timers, &a->tm);
	flush_w(a);
	free(a->b);
	free(a);
	w->alog = NULL;
}

/* <s> as the inside of a JSON string, at most <max> bytes of it */
static char *jesc(char *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c < 0x20 || c >= 0x7f) {
			o = memcpy(o, "\\u00", 4) + 4;
			*o++ = hex[c >> 4];
			*o++ = hex[c & 15];
		} else {
			*o++ = (char)c;
		}
	}
	return o;
}

/* the client: the PROXY header's source when there was one, else the
 * socket's peer */
static void peer_text(struct cpeer peer, char *buf, size_t n)
{
	struct sockaddr_storage ss;
	const struct cinfo *ci = peer.ci ? *peer.ci : NULL;

	if (ci)
		ss = ci->src;
	else
		cpeer_addr(peer.fd, peer.addr, &ss);
	sa_name(&ss, buf, n);
}

void alog_write(struct worker *w, enum st_proto p, const struct exch *x, struct cpeer peer, uint32_t nreq,
		int64_t gen_ns)
{
	struct alog_w *a = w->alog;
	struct timespec now;
	size_t tl = x->rq.target.len;
	char who[INET6_ADDRSTRLEN + 16], *o;

	if (a->seen++ % cfg.access_sample)
		return;
	if (tl > 8192)
		tl = 8192; /* WHY: --max-uri may be larger; the line says it was cut */
	if (a->b && a->b->len + tl * 6 + 512 > ALOG_BUF)
		flush_w(a);
	if (!a->b) {
		if (!(a->b = malloc(sizeof(*a->b)))) {
			dropped++; /* WHY: out of memory drops the line, counted in /metrics */
			return;
		}
		a->b->len = 0;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	peer_text(peer, who, sizeof(who));
	o = a->b->p + a->b->len;
	o += sprintf(o, "{\"time\": %lld.%06ld, \"thread\": %d, \"proto\": \"%s\", \"client\": \"%s\", \"target\": \"",
		     (long long)now.tv_sec, now.tv_nsec / 1000, w->id, st_proto_names[p], who);
	o = jesc(o, x->rq.target.ptr, tl);
	o += sprintf(o, "%s\", \"status\": %u, \"bytes\": %llu, \"wait_ms\": %llu, \"gen_us\": %.3f, \"conn_req\": %u",
		     tl < x->rq.target.len ? "..." : "", x->rs.status, (unsigned long long)x->rs.body,
		     (unsigned long long)x->plan.wait_ms, gen_ns / 1e3, nreq);
	if (x->rq.client.len) {
		o = memcpy(o, ", \"x_client\": \"", 15) + 15;
		o = jesc(o, x->rq.client.ptr, x->rq.client.len);
		*o++ = '"';
	}
	o = memcpy(o, "}\n", 2) + 2;
	a->b->len = (size_t)(o - a->b->p);
	if (a->b->len > ALOG_ROOM)
		flush_w(a);
}

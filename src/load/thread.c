/* A hxload thread: its loop, its connections, the window and its timeouts, the intervals it publishes. */
#include <openssl/ssl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "xprt.h"
#include "common.h"
#include "lc_conn.h"
#include "lc_fate.h"
#include "lc_record.h"
#include "lc_sched.h"
#include "lc_thread.h"
#include "qring.h"
#include "szpool.h"
#include "timer.h"

#define TICK_US 100000 /* housekeeping: timeouts, intervals, the end */

/* WHY from the connection after the last that took some, not the first:
 * a connection with a free slot took every send time due, so below the
 * rate one connection carries, one of -c 10 carried them all (-R 1000:
 * 1,994 of 2,000 requests, the nine others idle), so a proxy balancing
 * connections, or --source's addresses by source hash, saw one client,
 * and an idle connection met the proxy's idle timeout. Now the turns
 * rotate: each connection its share, and the send times due together
 * still go on one connection (h2, h3: one packet) */
static void dispatch(struct lc_thread *t)
{
	for (int k = 0, i = t->due_first; k < t->nconns && t->due_n; k++, i = i + 1 == t->nconns ? 0 : i + 1) {
		struct lc_conn *c = &t->conns[i];

		if (c->state == LS_READY && c->inflight < (uint32_t)lc_o->depth) {
			lc_conn_step(c);
			t->due_first = i + 1 == t->nconns ? 0 : i + 1;
		} else if (lc_o->hs && !c->state && !lc_hs_idle(t)) {
			lc_conn_open(c);
		}
	}
}

/* open loop: every send time now due is queued, then sent where a slot is free */
static void due_tick(struct lc_thread *t)
{
	lc_due_fill(t);
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
			lc_conn_each(&t->conns[i], count_inflight);
}

/* the oldest exchange of each connection against --timeout */
static void timeouts(struct lc_thread *t)
{
	for (int i = 0; i < t->nconns; i++) {
		struct lc_conn *c = &t->conns[i];
		uint64_t oldest = lc_conn_oldest(c);

		if (oldest != UINT64_MAX && t->loop.now_us > oldest + lc_o->timeout_us) {
			/* WHY: the loop can see both late; a deadline after the window's end is in flight at it */
			if (!t->closed_us && oldest + lc_o->timeout_us >= t->end_us)
				window_close(t);
			lc_error(c, E_TIMEOUT);
			lc_reset(c);
		}
	}
}

static void ival_reset(struct lc_thread *t, uint64_t now)
{
	memset(t->ival.h, 0, sizeof(t->ival.h));
	t->ival.from_us = now;
	t->ival.reqs = 0;
	t->ival.hits = t->ival.misses = 0;
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

	if (!lc_o->series_us || now < t->record_from_us)
		return;
	if (!t->ival.from_us) {
		ival_reset(t, t->record_from_us);
		t->next_ival_us = t->record_from_us + lc_o->series_us;
	}
	if (now >= t->next_ival_us) {
		/* WHY not the interval that reaches the window's end: the answers
		 * to its requests still in flight at the close are its own, and
		 * published now they made a line of their own, a few requests in
		 * a few ms (-R 200 -d 2 --interval 0.5: 5 lines, the last far
		 * from 200 req/s); the thread's end publishes it with them */
		if (t->next_ival_us >= t->end_us) {
			t->next_ival_us = UINT64_MAX;
			return;
		}
		ival_publish(t, MIN(now, t->end_us));
		while (t->next_ival_us <= now)
			t->next_ival_us += lc_o->series_us;
	}
}

/* the loop's wait: to the next send, tick or interval */
static uint64_t next_wake(const struct lc_thread *t, uint64_t next_tick)
{
	uint64_t next = next_tick, now = t->loop.now_us;

	if (lc_open_loop() && !t->closed_us)
		next = MIN(next, t->next_due_us);
	if (lc_o->series_us && t->next_ival_us)
		next = MIN(next, t->next_ival_us);
	if (!t->closed_us)
		next = MIN(next, t->end_us);
	return next > now ? MIN(next - now, (uint64_t)TICK_US) : 0;
}

void *lc_thread_main(void *arg)
{
	struct lc_thread *t = arg;
	uint64_t next_tick = 0;

	lc_self = t;
	/* WHY not by default: at -R 200000 (h3 -c 10 -m 10) exact wake-ups cost
	 * hxload 5.0 us a request against 3.25 and the server 4.35 against 3.65
	 * (3 runs alternating), where the kernel's slack let the loop wake late
	 * and send what was due in one go: p50 0.150 ms against 0.084, its own
	 * lateness (the queue histogram) */
	if (lc_o->exact_wake)
		loop_exact_wake();
	for (int i = 0; i < t->nconns && !lc_hs_idle(t); i++)
		lc_conn_open(&t->conns[i]);
	while (!lc_fatal()) {
		loop_turn(&t->loop, next_wake(t, next_tick));
		if (lc_open_loop() && !t->closed_us)
			due_tick(t);
		if (t->loop.now_us >= next_tick) {
			timeouts(t);
			next_tick = t->loop.now_us + TICK_US;
		}
		ival_tick(t);
		if (!t->closed_us && (lc_interrupted() || t->loop.now_us >= t->end_us ||
				      (!t->budget && !inflight_any(t) && !t->due_n)))
			window_close(t);
		if (t->closed_us && (lc_interrupted() || !inflight_any(t) ||
				     t->loop.now_us >= t->closed_us + lc_o->timeout_us))
			break;
	}
	for (int i = 0; i < t->nconns; i++) {
		timer_cancel(&t->loop.timers, &t->conns[i].nc.tm);
		if (t->conns[i].state == LS_READY)
			lc_conn_each(&t->conns[i], end_timeout);
		if (t->conns[i].state)
			lc_conn_close(&t->conns[i], !t->conns[i].inflight);
	}
	/* WHY here: its connections are gone, and the pools (nghttp3's and
	 * OpenSSL's blocks) are this thread's */
	szp_drain();
	xprt_thread_free();
	if (lc_o->series_us && t->ival.from_us && (t->ival.reqs || MIN(t->loop.now_us, t->end_us) > t->ival.from_us))
		ival_publish(t, t->ival.reqs ? MAX(t->loop.now_us, t->ival.from_us + 1) : MIN(t->loop.now_us, t->end_us));
	if (lc_log_on())
		lc_log_flush(t);
	atomic_store_explicit(&t->ended, 1, memory_order_release);
	return NULL;
}

/* WHY mapped, not calloc'd: its pages stay untouched until a connection
 * uses their slots (a calloc under glibc's mmap threshold, which grows as
 * big blocks are freed, is zeroed by hand: every page resident); no huge
 * pages, or one slot touched would make 2 MiB of them resident */
static int slots_map(struct lc_thread *t)
{
	void *p;

	t->ex_len = (size_t)t->nconns * (size_t)lc_o->depth * sizeof(struct lc_ex);
	if (!t->ex_len)
		return 0;
	p = mmap(NULL, t->ex_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return t->ex_len = 0, -1;
	madvise(p, t->ex_len, MADV_NOHUGEPAGE);
	t->ex = p;
	return 0;
}

void lc_thread_init(struct lc_thread *t, int id, uint64_t start)
{
	t->id = id;
	if (loop_init(&t->loop) < 0)
		lc_die("%s", "cannot create an epoll set");
	t->loop.now_us = start;
	t->start_us = start;
	t->record_from_us = start + lc_o->warmup_us;
	t->end_us = start + lc_o->warmup_us + lc_o->duration_us;
	t->nconns = lc_o->conns / lc_o->threads + (id < lc_o->conns % lc_o->threads);
	t->budget = lc_o->total ? lc_o->total / (uint64_t)lc_o->threads +
				 ((uint64_t)id < lc_o->total % (uint64_t)lc_o->threads) : UINT64_MAX;
	rng_seed(&t->rng, start + ((uint64_t)lc_o->shard * 65536 + (uint64_t)id) * 0x9e3779b97f4a7c15ULL);
	if (lc_open_loop())
		lc_due_init(t);
	if (lc_log_on() && !(t->logbuf = malloc(65536)))
		lc_die("%s", "out of memory");
	if (!(t->conns = calloc((size_t)t->nconns, sizeof(*t->conns))) || slots_map(t) < 0)
		lc_die("%s", "out of memory");
	for (int i = 0; i < t->nconns; i++)
		lc_conn_init(&t->conns[i], t, i);
}

void lc_thread_free(struct lc_thread *t)
{
	for (int i = 0; i < t->nconns; i++)
		lc_conn_free(&t->conns[i]);
	pool_drain(&t->inb);
	pool_drain(&t->outb);
	free(t->conns);
	if (t->ex_len)
		munmap(t->ex, t->ex_len);
	free(t->due);
	free(t->logbuf);
	free(t->qbuf);
	qring_free(t->qring);
	while (t->nsess)
		SSL_SESSION_free(t->sess[--t->nsess]);
	while (t->nqtick)
		free(t->qtick[--t->nqtick]);
	loop_free(&t->loop);
}

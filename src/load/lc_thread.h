/* hxload's threads: a thread's state (its loop, connections, schedule, figures), its clock and window, and thread.c's and protos.c's calls. */
#ifndef HX_LC_THREAD_H
#define HX_LC_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "clock.h"
#include "lc_opts.h"
#include "lc_stats.h"
#include "loop.h"
#include "pool.h"
#include "rng.h"

#define LC_BUFS_KEPT 16 /* TCP buffers kept per thread for reuse when no connection holds them */
#define LC_TICKETS 16 /* TLS sessions kept per thread, to resume */
typedef struct ssl_session_st SSL_SESSION;
struct qring;

struct lc_conn;

struct lc_thread {
	struct loop loop;            /* epoll, timers, the clock (loop.now_us) */
	int id;
	pthread_t th;
	uint64_t start_us, end_us, record_from_us;
	uint64_t closed_us;          /* the window closed (0: open); in flight then is waited for */
	uint64_t tail_us;            /* the last answer counted after it closed (0: none) */
	struct lc_conn *conns;
	int nconns;
	struct lc_ex *ex;            /* the connections' exchange slots, slot-major (LC_EX), mapped */
	size_t ex_len;               /* ... its length in bytes */
	struct pool inb, outb;       /* TCP connections' input buffers and output blocks, held while they work */
	uint64_t budget;             /* requests this thread may still start */
	uint64_t started, done;
	uint64_t fresh;              /* connections opened that have not started a request */
	struct rng rng;              /* --urls: the path of each request */
	SSL_SESSION *sess[LC_TICKETS]; /* TLS sessions to resume, the newest last */
	int nsess;
	int tls_group;               /* the key-share group the server chose last (TLS 1.3, a NID; 0: none yet) */
	uint8_t *qtick[LC_TICKETS];  /* h3: sessions to resume (lc_h3.c's blobs), the newest last */
	int nqtick;
	int64_t hs_cur[3];           /* --handshakes: each kind's credit in the interleave (hs.c) */
	/* open loop: intended send times waiting for a free slot */
	uint64_t next_due_us, due_k;  /* the next send time, this thread's k-th */
	uint64_t *due;
	uint32_t due_head, due_n, due_cap;
	int due_first;                /* the connection dispatch offers them first: the one after the last that took some */
	/* results */
	struct lc_stats st;
	uint64_t ival_errs, ival_bytes; /* errors, bytes when the current interval began */
	uint64_t next_ival_us;
	struct lc_ival ival;         /* the interval being recorded */
	struct lc_ival ring[LC_IVAL_RING];
	_Atomic uint32_t ival_pub;   /* intervals published in <ring> */
	_Atomic uint32_t ival_read;  /* of those, read by the main thread */
	_Atomic int ended;
	_Atomic uint64_t progress;   /* requests done, read by the main thread */
	char *logbuf;                /* --log: lines not yet written */
	size_t loglen;
	uint8_t *qbuf;               /* h3: a GSO burst out, GRO reads in, the shared socket (LC_QBUF, lc_h3.h) */
	struct qring *qring;         /* h3: its sockets' reads and sends, many a system call (NULL: one each) */
	uint64_t held_us;            /* a clock reading a burst shares (lc_clock), 0 none */
	char ignored[LC_IGN];        /* the first X-Hxterm-Ignored the server sent, or "" */
	struct lc_why why;           /* the first answer of an unexpected status: once a run */
};

/* a thread's clock and window */
static inline uint64_t lc_now_us(void)
{
	return (uint64_t)clock_ns() / 1000;
}

/* Now for <t>'s exchanges: the reading a burst holds, else the clock's.
 * WHY: h3 reads a round's datagrams and sends its requests in bursts; one
 * reading at each (the reception, then the send) replaced three a request
 * (lc_take's and lc_record's), 45-60 ns each here (kvm-clock's vDSO) */
static inline uint64_t lc_clock(const struct lc_thread *t)
{
	return t->held_us ? t->held_us : lc_now_us();
}

/* an open loop: requests go by the schedule (-R, --stages) */
static inline int lc_open_loop(void)
{
	return lc_o->nstages > 0;
}

/* <at> falls in <t>'s measured window */
static inline int lc_in_window(const struct lc_thread *t, uint64_t at)
{
	return at >= t->record_from_us && at < t->end_us;
}

/* every protocol's library globals, before the threads start */
int lc_protos_init(void);
void lc_protos_free(void);
void lc_thread_init(struct lc_thread *t, int id, uint64_t start);
void *lc_thread_main(void *arg);
void lc_thread_free(struct lc_thread *t);
/* a path for a new request of <t>, by the --urls weights */
uint16_t lc_path_pick(struct lc_thread *t);

#endif

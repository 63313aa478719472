/* hxload's threads and connections: their state, the client protocols' rows, and what a protocol calls back. */
#ifndef HX_LC_CONN_H
#define HX_LC_CONN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "clock.h"
#include "h1_parse.h"
#include "lc_opts.h"
#include "lc_stats.h"
#include "loop.h"
#include "oq.h"
#include "pool.h"
#include "rng.h"
#include "xprt.h"

typedef struct ssl_ctx_st SSL_CTX;
#define LC_INBUF 65536 /* a TCP connection's input buffer and output scratch */
#define LC_BUFS_KEPT 16 /* of those, kept per thread for reuse when no connection holds them */
#define LC_TICKETS 16 /* TLS sessions kept per thread, to resume */
typedef struct ssl_session_st SSL_SESSION;

/* one in-flight exchange */
struct lc_ex {
	int64_t id;                  /* h2/h3 stream, -1 when free */
	uint64_t t0;                 /* us: intended (open loop) or actual send */
	uint64_t sent_us;            /* us: when it was taken to be sent */
	uint64_t head_us;            /* us: the response head came, 0: not yet */
	uint64_t server_us;          /* from X-rsp, UINT64_MAX when absent */
	uint64_t pace_us;            /* X-rsp pace=: the server's pauses in the body, 0: none */
	uint64_t bytes;              /* body bytes received */
	int64_t announced;           /* X-rsp size=, -1 when absent */
	uint64_t made;               /* X-Hxterm-Made (epoch us), 0 when absent: lc_hit */
	uint64_t body_left;          /* request body still to send (h2, h3) */
	uint16_t status;
	uint16_t path;               /* index in lc_target.paths */
	uint8_t bad;                 /* body mismatch seen */
	uint8_t random;              /* not the pattern (R=1 and the like) */
	uint8_t counted;             /* sent inside the measured window */
	uint8_t sse_st, sse_m;       /* --sse: where the parser is in a line, how much of "data: " it saw */
	uint64_t sse_ts;             /* ... the send time (epoch us) being read */
	uint64_t sse_prev_ts, sse_prev_at; /* ... the last event's send time and coming (epoch us) */
	uint64_t sse_first_us, sse_last_us; /* ... the first and the last event's coming (lc_now_us) */
	uint32_t sse_n;              /* ... events come */
	void *sse_z;                 /* ... a gzip body's inflater (a proxy's compression), or NULL */
	uint8_t grpc_st;             /* grpc://: the grpc-status + 1, 0: none came */
	uint8_t gr_head;             /* ... bytes of the message prefix still to read (0: in a message) */
	uint32_t gr_left;            /* ... the message's bytes still to read */
	struct lc_why *why;          /* its status was unexpected, the thread's first: its body quoted here */
};

struct lc_thread;

struct lc_conn {
	struct ev ev;
	struct xprt x;
	struct timer tm;
	struct lc_thread *t;
	enum lc_proto proto;
	int idx;
	uint8_t state;               /* LS_* */
	uint8_t rd_ready, wr_ready;
	uint8_t rdhup;               /* the peer shut its side: read on to EOF */
	uint8_t got_bytes;           /* something came back on this connection */
	uint8_t up;                  /* its protocol started: 1, and in the window: 2 */
	uint8_t goaway;              /* h2: the server's GOAWAY came: 1 NO_ERROR (a graceful end), 2 another */
	uint8_t h2_set;              /* h2: the server's first SETTINGS came */
	uint32_t h2_streams;         /* ... its SETTINGS_MAX_CONCURRENT_STREAMS, the last said */
	int32_t goaway_sid;          /* ... its GOAWAY's last stream id */
	uint8_t err_kind;            /* enum lc_err of what ended it: its requests lost count as that */
	uint32_t inflight;
	uint32_t taken;              /* exchanges started on this connection */
	uint64_t open_us, up_us;     /* connect() called, TCP connected */
	int alert;                   /* the server's fatal TLS alert, 0: none */
	uint8_t hs_kind, hs_got;     /* --handshakes: the kind asked, the kind it was (HS_KINDS: not yet) */
	uint8_t hs_early, hs_headed; /* ... its early data taken; its first head timed */
	uint8_t hs_offered;          /* ... a ticket was offered */
	/* in-flight exchanges: a FIFO on HTTP/1, slots on h2/h3 (-m of them) */
	struct lc_ex *ex;
	uint32_t ex_head;
	char *in;                    /* from the thread's pool while bytes wait in it, else NULL */
	uint32_t in_len, in_size;
	uint8_t h1_body;             /* reading a body */
	uint8_t h1_chunked;
	uint8_t h1_close;            /* close-delimited body */
	uint64_t h1_left;            /* Content-Length left */
	struct h1_chunk ck;
	struct oq oq;                /* its block from the thread's pool while bytes are staged */
	void *proto_state;           /* nghttp2 session, QUIC connection */
};

#define LS_CONNECTING 1
#define LS_TLS        2
#define LS_READY      3

struct lc_thread {
	struct loop loop;            /* epoll, timers, the clock (loop.now_us) */
	int id;
	pthread_t th;
	uint64_t start_us, end_us, record_from_us;
	uint64_t closed_us;          /* the window closed (0: open); in flight then is waited for */
	struct lc_conn *conns;
	int nconns;
	struct pool inb, outb;       /* TCP connections' input buffers and output blocks, held while they work */
	uint64_t budget;             /* requests this thread may still start */
	uint64_t started, done;
	uint64_t fresh;              /* connections opened that have not started a request */
	struct rng rng;              /* --urls: the path of each request */
	SSL_SESSION *sess[LC_TICKETS]; /* TLS sessions to resume, the newest last */
	int nsess;
	uint8_t *qtick[LC_TICKETS];  /* h3: sessions to resume (lc_h3.c's blobs), the newest last */
	int nqtick;
	int64_t hs_cur[3];           /* --handshakes: each kind's credit in the interleave (hs.c) */
	/* open loop: intended send times waiting for a free slot */
	uint64_t next_due_us, due_k;  /* the next send time, this thread's k-th */
	uint64_t *due;
	uint32_t due_head, due_n, due_cap;
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
	uint8_t *qbuf;               /* h3: a GSO batch out (QW_BUF), then a GRO batch in (LC_QRX) */
	char ignored[LC_IGN];        /* the first X-Hxterm-Ignored the server sent, or "" */
	struct lc_why why;           /* the first answer of an unexpected status: once a run */
};

/* ---------- the client protocols: one row each ---------- */

/* Return convention: int functions give 0, -1 when the connection is lost
 * (reset, retried), 1 when the server closed it as it said (renewed). */
struct lc_protocol {
	const char *name;
	int fifo;                    /* exchanges answered in order (HTTP/1) */
	/* library globals, made before the threads start and freed after */
	int (*global_init)(void);
	void (*global_free)(void);
	/* a connection of its own (QUIC over UDP); NULL: TCP, then TLS */
	int (*open)(struct lc_conn *c);
	/* the TCP (and TLS) connection is up */
	int (*start)(struct lc_conn *c);
	/* its socket is ready: read and write what can be */
	int (*io)(struct lc_conn *c);
	/* frees its per-connection state */
	void (*free)(struct lc_conn *c);
	/* 1: a --close connection whose exchanges are done stays open a while
	 * (h3 --0rtt: the server's ticket for the next one is yet to come);
	 * NULL: never */
	int (*linger)(struct lc_conn *c);
};

extern const struct lc_protocol lc_h1, lc_h2, lc_h3, lc_ws;

/* ---------- a thread's clock and window ---------- */

static inline uint64_t lc_now_us(void)
{
	return (uint64_t)clock_ns() / 1000;
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

/* ---------- record.c: what a protocol calls as its exchanges go ---------- */

/* Starts exchange <e> on <c> if one may start now: returns 1 and fills
 * <e> (times, path), or 0. */
int lc_take(struct lc_conn *c, struct lc_ex *e);
/* the response head of <e> arrived */
void lc_head(struct lc_conn *c, struct lc_ex *e, unsigned status);
void lc_record(struct lc_conn *c, struct lc_ex *e);
void lc_error(struct lc_conn *c, enum lc_err kind);
/* the first bytes of a cleartext connection: -1 when the server speaks
 * another protocol (the run stops, one line says which) */
int lc_first_bytes(struct lc_conn *c, const char *p, size_t n);
/* exchange <e> is lost (stream reset): counted, not recorded */
void lc_lost(struct lc_conn *c, struct lc_ex *e);
/* <e> alone failed for <kind> (a stream reset, a request never submitted):
 * its connection goes on */
void lc_fail(struct lc_conn *c, struct lc_ex *e, enum lc_err kind);
void lc_verify(struct lc_ex *e, const char *p, size_t n);
/* h1: the response head at <p> (<n> bytes) of <e>: its status line kept
 * when <e>'s answer is the one the report quotes */
void lc_status_line(struct lc_ex *e, const char *p, size_t n);
/* --sse: <n> body bytes of <e> read as events (lc_verify hands them on) */
void lc_sse_feed(struct lc_ex *e, const char *p, size_t n);
/* --sse: <e>'s body is gzip (HTTP/1's Content-Encoding): inflated before it
 * is read ... */
void lc_sse_gzip(struct lc_ex *e);
/* ... and the inflater freed when the exchange ends */
void lc_sse_done(struct lc_ex *e);
/* --sse: a stream answered whole: its first and last event's times, its events per second */
void lc_sse_end(const struct lc_ex *e);
/* grpc://: <n> body bytes of <e> read as length-prefixed messages */
void lc_grpc_feed(struct lc_ex *e, const char *p, size_t n);
/* the thread running (its figures, for what is fed bytes without it) */
extern __thread struct lc_thread *lc_self;
/* reads X-rsp into <e> */
void lc_xrsp(struct lc_ex *e, const char *v, size_t len);
/* X-Hxterm-Ignored: the server did not know these keys of the URL (a
 * typo?); the first one a thread sees is kept for the report */
void lc_ignored(struct lc_thread *t, const char *v, size_t len);
/* --log FILE, before the threads start: 0 or -1 */
int lc_log_open(const char *file);
/* whether --log is on; the lines <t> still holds, written */
int lc_log_on(void);
void lc_log_flush(struct lc_thread *t);

/* ---------- conn.c: a connection from connect to close ---------- */

/* which --source address <c> binds to: the connection's number in the run */
uint32_t lc_conn_source(const struct lc_conn *c);
/* the rows of the client protocols, by enum lc_proto (protos.c gives them) */
void lc_conn_protocols(const struct lc_protocol *const *rows);
/* <c>, the <idx>-th of thread <t>: its buffers; exits 2 out of memory */
void lc_conn_init(struct lc_conn *c, struct lc_thread *t, int idx);
void lc_conn_free(struct lc_conn *c);
/* <c>'s input buffer and output block, taken from its thread's pools for
 * its protocol's turn: 0, or -1 out of memory */
int lc_bufs_take(struct lc_conn *c);
/* ... and given back when nothing waits in them (all of them when <all>) */
void lc_bufs_put(struct lc_conn *c, int all);
/* opens <c> (again, when it is closed) */
void lc_conn_open(struct lc_conn *c);
/* a ready <c> takes what may start and does its I/O */
void lc_conn_step(struct lc_conn *c);
/* closes <c>: its protocol state freed, its exchanges dropped */
void lc_conn_close(struct lc_conn *c);
/* calls <fn> on each exchange in flight on <c> */
void lc_conn_each(struct lc_conn *c, void (*fn)(struct lc_conn *, struct lc_ex *));
/* the oldest exchange in flight on <c> was sent at: us, UINT64_MAX: none */
uint64_t lc_conn_oldest(const struct lc_conn *c);
/* <e> was refused unprocessed (a stream above a GOAWAY's last id,
 * REFUSED_STREAM): sent again on a new connection, counted as retried */
void lc_retry(struct lc_conn *c, struct lc_ex *e);
/* a connection's handshake ended (QUIC: the whole of it) */
void lc_conn_up(struct lc_conn *c, int resumed);
/* closes <c> (its protocol state freed) and schedules a new connection */
void lc_reset(struct lc_conn *c);

/* ---------- sched.c: the open-loop schedule of a thread ---------- */

/* the queue of <t>'s send times; exits 2 out of memory */
void lc_due_init(struct lc_thread *t);
/* every send time now due goes into the queue, whatever the server does */
void lc_due_fill(struct lc_thread *t);
/* the send time <t0> goes back at the head of the queue (its exchange is
 * sent again); 0, or -1 when the queue is full */
int lc_due_unshift(struct lc_thread *t, uint64_t t0);
/* the next send time in the queue, taken out; 0 when none */
int lc_due_take(struct lc_thread *t, uint64_t *due);

/* ---------- fate.c: whether the run goes on ---------- */

/* SIGINT, SIGTERM: the threads stop */
void lc_interrupt(void);
int lc_interrupted(void);
/* the one line saying why no connection could be made, or NULL */
const char *lc_fatal(void);
/* one line saying why nothing can work (a protocol mismatch); the run stops */
void lc_fatal_set(const char *msg);
/* a response came: nothing is fatal that works once */
void lc_success(void);
int lc_succeeded(void);
/* a cleartext connection closed before a byte came: how many so far */
int lc_silent_close(void);
/* <t> starts nothing more: interrupted, fatal, or its window closed */
static inline int lc_run_over(const struct lc_thread *t)
{
	return lc_interrupted() || lc_fatal() || t->closed_us;
}

/* ---------- thread.c, protos.c: the threads ---------- */

/* every protocol's library globals, before the threads start */
int lc_protos_init(void);
void lc_protos_free(void);
void lc_thread_init(struct lc_thread *t, int id, uint64_t start);
void *lc_thread_main(void *arg);
void lc_thread_free(struct lc_thread *t);
/* a path for a new request of <t>, by the --urls weights */
uint16_t lc_path_pick(struct lc_thread *t);

#endif

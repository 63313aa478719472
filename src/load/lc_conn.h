/* hxload's connections: an exchange, a connection, the client protocols' rows, and conn.c's calls (a connection from connect to close). */
#ifndef HX_LC_CONN_H
#define HX_LC_CONN_H

#include <stdint.h>

#include "lc_opts.h"
#include "lc_reader.h"
#include "lc_stats.h"
#include "nconn.h"
#include "oq.h"

typedef struct ssl_ctx_st SSL_CTX;
#define LC_INBUF 65536 /* a TCP connection's input buffer and output scratch */

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
	int64_t h2_swin;             /* h2 (ours): the stream's send window */
	uint32_t h2_rcvd;            /* ... DATA bytes read since its credit was last given back */
	uint16_t status;
	uint16_t path;               /* index in lc_target.paths */
	uint8_t random;              /* not the pattern (R=1 and the like) */
	uint8_t counted;             /* sent inside the measured window */
	struct lc_why *why;          /* its status was unexpected, the thread's first: its body quoted here */
	union lc_rd_slot rd;         /* the run's body reader's state (lc_reader.h), zeroed at the start */
};

struct lc_thread;

/* The network part is the server's (nconn.h): its flags hold the readiness
 * (NC_RD_READY, NC_WR_READY, NC_RDHUP), its why the enum lc_err of what
 * ended it (its requests lost count as that), its proto the enum lc_proto.
 * WHY hs_offered and hellos beside the state bytes: in the hole before
 * h2_streams, so the base's last_act (unused here) costs the struct nothing */
struct lc_conn {
	struct nconn nc;             /* first: ev, x, tm, flags, why, proto */
	struct lc_thread *t;
	int idx;
	uint8_t state;               /* LS_* */
	uint8_t got_bytes;           /* something came back on this connection */
	uint8_t up;                  /* its protocol started: 1, and in the window: 2 */
	uint8_t goaway;              /* h2: the server's GOAWAY came: 1 NO_ERROR (a graceful end), 2 another */
	uint8_t h2_set;              /* h2: the server's first SETTINGS came */
	uint8_t hs_offered;          /* --handshakes: a ticket was offered */
	uint8_t hellos;              /* TLS: ClientHellos sent (2: the server asked for another key share) */
	uint32_t h2_streams;         /* h2: the server's SETTINGS_MAX_CONCURRENT_STREAMS, the last said */
	int32_t goaway_sid;          /* ... its GOAWAY's last stream id */
	uint32_t inflight;
	uint32_t taken;              /* exchanges started on this connection */
	uint32_t ex_hint;            /* h2: the slot the last frame was for (valid below ex_used) */
	uint64_t open_us, up_us;     /* connect() called, TCP connected */
	int alert;                   /* the server's fatal TLS alert, 0: none */
	uint8_t hs_kind, hs_got;     /* --handshakes: the kind asked, the kind it was (HS_KINDS: not yet) */
	uint8_t hs_early, hs_headed; /* ... its early data taken; its first head timed */
	/* in-flight exchanges: a FIFO on HTTP/1, slots on h2/h3 (-m of them),
	 * slot i at LC_EX(c, i) */
	struct lc_ex *ex;
	uint32_t ex_head;
	uint32_t ex_used;            /* h2/h3: slots handed out since it opened (the lowest first); the rest untouched */
	char *in;                    /* from the thread's pool while bytes wait in it, else NULL */
	uint32_t in_len, in_size;
	struct oq oq;                /* its block from the thread's pool while bytes are staged */
	void *proto_state;           /* nghttp2 session, QUIC connection */
};

/* WHY slot-major, its thread's connections apart (thread.c maps the
 * block): a slot never used stays an untouched page, so a connection with
 * one request in flight holds one slot, not -m (12.1 KiB an idle h2c
 * connection at -m 10, every slot resident); needs lc_thread.h */
#define LC_EX(c, i) (&(c)->ex[(size_t)(i) * (size_t)(c)->t->nconns])
/* ... and the slot number of <e>, one of <c>'s */
#define LC_EX_IDX(c, e) ((size_t)((e) - (c)->ex) / (size_t)(c)->t->nconns)

/* HTTP/1's FIFO: its oldest exchange is done (WHY back to slot 0 when
 * none is left: one request at a time keeps to one slot, LC_EX) */
static inline void lc_ex_shift(struct lc_conn *c)
{
	c->inflight--;
	c->ex_head = c->inflight ? (c->ex_head + 1) % (uint32_t)lc_o->depth : 0;
}

#define LS_CONNECTING 1
#define LS_TLS        2
#define LS_READY      3

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
	/* a clean end: its last words (h2: GOAWAY NO_ERROR) written if the
	 * socket takes them, never waited for; NULL: none */
	void (*bye)(struct lc_conn *c);
	/* frees its per-connection state */
	void (*free)(struct lc_conn *c);
	/* 1: a --close connection whose exchanges are done stays open a while
	 * (h3 --0rtt: the server's ticket for the next one is yet to come);
	 * NULL: never */
	int (*linger)(struct lc_conn *c);
};

extern const struct lc_protocol lc_h1, lc_h2, lc_h2x, lc_h3, lc_ws;

struct qtls;
/* lc_h3.c: the HTTP/3 client's credentials (--cacert, --cert), for --idle's connections */
const struct qtls *lc_h3_qtls(void);

/* ---------- conn.c: a connection from connect to close ---------- */

/* which --source address <c> binds to: the connection's number in the run */
uint32_t lc_conn_source(const struct lc_conn *c);
/* the rows of the client protocols, by enum lc_proto (protos.c gives them) */
void lc_conn_protocols(const struct lc_protocol *const *rows);
/* <c>, the <idx>-th of thread <t>: its buffers and its column of the
 * thread's exchange slots (<t->ex>); exits 2 out of memory */
void lc_conn_init(struct lc_conn *c, struct lc_thread *t, int idx);
void lc_conn_free(struct lc_conn *c);
#define LC_RECV_REFUSED (-3) /* lc_conn_recv(): the first bytes said the URL is wrong (the run stops) */
/* A TCP protocol's read into <buf> (<room> bytes), its readiness kept:
 * the bytes read (> 0), XPRT_AGAIN when none wait, 0 at the server's end,
 * XPRT_ERROR, or LC_RECV_REFUSED */
long lc_conn_recv(struct lc_conn *c, char *buf, size_t room);
/* <c>'s input buffer and output block, taken from its thread's pools for
 * its protocol's turn: 0, or -1 out of memory */
int lc_bufs_take(struct lc_conn *c);
/* ... and given back when nothing waits in them (all of them when <all>) */
void lc_bufs_put(struct lc_conn *c, int all);
/* opens <c> (again, when it is closed) */
void lc_conn_open(struct lc_conn *c);
/* a ready <c> takes what may start and does its I/O */
void lc_conn_step(struct lc_conn *c);
/* closes <c>: its protocol state freed, its exchanges dropped; <done>:
 * the client is done with it (not lost), so TLS's close_notify goes first */
void lc_conn_close(struct lc_conn *c, int done);
/* h2/h3: a free slot of <c>, the lowest (one never used only when all the
 * used ones are busy), NULL when all -m are */
struct lc_ex *lc_ex_free(struct lc_conn *c);
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

#endif

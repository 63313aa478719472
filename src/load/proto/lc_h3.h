/* hxload's HTTP/3 client, private: the connection state its files share (transport, requests, tickets). */
#ifndef HX_LC_H3_H
#define HX_LC_H3_H

#include <gnutls/gnutls.h>
#include <nghttp3/nghttp3.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <sys/socket.h>

#include "clock.h"
#include "hpack.h"
#include "list.h"
#include "h3read.h"
#include "lc_conn.h"
#include "lc_fate.h"
#include "lc_record.h"
#include "lc_thread.h"
#include "qmem.h"
#include "qtls.h"
#include "qwrite.h"
#include "timer.h"

struct q;

#define LC_H3S_INLINE 224 /* bytes of a request's frames kept in its stream; more: malloc */

/* one request stream of ours (lc_h3_tx.c): its frames sent, its response
 * read (lc_h3_read.c); ngtcp2's user data for the stream, kept until
 * ngtcp2 closes it (WHY: the bytes it sent stay until acknowledged) */
struct lc_h3s {
	struct h3r r;          /* its response, read */
	struct list ready;     /* on q->txq while it has something to send */
	struct list all;       /* on q->streams while open, q->spare once closed */
	struct q *q;
	struct lc_ex *e;       /* its exchange; NULL once that left it */
	int64_t id;
	uint64_t off;          /* stream bytes written */
	uint64_t len;          /* its bytes in all: the frames' heads, then the body */
	uint8_t *hd;           /* the HEADERS frame, then the DATA frame's head */
	uint8_t *mem;          /* where they are when not in in[]: malloc'd */
	uint32_t hlen;         /* their bytes */
	uint8_t st;            /* LC_H3S_* */
	uint8_t in[LC_H3S_INLINE];
};

#define LC_H3S_NOFIN   0x01 /* --h3-no-body: the body never goes, nor the FIN */
#define LC_H3S_FINSENT 0x02
#define LC_H3S_BLOCKED 0x04 /* the server's flow control */
#define LC_H3S_SHUT    0x08 /* its sending side was reset */
#define LC_H3S_FINOFF  0x10 /* the FIN offered with the last bytes */

/* one HTTP/3 connection: its QUIC transport, TLS session and HTTP/3 session */
struct q {
	nghttp3_conn *h3;        /* first: the shared callbacks find it there (qh3.h) */
	ngtcp2_conn *conn;
	gnutls_session_t tls;
	ngtcp2_crypto_conn_ref ref;
	struct sockaddr_storage local;
	socklen_t locallen;
	struct lc_conn *c;
	struct timer tm;
	int ready;               /* HTTP/3 streams bound */
	int early;               /* --0rtt: requests went in 0-RTT */
	int ticket;              /* a session ticket came, or the handshake is confirmed */
	int raw_sent;            /* --h3-fields: its first request went */
	int h3_busy;             /* nghttp3 may have something to send: asked at the next burst */
	uint32_t ovfl;           /* SO_RXQ_OVFL: the socket's drops so far */
	uint64_t max_streams;    /* the server's MAX_STREAMS (bidi) last seen */
	uint64_t limited_at;     /* us: a request has waited on MAX_STREAMS since, 0 none */
	int64_t goaway_id;       /* the server's GOAWAY: streams from this one on were not processed */
	struct qmem qm;          /* ngtcp2's memory, freed whole at the end (its leak) */
	struct lc_h3s **sx;      /* -m of them: each exchange's stream, NULL none */
	struct list txq;         /* streams with something to send, in turn */
	struct list streams;     /* every stream open */
	struct list spare;       /* closed ones to use again */
	unsigned nspare;
	struct lc_h3s *tx_cur;   /* the stream the writer was offered last */
	int hc_path;             /* the path whose request frames hc[] holds, -1 none */
	uint32_t hc_len;
	uint8_t hc[LC_H3S_INLINE];
};

static inline ngtcp2_tstamp ts(void)
{
	return (ngtcp2_tstamp)clock_ns();
}

/* lc_h3_req.c: requests and their streams */
/* the HTTP/3 session on <q>'s connection: its control and QPACK streams */
int lc_h3_session_open(struct q *q);
/* the server refused our 0-RTT: the requests go again on a new session */
int lc_h3_early_refused(struct q *q);
/* new requests, as many as -m, the slots and the peer's MAX_STREAMS allow */
void lc_h3_fill(struct q *q);
/* <n> bytes of stream <id> read: the flow-control credit back */
void lc_h3_consume(struct q *q, int64_t id, size_t n);

/* lc_h3_read.c: the responses */
/* <n> bytes of request stream <id> (its user data <s>), <fin> its end */
void lc_h3_read(struct q *q, struct lc_h3s *s, int64_t id, const uint8_t *p, size_t n, int fin);

/* lc_h3_tx.c: the requests' streams */
/* a stream for <e>, its request of fields <f> framed, opened: 0, or -1;
 * with <keep>, its frames kept for the next request of the same path */
int lc_h3s_open(struct q *q, struct lc_ex *e, const struct hpk_field *f, size_t n, int keep);
/* a stream for <e> with the frames kept for its path: 0; -1 when none
 * are kept (or no stream opened), to call lc_h3s_open() */
int lc_h3s_again(struct q *q, struct lc_ex *e);
/* <e> leaves its stream (answered, failed, retried): its slot is free */
void lc_h3s_leave(struct q *q, struct lc_ex *e);
/* every exchange leaves its stream: they go again on new ones (0-RTT refused) */
void lc_h3s_orphan_all(struct q *q);
/* ngtcp2 closed stream <s>: its exchange, if still there, recorded or failed by <code> */
void lc_h3s_closed(struct q *q, struct lc_h3s *s, uint32_t flags, uint64_t code);
/* the server's flow control lets <s> send again */
void lc_h3s_unblock(struct q *q, struct lc_h3s *s);
/* our streams as a source of the packet writer */
void lc_h3s_src(struct qw_src *src, struct q *q);
/* every stream freed (the connection's end) */
void lc_h3s_free_all(struct q *q);

/* lc_h3_tick.c: sessions to resume, 0-RTT */
/* the session a new connection offers: the thread's newest, or NULL */
uint8_t *lc_h3_ticket_peek(struct lc_thread *t);
/* 0-RTT on <b>: with --0rtt, on a session not offered before */
int lc_h3_ticket_early(const uint8_t *b);
/* offers <b>; with <early> requests may go before the handshake ends */
int lc_h3_resume(struct q *q, uint8_t *b, int early);

/* lc_h3_report.c: what the client saw of QUIC, in its thread's figures */
/* one read of <len> bytes in datagrams of <seg>; <ovfl> the socket's drops so far */
void lc_h3_tally_read(struct q *q, size_t len, size_t seg, uint32_t ovfl);
/* what a burst sent */
void lc_h3_tally_sent(struct q *q, const struct qw_tally *w);
/* a request waits on the server's MAX_STREAMS (from now, if not already) */
void lc_h3_limited(struct q *q);
/* ngtcp2's extend_max_local_streams_bidi: the server's MAX_STREAMS is <max> */
int lc_h3_max_streams(ngtcp2_conn *conn, uint64_t max, void *user);

#endif

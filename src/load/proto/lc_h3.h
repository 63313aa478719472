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
#define LC_QRX      65536 /* a GRO train's most: a read's room */
#define LC_QRX_MSGS 4     /* reads a recvmmsg, a socket of one connection */
#define LC_QS_READS 16    /* reads a recvmmsg, the socket a thread's connections share */
#define LC_SCID_LEN 17    /* our connection IDs' bytes */
#define LC_CID_KEY  7     /* of them, the connection's slot (3) and generation (4) in front */
#define LC_QS_PORTS LC_QS_PORTS_MAX /* --h3-ports' most */
#define LC_QS_FLUSH 4     /* trains the loop turn's end sends in one sendmmsg at most */
#define LC_ACK_HOLD (10 * NGTCP2_MILLISECONDS) /* an ACK held after its read at most, to ride on a request (q_hold) */

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
	struct list due;         /* on its thread's connections whose send round waits for the turn's end */
	struct list rx;          /* on the shared socket's connections read in its batch */
	int fd;                  /* its socket: its own, or its thread's shared one */
	struct lc_h3_port *port; /* the thread's shared socket it is on (lc_h3_sock.c), NULL its own */
	int rx_rv;               /* the shared socket's batch: 1 the server's graceful end, -1 an error */
	int rx_got;              /* its own socket read through the ring: rx_rv is what came of it */
	uint32_t gen;            /* its generation on the shared socket, in its connection IDs */
	int ready;               /* HTTP/3 streams bound */
	int early;               /* --0rtt: requests went in 0-RTT */
	int ticket;              /* a session ticket came, or the handshake is confirmed */
	int raw_sent;            /* --h3-fields: its first request went */
	int h3_busy;             /* nghttp3 may have something to send: asked at the next burst */
	uint32_t ovfl;           /* SO_RXQ_OVFL: the socket's drops so far */
	ngtcp2_tstamp rx_at;     /* ns: its last datagrams fed to ngtcp2 (q_hold) */
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

/* what one recvmmsg took: a read each, a datagram or (UDP_GRO) a train of
 * them of one size, in LC_QRX bytes of its own */
struct q_reads {
	struct mmsghdr mm[LC_QS_READS];
	struct iovec iov[LC_QS_READS];
	union {
		char b[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} ctrl[LC_QS_READS];
	size_t seg[LC_QS_READS];   /* each read's datagram size */
	uint32_t ovfl[LC_QS_READS]; /* the socket's drops so far, at each read */
};

/* a read's datagrams (<n> bytes of <seg>) to <q>'s connection, received
 * at <now>: 0, 1 the server's graceful end, -1 an error (lc_error'd) */
typedef int lc_h3_feed_fn(struct q *q, const uint8_t *buf, size_t n, size_t seg, ngtcp2_tstamp now);

struct lc_h3_sock;

/* one of the UDP sockets a thread's connections share (--h3-ports) */
struct lc_h3_port {
	struct ev ev;            /* its fd, -1 while no connection uses it */
	struct lc_h3_sock *qs;
	unsigned users;          /* connections on it */
	uint32_t ovfl;           /* SO_RXQ_OVFL: its drops so far */
};

/* the sockets a thread's connections share, with its loop turn's sends;
 * in the thread's qbuf, at LC_QS_AT */
struct lc_h3_sock {
	struct lc_thread *t;
	lc_h3_feed_fn *feed;     /* lc_h3.c's, to ngtcp2 */
	uint32_t gen;            /* the last connection's generation */
	struct lc_h3_port port[LC_QS_PORTS];
	struct list rx;          /* connections read in a batch, their turns to come */
	struct list rd;          /* connections whose own socket is readable: read through the ring at the turn's end */
	struct list due;         /* connections (any socket) whose send round waits for the turn's end */
	struct qw_batch batch;   /* the turn's packets on this socket, one sendmmsg */
	uint8_t out[QW_BATCH_BYTES];
};

/* a thread's qbuf: a GSO burst out (QW_BUF), the reads in (LC_QS_READS of
 * LC_QRX), then its lc_h3_sock */
#define LC_QS_AT  ((QW_BUF + LC_QS_READS * LC_QRX + 63) / 64 * 64)
#define LC_QBUF   (LC_QS_AT + sizeof(struct lc_h3_sock))

/* lc_h3_sock.c: the UDP sockets, the one a thread's connections share */
/* up to <max> reads of socket <fd> in one recvmmsg into <buf>: how many
 * (0: nothing now), or -1 an error (errno) */
int lc_h3_recv(int fd, uint8_t *buf, struct q_reads *r, int max);
/* a round of the connections of qs->rd: their own sockets read through the
 * thread's ring, one system call; each then has its turn (rx_got). 1 when
 * some are left for the next round */
int lc_h3_ring_reads(struct lc_h3_sock *qs);
/* a socket of <c>'s own, connected to the target: its fd, or -1 (errno) */
int lc_h3_sock_own(struct lc_conn *c);
struct lc_h3_sock *lc_h3_sock_of(struct lc_thread *t);
/* the thread's shared socket, none open yet (its qbuf just allocated);
 * its reads go to ngtcp2 by <feed> */
void lc_h3_sock_init(struct lc_thread *t, lc_h3_feed_fn *feed);
/* <q> on one of its thread's shared sockets (--h3-ports: the connection's
 * slot modulo their number), opened for the first: 0; -1 when it must have
 * its own (no --h3-ports, several --source addresses, or none could be made) */
int lc_h3_sock_join(struct q *q);
/* <q> off it (the last closes it); a no-op for a socket of its own */
void lc_h3_sock_leave(struct q *q);
/* <q>'s slot and generation in front of connection ID <cid>
 * (LC_SCID_LEN bytes), for the shared socket's reads to find it */
void lc_h3_cid_stamp(const struct q *q, uint8_t *cid);

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

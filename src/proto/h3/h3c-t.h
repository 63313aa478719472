/* Types of HTTP/3 on the QUIC transport: a connection (struct h3c, the transport's struct quic_conn inside), its request streams, our engine's framing state. */
#ifndef HX_H3C_T_H
#define HX_H3C_T_H

#include <nghttp3/nghttp3.h>

#include "list.h"
#include "qpack.h"
#include "quic_conn-t.h"
#include "timer-t.h"
#include "xstream.h"

struct h3_eng;
struct h3c;

/* A run of a response's bytes (--h3-engine hx): ngtcp2 keeps pointing at
 * them until the peer acknowledges them, so each stays put till then */
struct h3piece {
	const uint8_t *p;    /* the body's prebuilt bytes, <hd>, or the stream's arena */
	uint32_t len;
	uint8_t hd[12];      /* a DATA frame's type and length, when p points here */
};

#define H3T_PIECES 16    /* pieces a stream has in flight at most */
#define H3T_ARENA 512    /* a pooled block for the HEADERS frames, without malloc */

/* h3tx.st */
#define H3T_FIN     0x01 /* nothing more to frame: FIN after the last piece */
#define H3T_FINSENT 0x02
#define H3T_ROOM    0x04 /* every piece in flight: more once some are acknowledged */
#define H3T_BLOCKED 0x08 /* its flow control: more at MAX_STREAM_DATA */
#define H3T_WAIT    0x10 /* the generator waits (d=, x=, X=): more at ops->resume */
#define H3T_SHUT    0x20 /* its sending side is reset: nothing more */

/* A response framed by us (h3_tx.c): its pieces in a ring, counted from
 * the stream's start; first <= cur <= end, and cur_off bytes of piece cur
 * are written */
struct h3tx {
	struct list ready;   /* on the connection's streams with something to send */
	uint32_t first, cur, end;
	uint32_t cur_off;
	uint64_t acked;      /* stream bytes the peer has, counted from piece first */
	uint8_t st;
	uint8_t offered_fin; /* the last next() offered the FIN */
	uint16_t arena_used;
	uint32_t arena_end;  /* pieces before it may point into <arena> */
	/* WHY a pooled block and not inline: held only until the peer has the
	 * frames in it, not while the stream waits (512 B each held stream) */
	uint8_t *arena;      /* NULL, or the worker's (h3_tx.c) H3T_ARENA bytes */
	uint8_t *big[2];     /* HEADERS frames over the arena: malloc'ed */
	struct h3piece pc[H3T_PIECES];
};

/* an HTTP/3 request stream */
struct h3s {
	struct h3c *c;
	struct list node;    /* on the connection's streams or the free list */
	struct timer tm;
	int64_t id;
	uint8_t fault;       /* x=/X= point reached: act after the writes */
	uint8_t fault_act;   /* EXA_RESET or EXA_CLOSE */
	uint8_t own;         /* answered from the memo: nghttp3 never saw it */
	uint64_t since;      /* ms: when it last moved (h3_scan) */
	/* its first HEADERS frame walked as it came (h3.c: nghttp3 drops an
	 * invalid field), and the fields nghttp3 handed on */
	struct qpk_walk walk;
	int8_t walked;       /* qpk_walk()'s last answer */
	uint8_t bound;       /* nghttp3 has it as the stream's user data */
	uint8_t bad;         /* malformed: 1 reset, 2 nghttp3 told too */
	uint32_t nfields;
	struct xstream x;
};

/* a stream of our engine (--h3-engine hx, h3_tx.c): what we frame and
 * send after the shell's part. WHY apart: 960 B nghttp3's streams never
 * use (each engine says its stream's size, h3_eng.ssize) */
struct h3s_hx {
	struct h3s s;
	struct h3tx tx;
};

/* h3c flags */
#define H3C_EARLY 0x01 /* reading 0-RTT stream data: its requests say early=1 */
#define H3C_ENDING 0x02 /* past its request limit: the final GOAWAY sent, the open streams finish */
#define H3C_CAPPED 0x04 /* h2s=: at most <cap> request streams at once from now on */

/* an HTTP/3 connection: the transport's part, then what HTTP/3 keeps;
 * written by the files of proto/h3 alone */
struct h3c {
	struct quic_conn q;  /* first: the transport allocates and frees the whole (quic_app.conn_size) */
	nghttp3_conn *h3;    /* NULL until the session is set up (h3_setup) */
	const struct h3_eng *eng; /* its engine, taken from the row's when it opened */
	struct list streams;
	uint32_t nstreams;
	uint32_t total;      /* streams opened on it, for the stats */
	uint32_t flags;
	uint32_t nfaults;    /* streams whose x=/X= point was reached */
	struct list ready;   /* --h3-engine hx: streams with data to send (h3tx.ready) */
	struct h3s *tx_cur;  /* the stream the last qw_src next() offered */
	struct h3s *rd;      /* the request stream nghttp3 is reading, made before it */
	uint32_t nwalk;      /* streams whose first HEADERS frame is not walked whole */
	uint32_t grant;      /* the peer's request streams closed, not yet given back (h3_grant) */
	uint32_t max_req;    /* --conn-requests, maxreq=: requests, then its end (0: no limit) */
	int64_t ng_max;      /* the highest request stream nghttp3 read, -1 */
	int64_t memo_max;    /* the highest the memo answered without it, -1 */
	uint64_t granted;    /* the peer's MAX_STREAMS (bidi) as we last raised it */
	uint32_t cap;        /* h2s= (H3C_CAPPED): request streams open and allowed, at most */
	uint8_t ng_quiet;    /* --h3-engine hx: nghttp3 had nothing to send when last asked, and no call since could give it any (h3_ng) */
};

static inline struct h3c *h3c_of(struct quic_conn *q)
{
	return (struct h3c *)q;
}

/* <c>'s nghttp3 session for a call that may give it something to send
 * (its SETTINGS, a GOAWAY, QPACK instructions, a stream unblocked): the
 * next packets ask it again. WHY: asked each burst, it answered nothing
 * at 1,115 instructions a request at -c 100 -m 1 (callgrind), 5 % */
static inline nghttp3_conn *h3_ng(struct h3c *c)
{
	c->ng_quiet = 0;
	return c->h3;
}

#endif

/* Types of QUIC connections (ngtcp2 + GnuTLS) and their HTTP/3 streams (nghttp3). */
#ifndef HX_QUIC_T_H
#define HX_QUIC_T_H

#include <gnutls/gnutls.h>
#include <nghttp3/nghttp3.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <sys/socket.h>

#include "list.h"
#include "qmem.h"
#include "loop.h"
#include "qpack.h"
#include "session-t.h"
#include "timer-t.h"
#include "xstream.h"

#define QUIC_SCIDLEN 18

/* one UDP socket of a worker: the TLS port of one -L address */
struct udp_ep {
	struct ev ev;
	struct sockaddr_storage local;
	socklen_t locallen;
	uint32_t drops_seen; /* the kernel's drop count for it, as last read (qr_read) */
	unsigned idx;        /* its slot in the drop counters: the listener's order */
};

struct h3c;

/* A run of a response's bytes (--h3-engine hx): ngtcp2 keeps pointing at
 * them until the peer acknowledges them, so each stays put till then */
struct h3piece {
	const uint8_t *p;    /* the body's prebuilt bytes, <hd>, or the stream's arena */
	uint32_t len;
	uint8_t hd[12];      /* a DATA frame's type and length, when p points here */
};

#define H3T_PIECES 16    /* pieces a stream has in flight at most */
#define H3T_INLINE 512   /* arena bytes for the HEADERS frames, without malloc */

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
	uint8_t *big[2];     /* HEADERS frames over the arena: malloc'ed */
	struct h3piece pc[H3T_PIECES];
	uint8_t arena[H3T_INLINE];
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
#define QC_DEAD     0x01 /* free at the end of this turn */
#define QC_CLOSE    0x02 /* send CONNECTION_CLOSE, then free (X=, drain) */
#define QC_DRAINING 0x04 /* peer closed: nothing more to send */
#define QC_EARLY    0x08 /* reading 0-RTT stream data: its requests say early=1 */
#define QC_HALF     0x10 /* half-open: no handshake done yet (counted in qw.nhalf) */
#define QC_PEND     0x20 /* read in this wakeup's batches: written once after them */

/* a QUIC connection and its HTTP/3 session */
struct h3c {
	nghttp3_conn *h3;    /* first: the shared callbacks find it there (qh3.h) */
	struct timer tm;
	struct worker *w;
	struct udp_ep *ep;
	struct list node;    /* on the worker's live connections */
	ngtcp2_conn *conn;
	gnutls_session_t tls;
	ngtcp2_crypto_conn_ref ref;
	struct sockaddr_storage peer;
	socklen_t peerlen;
	ngtcp2_cid odcid;    /* the client's first DCID, also in the map */
	struct list streams;
	uint32_t nstreams;
	uint32_t total;      /* streams opened on it, for the stats */
	uint8_t why;         /* why it ends (enum st_close), SC_UNSET: the peer */
	uint32_t flags;
	uint32_t nfaults;    /* streams whose x=/X= point was reached */
	uint64_t close_code; /* application error for QC_CLOSE */
	struct cinfo *ci;    /* --client-cert: who the certificate names, or NULL */
	struct qmem qm;      /* ngtcp2's memory for it, freed whole at the end */
	uint64_t scan_at;    /* ms: the next look at its streams' stalls (h3_scan) */
	struct h3c *pend;    /* the next connection read in this batch (qw.pend) */
	struct list ready;   /* --h3-engine hx: streams with data to send (h3tx.ready) */
	struct h3s *tx_cur;  /* the stream the last qw_src next() offered */
	struct h3s *rd;      /* the request stream nghttp3 is reading, made before it */
	uint32_t nwalk;      /* streams whose first HEADERS frame is not walked whole */
	uint32_t grant;      /* the peer's request streams closed, not yet given back (quic_grant) */
};

struct cidmap;
struct qw_batch;

/* QUIC's state in each worker (worker->ps[P_H3]) */
struct qw {
	struct udp_ep *udp;  /* sockets, one per TLS port */
	int nudp;
	struct list conns;   /* live connections */
	uint32_t nconns;
	uint32_t nhalf;      /* of them, half-open (--quic-retry-threshold) */
	uint32_t peak;       /* the most since memory was last handed back */
	struct cidmap *cids; /* connection IDs to connections */
	uint8_t *txbuf;      /* packets built for one sendmsg (GSO) */
	struct qw_batch *batch; /* the packets of a turn's connections, for one sendmmsg */
	struct h3c *pend;    /* connections read in this wakeup's receive batches, to write */
	void *app;           /* the application's per-thread state (h3.c's h3w), opaque here */
};

static inline struct qw *qw(const struct worker *w)
{
	return w->ps[P_H3];
}

#endif

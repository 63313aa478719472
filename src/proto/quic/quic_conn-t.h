/* Types of the QUIC transport (ngtcp2 + GnuTLS): a worker's UDP sockets and connections, a connection (struct quic_conn, the first member of the application's). No HTTP/3 here. */
#ifndef HX_QUIC_CONN_T_H
#define HX_QUIC_CONN_T_H

#include <gnutls/gnutls.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <sys/socket.h>

#include "list.h"
#include "qmem.h"
#include "loop.h"
#include "session-t.h"
#include "tc_set.h"
#include "timer-t.h"

#define QUIC_SCIDLEN 18

/* one UDP socket of a worker: the TLS port of one -L address */
struct udp_ep {
	struct ev ev;
	struct sockaddr_storage local;
	socklen_t locallen;
	uint32_t drops_seen; /* the kernel's drop count for it, as last read (qr_read) */
	unsigned idx;        /* its slot in the drop counters: the listener's order */
	uint8_t dry;         /* reads after a short one that found it empty, in a row (udp_cb) */
	uint8_t probe;       /* short reads while dry: each 16th still reads once more */
};

/* quic_conn flags */
#define QC_DEAD     0x01 /* free at the end of this turn */
#define QC_CLOSE    0x02 /* send CONNECTION_CLOSE, then free (X=, drain) */
#define QC_DRAINING 0x04 /* peer closed: nothing more to send */
#define QC_HALF     0x10 /* half-open: no handshake done yet (counted in qw.nhalf) */
#define QC_PEND     0x20 /* read in this wakeup's batches: written once after them */

/* A QUIC connection: the transport's alone (quic.c), the first member of
 * the application's (struct h3c), which the transport allocates at
 * quic_app.conn_size and frees. The application reads <w>, <peer>, <ci>,
 * <rx_ns>. Its counted base (tc_link.h), and its why and slot, are what
 * its set (qw.set) counts, as a TCP connection's; no TCP part */
struct quic_conn {
	struct timer tm;
	TC_LINK;             /* w, node: on the worker's live connections (qw.set) */
	struct udp_ep *ep;
	ngtcp2_conn *conn;
	gnutls_session_t tls;
	ngtcp2_crypto_conn_ref ref;
	struct sockaddr_storage peer;
	socklen_t peerlen;
	ngtcp2_cid odcid;    /* the client's first DCID, also in the map */
	uint8_t why;         /* why it ends (enum st_close), SC_UNSET: the peer */
	uint8_t proto;       /* its stats slot (enum st_proto): the application's (quic_app.slot) */
	uint32_t flags;
	struct cinfo *ci;    /* --client-cert: who the certificate names, or NULL */
	struct qmem qm;      /* ngtcp2's memory for it, freed whole at the end */
	uint64_t scan_at;    /* ms: the application's next look at its streams (quic_app.scan) */
	struct quic_conn *pend; /* the next connection read in this batch (qw.pend) */
	int64_t rx_ns;       /* ns: the datagram being read came (its batch's clock read) */
};

struct cidmap;
struct qw_batch;
struct qr_batch;

/* QUIC's state in each worker (worker->ps[P_H3]) */
struct qw {
	struct udp_ep *udp;  /* sockets, one per TLS port */
	int nudp;
	/* live connections, counted: their list and number (set.n), their
	 * opens and closes; none kept (the set's TCP part unused) */
	struct tc_set set;
	uint32_t nhalf;      /* of them, half-open (--quic-retry-threshold) */
	uint32_t peak;       /* the most since memory was last handed back */
	struct cidmap *cids; /* connection IDs to connections */
	uint8_t *txbuf;      /* packets built for one sendmsg (GSO) */
	struct qw_batch *batch; /* the packets of a turn's connections, for one sendmmsg */
	/* WHY not a __thread static: glibc zeroes every thread's static TLS
	 * when it starts, 36 KB resident in each thread, QUIC or not */
	struct qr_batch *rb; /* one recvmmsg's datagrams */
	struct quic_conn *pend; /* connections read in this wakeup's receive batches, to write */
	void *app;           /* the application's per-thread state (h3.c's h3w), opaque here */
};

static inline struct qw *qw(const struct worker *w)
{
	return w->ps[P_H3];
}

#endif

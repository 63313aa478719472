/* QUIC packets out, stream data pulled from the sources the application registers, in GSO batches: shared by hxterm's server and hxload's client. */
#ifndef HX_QWRITE_H
#define HX_QWRITE_H

#include <sys/socket.h>

#include <ngtcp2/ngtcp2.h>

#define QW_MAX_PKT 64                        /* packets a sendmsg (the kernel's UDP_MAX_SEGMENTS) */
#define QW_BUF     (QW_MAX_PKT * 1500 + 1500) /* a batch's buffer */
/* WHY: a GSO batch is one IP datagram to the kernel: 65,535 less the IPv4
 * and UDP headers; past it sendmsg fails EMSGSIZE and the batch is lost */
#define QW_GSO_MAX 65507

/* what went out: datagrams, sendmsg calls, those of them a GSO train */
struct qw_tally {
	uint64_t datagrams, sends, gso;
};

/* where a burst goes: a socket, its peer (NULL: a connected socket), a
 * QW_BUF buffer; <lost> counts the datagrams the kernel refused; <tally>
 * (NULL: none) adds up what the kernel took */
struct qw_out {
	int fd;
	const void *peer;
	socklen_t peerlen;
	uint8_t *buf;
	uint64_t lost;
	struct qw_tally *tally;
};

/* a run of stream bytes, laid out as ngtcp2_vec and nghttp3_vec (qwrite.c
 * checks): the application's sources name no library's type */
struct qw_vec {
	uint8_t *base;
	size_t len;
};

/* A source of stream data, registered by the application for a burst
 * (hxterm's HTTP/3: nghttp3's streams, net/qh3, then its own engine's).
 * The writer asks them in order; one with nothing is not asked again in
 * the burst while one behind it is. */
struct qw_src {
	/* the next stream with something to send: *sid (-1: none), its data
	 * as up to <max> vecs (the count returned, < 0 an error), *fin when
	 * they end it */
	int (*next)(void *arg, int64_t *sid, int *fin, struct qw_vec *v, size_t max);
	/* stream <sid>'s first <n> bytes went into the packet (and its FIN,
	 * when offered with all of them): 0, or -1 to fail the connection */
	int (*wrote)(void *arg, int64_t sid, size_t n);
	/* stream <sid> may not send now: flow control (<shut> 0) or its
	 * sending side was reset (1) */
	void (*stop)(void *arg, int64_t sid, int shut);
	void *arg;
	/* had nothing: not asked again until the caller clears it (at its
	 * next burst of writes). WHY: only a read, a submit or a resume gives
	 * nghttp3 more, and none happens within a burst; asking it cost 1,000
	 * instructions an h3 request (callgrind) */
	int idle;
};

#define QW_NSRC 2 /* sources a connection registers at most */

/* the sources of one burst, asked in order */
struct qw_srcs {
	int n;
	struct qw_src s[QW_NSRC];
};

/* Writes one packet of <conn> into <dst>: stream data that a source of
 * <srcs> (NULL or none: no stream data) has ready, else whatever ngtcp2
 * must send. Returns its length, 0 when there is nothing to send, or an
 * ngtcp2 error. */
ngtcp2_ssize qw_packet(ngtcp2_conn *conn, struct qw_srcs *srcs, ngtcp2_path *path, uint8_t *dst, size_t max,
		       ngtcp2_tstamp now);

/* Sends <len> bytes of packets of <seg> bytes (the last may be shorter) in
 * one sendmsg (UDP_SEGMENT when more than one). A datagram the kernel
 * refuses (a full buffer) is lost, for QUIC to resend, and counted. */
void qw_send(struct qw_out *o, const uint8_t *buf, size_t len, size_t seg);

/* Writes every packet <conn> has now (qw_packet) and sends them in GSO
 * batches. Returns how many packets (datagrams), or an ngtcp2 error. */
int qw_burst(ngtcp2_conn *conn, struct qw_srcs *srcs, struct qw_out *o, ngtcp2_tstamp now);

/* ---------- sendmmsg across connections ---------- */

#define QW_BATCH_MSGS  64           /* GSO trains a sendmmsg */
#define QW_BATCH_BYTES (2 * QW_BUF) /* room for them: a train starts only with QW_BUF free */

struct qring;

/* A worker's packets of several connections, sent by one sendmmsg: each
 * train's bytes, peer and segment size kept here, so that a connection
 * may end before they go. With a ring, the trains of several sockets, one
 * system call for all (a connection that closes its socket flushes first). */
struct qw_batch {
	int fd;              /* the socket of those queued: another one flushes them first (no ring) */
	struct qring *ring;  /* NULL: one sendmmsg a socket; else each train's sendmsg on it */
	int fds[QW_BATCH_MSGS]; /* with a ring: each train's socket */
	int mixed;           /* those queued are on several sockets */
	unsigned n;          /* trains queued */
	size_t used;         /* bytes of buf they hold */
	uint64_t lost;       /* datagrams the kernel refused */
	uint8_t *buf;        /* QW_BATCH_BYTES */
	struct mmsghdr mm[QW_BATCH_MSGS];
	struct iovec iov[QW_BATCH_MSGS];
	struct sockaddr_storage peer[QW_BATCH_MSGS];
	uint16_t seg[QW_BATCH_MSGS];
	union {
		char b[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} ctrl[QW_BATCH_MSGS];
};

/* qw_burst, the packets left in <b> (<o>'s buffer unused) for one
 * sendmmsg with other connections' (qw_flush); <o>'s tally counts each
 * train queued as a send, the kernel's refusals are counted in <b>, at
 * the flush. <b> NULL: qw_burst */
int qw_burst_in(struct qw_batch *b, ngtcp2_conn *conn, struct qw_srcs *srcs, struct qw_out *o, ngtcp2_tstamp now);

/* Sends what <b> holds, one sendmmsg, or one io_uring_enter with a ring (a
 * train the kernel refuses: retried alone, as qw_send does, or lost and
 * counted). */
void qw_flush(struct qw_batch *b);

#endif

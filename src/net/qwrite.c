/* QUIC packets out, stream data pulled from the sources the application registers, in GSO batches: shared by hxterm's server and hxload's client. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "common.h"
#include "qring.h"
#include "qwrite.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

static atomic_int no_gso; /* the kernel refused UDP_SEGMENT once: a datagram a sendmsg from then on */

_Static_assert(sizeof(struct qw_vec) == sizeof(ngtcp2_vec) && offsetof(struct qw_vec, len) == offsetof(ngtcp2_vec, len),
	       "qw_vec is laid out as ngtcp2_vec");

/* the next stream data: the first source of <srcs> that has some; *who
 * says which (NULL: none) */
static int next_data(ngtcp2_conn *conn, struct qw_srcs *srcs, int64_t *sid, int *fin, struct qw_vec *vec,
		     size_t max, struct qw_src **who)
{
	*who = NULL;
	if (!srcs || !srcs->n || !ngtcp2_conn_get_max_data_left(conn))
		return 0;
	for (int i = 0; i < srcs->n; i++) {
		struct qw_src *s = &srcs->s[i];
		int nvec;

		if (s->idle)
			continue;
		nvec = s->next(s->arg, sid, fin, vec, max);
		if (nvec < 0)
			return nvec;
		if (*sid >= 0) {
			*who = s;
			return nvec;
		}
		s->idle = i + 1 < srcs->n; /* WHY not the last: nothing behind it to ask instead */
	}
	*sid = -1;
	return 0;
}

ngtcp2_ssize qw_packet(ngtcp2_conn *conn, struct qw_srcs *srcs, ngtcp2_path *path, uint8_t *dst, size_t max,
		       ngtcp2_tstamp now)
{
	for (;;) {
		int64_t sid = -1;
		int fin = 0;
		struct qw_vec vec[16];
		struct qw_src *who;
		int nvec = next_data(conn, srcs, &sid, &fin, vec, 16, &who);
		ngtcp2_ssize ndata = -1, n;
		ngtcp2_pkt_info pi;
		uint32_t flags = NGTCP2_WRITE_STREAM_FLAG_MORE;

		if (nvec < 0)
			return NGTCP2_ERR_CALLBACK_FAILURE;
		if (fin)
			flags |= NGTCP2_WRITE_STREAM_FLAG_FIN;
		n = ngtcp2_conn_writev_stream(conn, path, &pi, dst, max, &ndata, flags, sid,
					      (const ngtcp2_vec *)vec, (size_t)nvec, now);
		if (n == NGTCP2_ERR_STREAM_DATA_BLOCKED || n == NGTCP2_ERR_STREAM_SHUT_WR) {
			if (who)
				who->stop(who->arg, sid, n == NGTCP2_ERR_STREAM_SHUT_WR);
			continue;
		}
		if (ndata >= 0 && who && who->wrote(who->arg, sid, (size_t)ndata))
			return NGTCP2_ERR_CALLBACK_FAILURE;
		if (n == NGTCP2_ERR_WRITE_MORE)
			continue;
		return n;
	}
}

/* ---------- qw_tally: a sendmsg the kernel took, added up ---------- */
static void qw_tally(struct qw_out *o, size_t len, size_t seg, int gso)
{
	if (!o->tally)
		return;
	o->tally->datagrams += (len + seg - 1) / seg;
	o->tally->sends++;
	o->tally->gso += gso;
}

void qw_send(struct qw_out *o, const uint8_t *buf, size_t len, size_t seg)
{
	char ctrl[CMSG_SPACE(sizeof(uint16_t))] = { 0 };
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_name = (void *)o->peer, .msg_namelen = o->peer ? o->peerlen : 0,
			     .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t r;

	if (len > seg && !atomic_load_explicit(&no_gso, memory_order_relaxed)) {
		struct cmsghdr *cm;

		mh.msg_control = ctrl;
		mh.msg_controllen = sizeof(ctrl);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_UDP;
		cm->cmsg_type = UDP_SEGMENT;
		cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
		*(uint16_t *)(void *)CMSG_DATA(cm) = (uint16_t)seg;
	} else if (len > seg) {
		for (size_t off = 0; off < len; off += seg)
			qw_send(o, buf + off, MIN(seg, len - off), seg);
		return;
	}
	do
		r = sendmsg(o->fd, &mh, 0);
	while (r < 0 && errno == EINTR);
	if (r >= 0) {
		qw_tally(o, len, seg, mh.msg_control != NULL);
		return;
	}
	if (len <= seg || (errno != EIO && errno != EINVAL && errno != EMSGSIZE)) {
		o->lost += (len + seg - 1) / seg; /* WHY: EAGAIN drops them; QUIC resends */
		return;
	}
	if (errno == EMSGSIZE) { /* a path with a smaller bound: two halves, each whole packets */
		size_t half = (len / seg + 1) / 2 * seg;

		qw_send(o, buf, half, seg);
		qw_send(o, buf + half, len - half, seg);
		return;
	}
	atomic_store_explicit(&no_gso, 1, memory_order_relaxed); /* no GSO here: one datagram at a time */
	qw_send(o, buf, len, seg);
}

/* where the next train is built: <o>'s buffer, or <b>'s free room (a full
 * batch sent first) */
static uint8_t *qw_room(struct qw_out *o, struct qw_batch *b)
{
	if (!b)
		return o->buf;
	if (b->used + QW_BUF > QW_BATCH_BYTES)
		qw_flush(b);
	return b->buf + b->used;
}

static void qw_queue(struct qw_out *o, struct qw_batch *b, const uint8_t *buf, size_t len, size_t seg);

/* a train built: sent, or queued in <b> */
static void qw_put(struct qw_out *o, struct qw_batch *b, const uint8_t *buf, size_t len, size_t seg)
{
	if (b)
		qw_queue(o, b, buf, len, seg);
	else
		qw_send(o, buf, len, seg);
}

int qw_burst_in(struct qw_batch *b, ngtcp2_conn *conn, struct qw_srcs *srcs, struct qw_out *o, ngtcp2_tstamp now)
{
	size_t len = 0, seg = 0, max = ngtcp2_conn_get_max_tx_udp_payload_size(conn);
	ngtcp2_path_storage ps;
	uint8_t *at = qw_room(o, b);
	int npkt = 0;

	ngtcp2_path_storage_zero(&ps);
	for (;;) {
		ngtcp2_ssize n = qw_packet(conn, srcs, &ps.path, at + len, max, now);

		if (n < 0)
			return (int)n;
		/* WHY: a packet longer than the batch's would be cut into
		 * segments of their size, garbage to the peer (an ACK, then a
		 * full packet); it starts the next batch */
		if (seg && (size_t)n > seg) {
			uint8_t *pkt = at + len;

			qw_put(o, b, at, len, seg);
			if ((at = qw_room(o, b)) != pkt)
				memmove(at, pkt, (size_t)n);
			len = 0;
			seg = 0;
		}
		if (n > 0 && !seg)
			seg = (size_t)n;
		npkt += n > 0;
		len += (size_t)n;
		/* a GSO batch is packets of one size, the last one may be shorter */
		if (n == 0 || (size_t)n < seg || len + max > QW_GSO_MAX || len / seg >= QW_MAX_PKT) {
			if (len)
				qw_put(o, b, at, len, seg);
			if (n == 0)
				return npkt;
			at = qw_room(o, b);
			len = 0;
			seg = 0;
		}
	}
}

int qw_burst(ngtcp2_conn *conn, struct qw_srcs *srcs, struct qw_out *o, ngtcp2_tstamp now)
{
	return qw_burst_in(NULL, conn, srcs, o, now);
}

/* ---------- sendmmsg across connections ---------- */

/* <len> bytes of packets of <seg> bytes at <buf> (in <b>'s buffer), for
 * <o>'s peer, wait in <b>; <b> is sent first when full or for another
 * socket */
static void qw_queue(struct qw_out *o, struct qw_batch *b, const uint8_t *buf, size_t len, size_t seg)
{
	unsigned i;

	if (len > seg && atomic_load_explicit(&no_gso, memory_order_relaxed)) {
		for (size_t off = 0; off < len; off += seg)
			qw_queue(o, b, buf + off, MIN(seg, len - off), seg);
		return;
	}
	if (b->n && ((!b->ring && b->fd != o->fd) || b->n == QW_BATCH_MSGS))
		qw_flush(b); /* WHY safe: the bytes stay where they are, the next train is placed after them */
	b->mixed |= b->n && b->fd != o->fd;
	i = b->n++;
	b->fd = o->fd;
	b->fds[i] = o->fd;
	b->iov[i] = (struct iovec){ (void *)buf, len };
	b->seg[i] = (uint16_t)seg;
	b->mm[i].msg_hdr = (struct msghdr){ .msg_iov = &b->iov[i], .msg_iovlen = 1 };
	if (o->peer) {
		memcpy(&b->peer[i], o->peer, o->peerlen);
		b->mm[i].msg_hdr.msg_name = &b->peer[i];
		b->mm[i].msg_hdr.msg_namelen = o->peerlen;
	}
	if (len > seg) {
		struct cmsghdr *cm;

		b->mm[i].msg_hdr.msg_control = b->ctrl[i].b;
		b->mm[i].msg_hdr.msg_controllen = sizeof(b->ctrl[i].b);
		cm = CMSG_FIRSTHDR(&b->mm[i].msg_hdr);
		cm->cmsg_level = SOL_UDP;
		cm->cmsg_type = UDP_SEGMENT;
		cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
		memcpy(CMSG_DATA(cm), &b->seg[i], sizeof(uint16_t));
	}
	b->used = (size_t)(buf + len - b->buf);
	qw_tally(o, len, seg, len > seg); /* WHY at the queueing: the flush knows no connection */
}

/* train <i> of <b>, refused: alone, by qw_send's rules (halves, no GSO,
 * or lost and counted) */
static void qw_retry(struct qw_batch *b, unsigned i, int fd)
{
	struct qw_out o = { fd, b->mm[i].msg_hdr.msg_name, b->mm[i].msg_hdr.msg_namelen, NULL, 0, NULL };

	qw_send(&o, b->iov[i].iov_base, b->iov[i].iov_len, b->seg[i]);
	b->lost += o.lost;
}

/* WHY a sendmsg each through the ring: sendmmsg takes one socket, and
 * with a socket a connection the trains of a turn are on as many */
static void qw_flush_ring(struct qw_batch *b)
{
	int res[QW_BATCH_MSGS];

	for (unsigned i = 0; i < b->n; i++)
		qring_sendmsg(b->ring, b->fds[i], &b->mm[i].msg_hdr);
	qring_run(b->ring, res);
	for (unsigned i = 0; i < b->n; i++)
		if (res[i] < 0)
			qw_retry(b, i, b->fds[i]);
}

/* WHY the ring only for several sockets: for one, sendmmsg is the same one
 * call, and a round trip through the ring took longer (hxload -c 1 -m 1:
 * 16,000 requests a second against 19,000) */
void qw_flush(struct qw_batch *b)
{
	int ring = b->ring && b->mixed;

	for (unsigned i = 0; !ring && i < b->n;) {
		int r = sendmmsg(b->fd, b->mm + i, b->n - i, 0);

		if (r > 0) {
			i += (unsigned)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		qw_retry(b, i++, b->fd);
	}
	if (ring)
		qw_flush_ring(b);
	b->n = 0;
	b->mixed = 0;
	b->used = 0;
}

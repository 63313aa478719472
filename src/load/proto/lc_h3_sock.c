/* hxload's HTTP/3 client: the one UDP socket a thread's connections share, its reads found their connection by the ID we gave it, its sends one sendmmsg a loop turn. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "lc_h3.h"
#include "lc_source.h"
#include "qrecv.h"
#include "qring.h"

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

/* WHY --h3-ports: a system call costs 1.7 us on this host (a PVM guest:
 * getppid in a loop), and a socket a connection took a recvmmsg and a
 * sendmsg each round of each connection, 0.21 a request at -c 10 -m 10
 * (bench/h3cost), as much as the server's whole work on one; shared, a
 * loop turn reads the connections' datagrams in one recvmmsg a socket and
 * sends their packets in one sendmmsg. The server tells connections apart
 * by their IDs, not by the ports they come from (RFC 9000 5.2). WHY not the
 * default: a server whose threads share the port by SO_REUSEPORT (hxterm
 * -t N) splits connections by their ports, and a thread's connections on
 * one port would all go to one of its threads (60-hxload-h3.t saw it) */

/* read <i>'s datagram size and the socket's drop count */
static void q_read_seen(struct q_reads *r, int i)
{
	struct msghdr *mh = &r->mm[i].msg_hdr;
	size_t n = r->mm[i].msg_len;

	r->seg[i] = n;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm))
		if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO) {
			int g;

			memcpy(&g, CMSG_DATA(cm), sizeof(g));
			r->seg[i] = (size_t)g;
		} else if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SO_RXQ_OVFL) {
			memcpy(&r->ovfl[i], CMSG_DATA(cm), sizeof(r->ovfl[i]));
		}
}

/* WHY recvmmsg: fewer reads than asked means the socket was empty, so no
 * read ends in EAGAIN (a third of recvmsg calls did, and a system call
 * here costs more than hxload's work on a response); read i at i * LC_QRX */
/* read <i> of <r> into its LC_QRX bytes of <buf> */
static void q_read_prep(uint8_t *buf, struct q_reads *r, int i)
{
	r->iov[i] = (struct iovec){ buf + (size_t)i * LC_QRX, LC_QRX };
	r->mm[i].msg_hdr = (struct msghdr){ .msg_iov = &r->iov[i], .msg_iovlen = 1, .msg_control = r->ctrl[i].b,
					    .msg_controllen = sizeof(r->ctrl[i].b) };
}

int lc_h3_recv(int fd, uint8_t *buf, struct q_reads *r, int max)
{
	int n;

	for (int i = 0; i < max; i++)
		q_read_prep(buf, r, i);
	do
		n = recvmmsg(fd, r->mm, (unsigned)max, 0, NULL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? 0 : -1;
	for (int i = 0; i < n; i++) {
		r->ovfl[i] = i ? r->ovfl[i - 1] : 0;
		q_read_seen(r, i);
	}
	return n;
}

/* WHY a receive buffer of 4 MiB unless told: the kernel's 208 KiB is 0.2
 * ms of a 1 GB/s answer, and a client busy that long dropped datagrams
 * (hxload -c 1 -m 1 of 1 MiB bodies: 24 drops in 3 s and 806 MB/s, none
 * and 860 with 4 MiB; 16 MiB: 27, 801, none, 892). WHY FORCE first: past
 * net.core.rmem_max where the process may, as hxterm's --udp-rcvbuf; the
 * memory is taken only as datagrams wait. One under the size asked is
 * counted: the drops that may follow are the kernel's limit, not the
 * server's */
static void setup(int fd, struct lc_thread *t)
{
	int got;

	/* WHY: a server's GSO train arrives whole, one read for up to 45 packets */
	setsockopt(fd, SOL_UDP, UDP_GRO, &(int){ 1 }, sizeof(int));
	/* WHY qr_setup: the kernel's count of datagrams it dropped (a full
	 * receive buffer) comes with each read, the client's own limit,
	 * reported; and the buffer asked, its answer twice the size set (its
	 * overhead), so half of it under the size asked is counted */
	got = qr_setup(fd, lc_o->udp_rcvbuf);
	if (lc_o->udp_rcvbuf && got >= 0 && got / 2 < lc_o->udp_rcvbuf)
		t->st.h3.rcvbuf_capped++;
}

int lc_h3_sock_own(struct lc_conn *c)
{
	int fd = socket(lc_tg->addr.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0 || lc_source_bind(fd, lc_conn_source(c)) < 0 ||
	    connect(fd, (const struct sockaddr *)&lc_tg->addr, lc_tg->alen) < 0) {
		if (fd >= 0) {
			int e = errno;

			close(fd);
			errno = e;
		}
		return -1;
	}
	setup(fd, c->t);
	return fd;
}

struct lc_h3_sock *lc_h3_sock_of(struct lc_thread *t)
{
	return (struct lc_h3_sock *)(void *)(t->qbuf + LC_QS_AT);
}

void lc_h3_sock_init(struct lc_thread *t, lc_h3_feed_fn *feed)
{
	struct lc_h3_sock *qs = lc_h3_sock_of(t);

	memset(qs, 0, sizeof(*qs));
	for (int i = 0; i < LC_QS_PORTS; i++)
		qs->port[i] = (struct lc_h3_port){ .ev = { -1, NULL }, .qs = qs };
	qs->t = t;
	qs->feed = feed;
	qs->batch.buf = qs->out;
	/* WHY a ring unless told not: with a socket a connection, a recvmmsg
	 * and a sendmsg each round of each connection were 0.21 system calls
	 * a request at -c 10 -m 10, 1.7 us each here; through the ring, a loop
	 * turn's reads of all sockets are one call, and its sends another */
	if (!lc_o->h3_no_ring && !t->qring)
		t->qring = qring_new();
	qs->batch.ring = t->qring;
	list_init(&qs->rx);
	list_init(&qs->rd);
	list_init(&qs->due);
}

/* the connection whose ID datagram <p> names (lc_h3_cid_stamp), or NULL:
 * one gone, or not ours */
static struct q *find(struct lc_thread *t, const uint8_t *p, size_t n)
{
	const uint8_t *cid;
	uint32_t slot, gen;
	struct lc_conn *c;
	struct q *q;

	if (n && (p[0] & 0x80)) /* a long header: its DCID's length, then the DCID */
		cid = n >= 6 + LC_CID_KEY && p[5] >= LC_CID_KEY ? p + 6 : NULL;
	else
		cid = n >= 1 + LC_SCID_LEN ? p + 1 : NULL;
	if (!cid)
		return NULL;
	slot = (uint32_t)cid[0] | (uint32_t)cid[1] << 8 | (uint32_t)cid[2] << 16;
	memcpy(&gen, cid + 3, sizeof(gen));
	if (slot >= (uint32_t)t->nconns)
		return NULL;
	c = &t->conns[slot];
	q = c->nc.proto == LC_H3 ? c->proto_state : NULL;
	return q && q->port && q->gen == gen ? q : NULL;
}

void lc_h3_cid_stamp(const struct q *q, uint8_t *cid)
{
	uint32_t slot = (uint32_t)q->c->idx;

	cid[0] = (uint8_t)slot, cid[1] = (uint8_t)(slot >> 8), cid[2] = (uint8_t)(slot >> 16);
	memcpy(cid + 3, &q->gen, sizeof(q->gen));
}

/* <q> read something (or failed, rv): its turn comes after the batch */
static void touched(struct lc_h3_sock *qs, struct q *q, int rv)
{
	if (rv && !q->rx_rv)
		q->rx_rv = rv;
	if (list_empty(&q->rx))
		list_add(qs->rx.prev, &q->rx);
}

/* the socket failed (an ICMP error on a connected UDP socket: nothing
 * listens): each of its connections fails as its own socket's would */
static void fail_all(struct lc_h3_port *pt)
{
	struct lc_h3_sock *qs = pt->qs;
	struct lc_thread *t = qs->t;
	int err = errno;

	for (int i = 0; i < t->nconns; i++) {
		struct lc_conn *c = &t->conns[i];
		struct q *q = c->nc.proto == LC_H3 ? c->proto_state : NULL;

		if (q && q->port == pt && !q->rx_rv) {
			errno = err;
			lc_error(c, q->ready ? E_RESET : E_CONNECT);
			touched(qs, q, -1);
		}
	}
}

/* read <i> of <r>: its datagrams to their connections, at <now> */
static void deliver(struct lc_h3_sock *qs, const uint8_t *p, size_t len, size_t seg, ngtcp2_tstamp now)
{
	struct q *last = NULL;

	for (size_t off = 0; seg && off < len; off += seg) {
		size_t n = MIN(seg, len - off);
		struct q *q = find(qs->t, p + off, n);

		if (!q || q->rx_rv)
			continue;
		if (q != last) /* WHY a read a connection: a GSO train is one connection's */
			lc_h3_tally_read(q, len, seg, q->ovfl);
		last = q;
		touched(qs, q, qs->feed(q, p + off, n, seg, now));
	}
}

/* WHY the connections' turns after every read: the batch's buffer is
 * read again by the next recvmmsg, and a turn may end a connection (its
 * slot taken by a new one, the socket closed with the last) */
static void qs_io(struct loop *l, struct ev *e, uint32_t events)
{
	struct lc_h3_port *pt = container_of(e, struct lc_h3_port, ev);
	struct lc_h3_sock *qs = pt->qs;
	struct lc_thread *t = qs->t;
	uint8_t *buf = t->qbuf + QW_BUF;
	struct q_reads r;
	struct list *n;
	int got;

	(void)events;
	do {
		ngtcp2_tstamp now;

		if ((got = lc_h3_recv(pt->ev.fd, buf, &r, LC_QS_READS)) < 0) {
			fail_all(pt);
			break;
		}
		now = got ? ts() : 0;
		t->held_us = now / 1000;
		for (int i = 0; i < got; i++) {
			t->st.h3.udp_drops += (uint32_t)(r.ovfl[i] - pt->ovfl); /* WHY the whole run, as lc_h3_tally_read */
			pt->ovfl = r.ovfl[i];
			deliver(qs, buf + (size_t)i * LC_QRX, r.mm[i].msg_len, r.seg[i], now);
		}
		t->held_us = 0;
	} while (got == LC_QS_READS);
	while ((n = list_pop(&qs->rx))) {
		struct lc_conn *c = container_of(n, struct q, rx)->c;

		c->nc.ev.cb(l, &c->nc.ev, EPOLLIN);
	}
}

/* socket <pt>, made for its first connection: 0, or -1 */
static int qs_open(struct lc_h3_port *pt, struct lc_conn *c)
{
	int fd = lc_h3_sock_own(c);

	if (fd < 0)
		return -1;
	pt->ev = (struct ev){ fd, qs_io };
	pt->ovfl = 0;
	if (loop_watch(&c->t->loop, &pt->ev, EPOLLIN | EPOLLET) < 0) {
		close(fd);
		pt->ev.fd = -1;
		return -1;
	}
	return 0;
}

int lc_h3_sock_join(struct q *q)
{
	struct lc_h3_sock *qs = lc_h3_sock_of(q->c->t);
	struct lc_h3_port *pt = &qs->port[q->c->idx % MAX(lc_o->h3_ports, 1)];

	/* WHY not with several --source addresses: each connection has its own */
	if (!lc_o->h3_ports || lc_sources() > 1 || (!pt->users && qs_open(pt, q->c) < 0))
		return -1;
	pt->users++;
	q->port = pt;
	q->gen = ++qs->gen;
	q->fd = pt->ev.fd;
	return 0;
}

void lc_h3_sock_leave(struct q *q)
{
	struct lc_h3_port *pt = q->port;

	list_del(&q->rx);
	if (!pt || --pt->users)
		return;
	loop_drop(&q->c->t->loop, &pt->ev);
	close(pt->ev.fd);
	pt->ev.fd = -1;
}

/* ---------- sockets of their own, read through the ring ---------- */

#define RING_READS 2 /* reads a socket a round */
#define RING_CONNS LC_QS_FLUSH /* sockets a round: their sends go before the next round */

/* <q>'s reads <i0>.. of a round, results <res>: fed to ngtcp2 at <now>;
 * 1 when its socket may hold more (its last read found something) */
static int ring_fed(struct lc_h3_sock *qs, struct q *q, uint8_t *buf, struct q_reads *r, int i0, const int *res,
		    ngtcp2_tstamp now)
{
	int rv = 0;

	for (int k = 0; k < RING_READS && !rv; k++) {
		int i = i0 + k;

		if (res[i] == -EAGAIN)
			continue; /* WHY not the end: a datagram may come between two reads */
		if (res[i] < 0) {
			errno = -res[i];
			lc_error(q->c, q->ready ? E_RESET : E_CONNECT);
			rv = -1;
			break;
		}
		r->mm[i].msg_len = (unsigned)res[i];
		r->ovfl[i] = 0;
		q_read_seen(r, i);
		if (res[i] && r->seg[i])
			lc_h3_tally_read(q, (size_t)res[i], r->seg[i], r->ovfl[i] ? r->ovfl[i] : q->ovfl);
		rv = qs->feed(q, buf + (size_t)i * LC_QRX, (size_t)res[i], r->seg[i], now);
	}
	q->rx_rv = rv;
	return !rv && res[i0 + RING_READS - 1] >= 0;
}

/* the sockets of <qq>, RING_READS reads each, through <ring>: their results in <res> */
static void ring_read(struct qring *ring, struct q **qq, int n, uint8_t *buf, struct q_reads *r, int *res)
{
	for (int i = 0; i < n * RING_READS; i++) {
		q_read_prep(buf, r, i);
		qring_recvmsg(ring, qq[i / RING_READS]->fd, &r->mm[i].msg_hdr);
	}
	qring_run(ring, res);
}

/* WHY alone by recvmmsg: the ring gains no call for one socket (a round's
 * last, or one read again), and a recvmmsg of 2 that brings 1 says the
 * socket is empty without a read that fails */
static void one_read(int fd, uint8_t *buf, struct q_reads *r, int *res)
{
	int m = lc_h3_recv(fd, buf, r, RING_READS);

	for (int k = 0; k < RING_READS; k++)
		res[k] = m < 0 ? -errno : k < m ? (int)r->mm[k].msg_len : -EAGAIN;
}

/* WHY RING_READS a socket: the first finds the server's GSO train (UDP_GRO),
 * the next mostly the socket's end (-EAGAIN), in the same system call; a
 * socket whose last read found something is read again the next round. WHY
 * the connections' turns after the round: its buffers are read again by the
 * next, and a turn may end a connection */
int lc_h3_ring_reads(struct lc_h3_sock *qs)
{
	struct lc_thread *t = qs->t;
	uint8_t *buf = t->qbuf + QW_BUF;
	struct q_reads r;
	int res[LC_QS_READS];
	struct q *qq[RING_CONNS];
	struct list *l;

	if (!list_empty(&qs->rd)) {
		int n = 0, more[RING_CONNS];
		ngtcp2_tstamp now;

		for (; n < RING_CONNS && (l = list_pop(&qs->rd)); n++)
			qq[n] = list_elem(l, struct q, rx);
		if (n > 1)
			ring_read(t->qring, qq, n, buf, &r, res);
		else
			one_read(qq[0]->fd, buf, &r, res);
		now = ts();
		t->held_us = now / 1000;
		for (int j = 0; j < n; j++)
			more[j] = ring_fed(qs, qq[j], buf, &r, j * RING_READS, res, now);
		t->held_us = 0;
		for (int j = 0; j < n; j++) {
			struct lc_conn *c = qq[j]->c;

			if (more[j]) {
				list_add(qs->rd.prev, &qq[j]->rx);
				continue;
			}
			qq[j]->rx_got = 1;
			c->nc.ev.cb(&t->loop, &c->nc.ev, EPOLLIN);
		}
	}
	return !list_empty(&qs->rd);
}

/* hxload's HTTP/3 client: ngtcp2 + GnuTLS on a connected UDP socket, nghttp3 for the control and QPACK streams, our framing for the requests' streams. */
#include <errno.h>
#include <netinet/in.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <nghttp3/nghttp3.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "lc_h3.h"
#include "lc_tls.h"
#include "qh3.h"
#include "qh3mem.h"
#include "qmem.h"
#include "qtls.h"
#include "qwrite.h"
#include "timer.h"


static struct qtls qtls;

/* WHY the stream callbacks split on the stream's kind: a request stream
 * (client bidi, id % 4 == 0) is ours (lc_h3_tx.c, lc_h3_read.c), the
 * others (control, QPACK) nghttp3's */
#define OURS(id) (((id) & 3) == 0)

static int handshake_done_cb(ngtcp2_conn *conn, void *user)
{
	struct q *q = user;

	(void)conn;
	/* WHY: with 0-RTT the session is open already, unless the server refused it */
	if (!q->early ? lc_h3_session_open(q) :
	    !(gnutls_session_get_flags(q->tls) & GNUTLS_SFLAGS_EARLY_DATA) ? lc_h3_early_refused(q) : 0)
		return NGTCP2_ERR_CALLBACK_FAILURE;
	q->c->t->st.early += q->early && q->ready && !ngtcp2_conn_get_early_data_rejected(q->conn);
	q->c->hs_early = q->early && q->ready && !ngtcp2_conn_get_early_data_rejected(q->conn);
	q->c->got_bytes = 1; /* WHY: the server answered; a stream it resets is no silent close */
	lc_conn_up(q->c, gnutls_session_is_resumed(q->tls));
	return 0;
}

static int recv_stream_cb(ngtcp2_conn *conn, uint32_t flags, int64_t id, uint64_t off,
			  const uint8_t *data, size_t len, void *user, void *suser)
{
	struct q *q = user;
	nghttp3_ssize n;

	(void)conn, (void)off;
	if (!q->h3)
		return 0;
	if (OURS(id)) { /* a request of ours: its response */
		lc_h3_read(q, suser, id, data, len, flags & NGTCP2_STREAM_DATA_FLAG_FIN);
		lc_h3_consume(q, id, len);
		return 0;
	}
	q->h3_busy = 1;
	n = nghttp3_conn_read_stream(q->h3, id, data, len, flags & NGTCP2_STREAM_DATA_FLAG_FIN);
	if (n < 0)
		return NGTCP2_ERR_CALLBACK_FAILURE;
	lc_h3_consume(q, id, (size_t)n);
	return 0;
}

static int stream_close_cb(ngtcp2_conn *conn, uint32_t flags, int64_t id, uint64_t code,
			   void *user, void *suser)
{
	struct q *q = user;

	(void)conn;
	if (OURS(id))
		lc_h3s_closed(q, suser, flags, code);
	else
		q->h3_busy = 1, qh3_close(q->h3, flags, id, code);
	return 0;
}

static int acked_cb(ngtcp2_conn *conn, int64_t id, uint64_t off, uint64_t len, void *user, void *suser)
{
	/* WHY nothing for ours: their bytes stay until the stream's close */
	if (OURS(id))
		return 0;
	((struct q *)user)->h3_busy = 1;
	return qh3_acked(conn, id, off, len, user, suser);
}

static int reset_cb(ngtcp2_conn *conn, int64_t id, uint64_t size, uint64_t code, void *user, void *suser)
{
	/* WHY nothing for ours: their close follows, with the code */
	if (OURS(id))
		return 0;
	((struct q *)user)->h3_busy = 1;
	return qh3_reset(conn, id, size, code, user, suser);
}

static int unblock_cb(ngtcp2_conn *conn, int64_t id, uint64_t max, void *user, void *suser)
{
	if (OURS(id)) {
		lc_h3s_unblock(user, suser);
		return 0;
	}
	((struct q *)user)->h3_busy = 1;
	return qh3_unblock(conn, id, max, user, suser);
}

static int confirmed_cb(ngtcp2_conn *conn, void *user)
{
	struct q *q = user;

	(void)conn;
	q->ticket = 1; /* WHY: a server that sends tickets has sent them by now */
	return 0;
}

/* WHY: with --0rtt and --close, an answer in 0.5-RTT came before the
 * server's ticket; closed then, the next connection had no fresh ticket
 * and no 0-RTT (every other one went without) */
static int lc_h3_linger(struct lc_conn *c)
{
	struct q *q = c->proto_state;

	return lc_o->zero_rtt && q && !q->ticket;
}

/* a connection ID to give the server: random, but for our connection's
 * key in front (the shared socket finds the connection by it) */
static int new_cid_cb(ngtcp2_conn *conn, ngtcp2_cid *cid, uint8_t *token, size_t len, void *user)
{
	if (qtls_client_new_cid(conn, cid, token, len, user))
		return NGTCP2_ERR_CALLBACK_FAILURE;
	if (len >= LC_CID_KEY)
		lc_h3_cid_stamp(user, cid->data);
	return 0;
}

static const ngtcp2_callbacks q_cbs = {
	.client_initial = ngtcp2_crypto_client_initial_cb,
	.recv_retry = ngtcp2_crypto_recv_retry_cb,
	QTLS_CALLBACKS,
	.rand = qtls_client_rand,
	.get_new_connection_id = new_cid_cb,
	.handshake_completed = handshake_done_cb,
	.handshake_confirmed = confirmed_cb,
	.recv_stream_data = recv_stream_cb,
	.acked_stream_data_offset = acked_cb,
	.stream_close = stream_close_cb,
	.stream_reset = reset_cb,
	.extend_max_stream_data = unblock_cb,
	.extend_max_local_streams_bidi = lc_h3_max_streams,
};

/* ---------- I/O ---------- */


/* <q>'s packets now, sent, or (<b>) queued for the turn's sendmmsg */
static int q_write(struct q *q, ngtcp2_tstamp now, struct qw_batch *b)
{
	struct qw_tally w = { 0 };
	struct qw_out o = { q->fd, NULL, 0, q->c->t->qbuf, 0, &w };
	struct qw_srcs srcs = { 0 };
	int rv;

	/* WHY not always: once its SETTINGS went, nghttp3 has nothing to send
	 * but after an event of its streams, and asking it each burst cost
	 * 1.9 % of hxload's time (perf) */
	if (q->h3 && q->h3_busy)
		qh3_src(&srcs.s[srcs.n++], q->h3);
	lc_h3s_src(&srcs.s[srcs.n++], q);
	rv = qw_burst_in(b, q->conn, &srcs, &o, now);
	if (qh3_src_idle(&srcs))
		q->h3_busy = 0; /* WHY: it answered that it has nothing */

	lc_h3_tally_sent(q, &w);
	if (rv < 0)
		return -1;
	/* WHY not before the handshake's end: with no RTT sample, ngtcp2 paces
	 * by its 333 ms initial RTT, and the first Initial's 1,200 bytes held
	 * the Finished and the first request 20 ms (0-RTT: the Finished) */
	/* WHY the burst's clock: its packets were timed by it, and a clock read
	 * cost 70 ns here (a VM's vDSO: 5.6 % of hxload's time, perf) */
	if (ngtcp2_conn_get_handshake_completed(q->conn))
		ngtcp2_conn_update_pkt_tx_time(q->conn, now);
	return 0;
}

/* <q>'s timer at <exp>, or later when the ACK it would send can wait to
 * ride on a request. WHY: ngtcp2 0.12 delays an ACK by the smoothed RTT
 * over 8, microseconds on a LAN, and puts none not yet due on a packet, so
 * an answer's ACK missed the request written just after it and went alone
 * a moment later, a datagram the server woke for (-c 1 -m 1: 2.0 datagrams
 * out a request; against haterm and gtlsserver at -c 100 -m 1, whose
 * answers took over 1 ms, 1.98). Held up to LC_ACK_HOLD after the read, it
 * rides on the next request, by then due. RFC 9000 13.2: an ACK within the
 * max_ack_delay announced (25 ms), and at once after two ack-eliciting
 * packets, which ngtcp2 still makes due in the read's own round (a
 * download's ACK clock is unchanged). Not held: before the handshake is
 * confirmed, a timer already due, ngtcp2's loss timer (a retransmission),
 * nor while requests wait to go (a pacing time) */
static ngtcp2_tstamp q_hold(struct q *q, ngtcp2_tstamp exp, ngtcp2_tstamp now)
{
	ngtcp2_tstamp until = q->rx_at + LC_ACK_HOLD;
	ngtcp2_conn_stat cs;

	if (!q->ticket || exp <= now || exp >= until || !list_empty(&q->txq))
		return exp;
	ngtcp2_conn_get_conn_stat(q->conn, &cs);
	return MAX(exp, MIN(until, cs.loss_detection_timer));
}

/* the timer at ngtcp2's next expiry. WHY a deadline less than 1 ms off is
 * handled now when it is the first: ngtcp2 lets a packet go up to 1 ms
 * before its pacing time (NGTCP2_PKT_PACING_OVERHEAD), so after a burst
 * of a few packets the pacing time blocks nothing, yet it was the
 * expiry, and its timer ran once a round to write nothing (1,195 runs in
 * 1,232 rounds, -c 10 -m 10, callgrind); handle_expiry() at <now> clears
 * it and touches no other timer, none being due before it */
static void q_arm(struct q *q, ngtcp2_tstamp now)
{
	ngtcp2_tstamp exp = ngtcp2_conn_get_expiry(q->conn);

	if (exp > now && exp - now <= NGTCP2_MILLISECONDS && !ngtcp2_conn_handle_expiry(q->conn, now))
		exp = ngtcp2_conn_get_expiry(q->conn);
	exp = q_hold(q, exp, now);
	if (exp != UINT64_MAX)
		timer_arm(&q->c->t->loop.timers, &q->tm, (exp + 999) / 1000);
}

/* where <q>'s packets go in a loop turn: the thread's batch, sent at the
 * turn's end (one sendmmsg a shared socket, or all sockets' trains in one
 * io_uring_enter); NULL (sent at once) for a socket of its own, no ring */
static struct qw_batch *q_batch(struct q *q)
{
	struct qw_batch *b = &lc_h3_sock_of(q->c->t)->batch;

	return q->port || b->ring ? b : NULL;
}

static void q_timer(struct loop *l, struct timer *t)
{
	struct q *q = container_of(t, struct q, tm);
	ngtcp2_tstamp now = ts();

	(void)l;
	if (ngtcp2_conn_handle_expiry(q->conn, now)) {
		struct lc_conn *c = q->c;

		lc_error(c, q->ready ? E_TIMEOUT : E_TLS);
		lc_reset(c); /* frees <q> */
		return;
	}
	/* WHY its packets in a send round at the turn's end: a timer due as
	 * the answer came (an ACK's) wrote a packet of its own, and where the
	 * answer's read waits for the turn's end (the ring's rounds, a shared
	 * socket) that packet went ahead of the next request, and the server
	 * woke for it, then again for the request (-c 1 -m 1, all reads at
	 * the turn's end: 16,000 requests a second against 19,000; 1.00
	 * datagrams out a request against 1.99 once the round sent both) */
	if (list_empty(&q->due))
		list_add(lc_h3_sock_of(q->c->t)->due.prev, &q->due);
}

/* new requests and every packet due, sent at one clock reading <now>
 * that the requests share (lc_clock): 0, or -1 */
static int q_send_round(struct q *q, ngtcp2_tstamp now, struct qw_batch *b)
{
	struct lc_thread *t = q->c->t;
	int rv;

	t->held_us = now / 1000;
	lc_h3_fill(q);
	rv = q_write(q, now, b);
	t->held_us = 0;
	if (!rv)
		q_arm(q, now);
	return rv;
}

/* WHY: a server that refuses the handshake (a client certificate it
 * wants, no certificate for no SNI) says why in its CONNECTION_CLOSE, a TLS
 * alert as CRYPTO_ERROR, maybe after the client saw its handshake done, or
 * another code and a reason before it: 1 when so, its line set */
static int refused(struct q *q)
{
	ngtcp2_connection_close_error ce;
	int crypto, want_cert;
	char said[160], why[201], msg[1024];
	size_t n;

	ngtcp2_conn_get_connection_close_error(q->conn, &ce);
	crypto = ce.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_TRANSPORT &&
		 (ce.error_code & ~(uint64_t)0xff) == NGTCP2_CRYPTO_ERROR;
	want_cert = crypto && (ce.error_code & 0xff) == 116; /* certificate required */
	if (crypto)
		q->c->alert = (int)(ce.error_code & 0xff);
	if (crypto)
		snprintf(said, sizeof(said), "alert %s", lc_tls_alert_name((int)(ce.error_code & 0xff)));
	else if (!q->ready)
		snprintf(said, sizeof(said), "%s error 0x%llx", ce.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION ?
			 "application" : "transport", (unsigned long long)ce.error_code);
	else
		return 0;
	for (n = 0; n < MIN(ce.reasonlen, sizeof(why) - 1); n++)
		why[n] = ce.reason[n] >= 0x20 && ce.reason[n] <= 0x7e ? (char)ce.reason[n] : '?';
	why[n] = 0;
	/* WHY no --cert hint without SNI but for "certificate required": the
	 * name is the likelier want */
	snprintf(msg, sizeof(msg), "the server at %s refused the QUIC handshake: %s%s%s%s%s%s", lc_tg->where, said,
		 n ? ", reason \"" : "", why, n ? "\"" : "",
		 crypto && !lc_o->cert && (want_cert || lc_tg->sni[0]) ? " (does it want a client certificate? --cert)" : "",
		 want_cert ? "" : lc_sni_hint());
	lc_fatal_set(msg);
	return 1;
}

/* the server closed with H3_NO_ERROR after its GOAWAY, every request
 * answered or retried: a new connection, no error */
static int graceful_end(struct q *q)
{
	ngtcp2_connection_close_error ce;

	if (!q->c->goaway || q->c->inflight)
		return 0;
	ngtcp2_conn_get_connection_close_error(q->conn, &ce);
	return ce.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION && ce.error_code == NGHTTP3_H3_NO_ERROR;
}

/* a read's datagrams to ngtcp2, received at <now>: 0, 1 the server's
 * graceful end, -1 an error (lc_error'd) */
static int q_feed(struct q *q, const uint8_t *buf, size_t n, size_t seg, ngtcp2_tstamp now)
{
	ngtcp2_path path = { { (ngtcp2_sockaddr *)&q->local, q->locallen },
			     { (ngtcp2_sockaddr *)&lc_tg->addr, lc_tg->alen }, NULL };
	ngtcp2_pkt_info pi = { 0 };

	q->rx_at = now;
	/* WHY seg: ngtcp2 0.12 asserts on an empty datagram (the server's did) */
	for (size_t off = 0; seg && off < n; off += seg) {
		int rv = ngtcp2_conn_read_pkt(q->conn, &path, &pi, buf + off, MIN(seg, n - off), now);

		if (rv == NGTCP2_ERR_DRAINING && graceful_end(q))
			return 1;
		if (rv) {
			/* WHY refused first: the server's words before
			 * the handshake's end too */
			int tls = (rv == NGTCP2_ERR_DRAINING && refused(q)) || rv == NGTCP2_ERR_CRYPTO || !q->ready;

			lc_error(q->c, tls ? E_TLS : E_RESET);
			return -1;
		}
	}
	return 0;
}

/* what the socket holds, to ngtcp2: 0 all read, 1 the server's graceful
 * end, -1 an error. The answers they complete are timed at their read
 * (lc_clock: one reading a batch, as they came together) */
static int q_read_all(struct q *q)
{
	struct lc_thread *t = q->c->t;
	uint8_t *buf = t->qbuf + QW_BUF;
	struct q_reads r;
	int n, rv = 0;

	if (q->port || q->rx_got) { /* WHY: the shared socket's batch, or the ring, read it (lc_h3_sock.c) */
		rv = q->rx_rv;
		q->rx_rv = 0;
		q->rx_got = 0;
		if (!rv)
			q->c->nc.flags &= ~NC_RD_READY;
		return rv;
	}
	do {
		ngtcp2_tstamp now;

		if ((n = lc_h3_recv(q->fd, buf, &r, LC_QRX_MSGS)) < 0) {
			lc_error(q->c, q->ready ? E_RESET : E_CONNECT);
			return -1;
		}
		now = n ? ts() : 0;
		t->held_us = now / 1000;
		for (int i = 0; i < n && !rv; i++) {
			if (r.mm[i].msg_len && r.seg[i])
				lc_h3_tally_read(q, r.mm[i].msg_len, r.seg[i], r.ovfl[i] ? r.ovfl[i] : q->ovfl);
			rv = q_feed(q, buf + (size_t)i * LC_QRX, r.mm[i].msg_len, r.seg[i], now);
		}
		t->held_us = 0;
	} while (!rv && n == LC_QRX_MSGS);
	if (!rv)
		q->c->nc.flags &= ~NC_RD_READY; /* WHY: read empty; its next datagram is an edge (EPOLLET) */
	return rv;
}

/* the send rounds of the connections due, then what the batch holds: 1 when
 * there was any */
static int q_sends(struct lc_h3_sock *qs)
{
	struct list *n;
	ngtcp2_tstamp now;

	if (list_empty(&qs->due) && !qs->batch.n)
		return 0;
	now = ts();
	while ((n = list_pop(&qs->due))) {
		struct q *q = list_elem(n, struct q, due);

		if (q_send_round(q, now, q_batch(q)) < 0) {
			struct lc_conn *c = q->c;

			lc_error(c, E_PROTOCOL);
			lc_reset(c); /* frees <q> */
		}
		/* WHY not all at the end: the server works on the first
		 * connections' packets while the next are written; sent in one
		 * sendmmsg at the turn's end, the two sides took turns, each idle
		 * while the other worked (-c 40 -m 20: hxterm -t 1 86 to 88 %
		 * busy, flushed every 4 trains 86 to 96 %, as with a socket each) */
		if (qs->batch.n >= LC_QS_FLUSH)
			qw_flush(&qs->batch);
	}
	if (qs->batch.n)
		qw_flush(&qs->batch);
	return 1;
}

/* WHY at the turn's end: the packets of every connection read in the turn
 * go in one sendmmsg (a shared socket, --h3-ports) or, through the ring,
 * one io_uring_enter for all sockets; the sockets of their own are read
 * there too, a round of 4 a call (lc_h3_io says when). WHY not for a
 * socket of its own without the ring: it gains no call, and the
 * connections' writes held to the turn's end cost the client more than
 * the server (bench/client: client/server 1.29 against 1.02 sending at
 * once, 4 runs alternating). Through the ring: 0.066 socket calls a request
 * against 0.209 (59-h3-sendmmsg.t), client CPU 1.22 us a request against
 * 1.38, -c 10 -m 10, 4 runs alternating; -c 10 -m 1 192,000 requests in 2 s
 * against 145,000 (every read of the turn in one call, then all sent: 0.86
 * of the rate at -c 10 -m 10) */
static int q_turn_end(struct loop *l)
{
	struct lc_h3_sock *qs = lc_h3_sock_of(container_of(l, struct lc_thread, loop));
	int more, ran = 0;

	/* WHY the sends of each round of reads before the next: the server
	 * works on them meanwhile */
	do {
		more = lc_h3_ring_reads(qs);
		ran |= q_sends(qs);
	} while (more);
	return ran;
}

/* WHY the read only when the socket said so: in an open loop each send
 * time due calls this to send, and its recvmmsg found nothing (a system
 * call a request, EAGAIN, at -R). WHY a shared socket's read's send round
 * at the turn's end (q_turn_end) but not another's: a send time due comes
 * outside the loop's turn, and would wait for the next one's end; a
 * GOAWAY's ends the connection here */
static int lc_h3_io(struct lc_conn *c)
{
	struct q *q = c->proto_state;
	struct lc_h3_sock *qs = lc_h3_sock_of(c->t);
	int read = !!(c->nc.flags & NC_RD_READY), ring = !q->port && qs->batch.ring, got = q->rx_got, rv;

	/* WHY: its socket is read with the others' at the turn's end, one
	 * system call (lc_h3_ring_reads), which gives it its turn again. WHY
	 * not when the turn has fewer than 3 sockets to read: each is read and
	 * answered at once, as without the ring; a round of 2 held the first
	 * one's request while the second was read (-c 2 -m 1: p50 59 us
	 * against 46) */
	if (read && ring && !q->rx_got && (!list_empty(&qs->rd) || c->t->loop.npending >= 2)) {
		if (list_empty(&q->rx))
			list_add(qs->rd.prev, &q->rx);
		return 0;
	}
	if ((rv = read ? q_read_all(q) : 0))
		return rv;
	if (read && (q->port || got) && !c->goaway) {
		if (list_empty(&q->due))
			list_add(qs->due.prev, &q->due);
		return 0;
	}
	/* WHY a reading of its own: the requests go after the answers were
	 * read, and their time runs from their send */
	if (q_send_round(q, ts(), NULL) < 0) {
		lc_error(c, E_PROTOCOL);
		return -1;
	}
	/* WHY once its requests are done: those above a GOAWAY's id went back
	 * to be sent again; then a new connection, no error */
	return c->goaway && !c->inflight;
}

static int q_new(struct q *q, struct lc_conn *c)
{
	ngtcp2_cid dcid, scid;
	ngtcp2_settings st;
	ngtcp2_transport_params tp;
	uint8_t *b = lc_hs_ticket(c) ? lc_h3_ticket_peek(c->t) : NULL;
	int early = lc_h3_ticket_early(b) && lc_hs_early(c);
	ngtcp2_path path = { { (ngtcp2_sockaddr *)&q->local, q->locallen },
			     { (ngtcp2_sockaddr *)&lc_tg->addr, lc_tg->alen }, NULL };

	c->hs_offered = b != NULL;
	dcid.datalen = 18;
	scid.datalen = LC_SCID_LEN;
	gnutls_rnd(GNUTLS_RND_RANDOM, dcid.data, dcid.datalen);
	gnutls_rnd(GNUTLS_RND_RANDOM, scid.data, scid.datalen);
	lc_h3_cid_stamp(q, scid.data);
	ngtcp2_settings_default(&st);
	st.initial_ts = ts();
	st.handshake_timeout = lc_o->timeout_us * NGTCP2_MICROSECONDS;
	ngtcp2_transport_params_default(&tp);
	tp.initial_max_stream_data_bidi_local = lc_h3_window();
	tp.initial_max_stream_data_uni = 1 << 20;
	tp.initial_max_data = (uint64_t)lc_o->h3_conn_window;
	tp.initial_max_streams_uni = 3;
	tp.max_idle_timeout = 30 * NGTCP2_SECONDS;
	qmem_init(&q->qm);
	if (ngtcp2_conn_client_new(&q->conn, &dcid, &scid, &path, NGTCP2_PROTO_VER_V1, &q_cbs, &st,
				   &tp, &q->qm.mem, q))
		return -1;
	/* WHY NO_END_OF_EARLY_DATA: QUIC has none (RFC 9001 8.3); in the
	 * transcript it made the next ticket's binder wrong, decrypt_error */
	if (qtls_session(&qtls, &q->tls, 0, early ? GNUTLS_ENABLE_EARLY_DATA | GNUTLS_NO_END_OF_EARLY_DATA : 0,
			 &q->conn, &q->ref) ||
	    (lc_tg->sni[0] && gnutls_server_name_set(q->tls, GNUTLS_NAME_DNS, lc_tg->sni, strlen(lc_tg->sni))) ||
	    (!lc_o->no_resume && lc_h3_resume(q, b, early)))
		return -1;
	if (lc_o->cacert)
		gnutls_session_set_verify_cert(q->tls, lc_tg->sni[0] ? lc_tg->sni : lc_tg->host, 0);
	return 0;
}

static int lc_h3_open(struct lc_conn *c)
{
	struct q *q = calloc(1, sizeof(*q));
	struct lc_h3s **sx = calloc((size_t)lc_o->depth, sizeof(*sx));

	if (!c->t->qbuf && (c->t->qbuf = malloc(LC_QBUF)))
		lc_h3_sock_init(c->t, q_feed);
	if (q && sx && c->t->qbuf) {
		q->c = c;
		list_init(&q->due);
		list_init(&q->rx);
	}
	if (!q || !sx || !c->t->qbuf || (lc_h3_sock_join(q) < 0 && (q->fd = lc_h3_sock_own(c)) < 0)) {
		free(q);
		free(sx);
		return -1;
	}
	q->sx = sx;
	q->hc_path = -1;
	list_init(&q->txq);
	list_init(&q->streams);
	list_init(&q->spare);
	q->tm = (struct timer){ 0, 0, q_timer };
	c->t->loop.turn_end = q_turn_end;
	q->locallen = sizeof(q->local);
	getsockname(q->fd, (struct sockaddr *)&q->local, &q->locallen);
	/* WHY -1 on the shared socket: the connection's end closes its own */
	c->nc.x = (struct xprt){ .fd = q->port ? -1 : q->fd };
	c->proto_state = q;
	c->ex_used = 0;
	c->nc.ev.fd = c->nc.x.fd;
	if (q_new(q, c) < 0 || (!q->port && loop_watch(&c->t->loop, &c->nc.ev, EPOLLIN | EPOLLET) < 0))
		return -1;
	/* WHY requests: with --0rtt and a session, they go with the ClientHello */
	return q_send_round(q, ts(), NULL);
}

/* CONNECTION_CLOSE (no error): the server frees the connection now, not at
 * its idle timeout */
static void q_goodbye(struct q *q)
{
	uint8_t buf[1500];
	ngtcp2_path_storage ps;
	ngtcp2_pkt_info pi;
	ngtcp2_connection_close_error ccerr;
	ngtcp2_ssize n;

	ngtcp2_path_storage_zero(&ps);
	ngtcp2_connection_close_error_set_application_error(&ccerr, NGHTTP3_H3_NO_ERROR, NULL, 0);
	n = ngtcp2_conn_write_connection_close(q->conn, &ps.path, &pi, buf, sizeof(buf), &ccerr, ts());
	if (n > 0 && send(q->fd, buf, (size_t)n, 0) < 0)
		return; /* WHY: best effort; the server's idle timeout ends it otherwise */
}

static void lc_h3_free(struct lc_conn *c)
{
	struct q *q = c->proto_state;

	if (!q)
		return;
	timer_cancel(&c->t->loop.timers, &q->tm);
	list_del(&q->due);
	/* WHY: the batch may hold trains for its socket, closed after this */
	if (!q->port && lc_h3_sock_of(c->t)->batch.n)
		qw_flush(&lc_h3_sock_of(c->t)->batch);
	if (q->ready)
		q_goodbye(q);
	if (q->h3)
		nghttp3_conn_del(q->h3);
	if (q->conn) {
		ngtcp2_conn_del(q->conn);
		qmem_release(&q->qm);
	}
	if (q->tls)
		gnutls_deinit(q->tls);
	lc_h3s_free_all(q);
	lc_h3_sock_leave(q);
	free(q->sx);
	free(q);
	c->proto_state = NULL;
}

static int lc_h3_global_init(void)
{
	const struct lc_opts *o = lc_o;

	if (qtls_init(&qtls) < 0)
		return -1;
	if (o->force == LC_H3 && o->cacert &&
	    gnutls_certificate_set_x509_trust_file(qtls.cred, o->cacert, GNUTLS_X509_FMT_PEM) <= 0)
		return -1;
	if (o->force == LC_H3 && o->cert &&
	    gnutls_certificate_set_x509_key_file(qtls.cred, o->cert, o->key ? o->key : o->cert,
						 GNUTLS_X509_FMT_PEM) < 0)
		return -1;
	return 0;
}

const struct qtls *lc_h3_qtls(void)
{
	return &qtls;
}

static void lc_h3_global_free(void)
{
	qtls_free(&qtls);
}

const struct lc_protocol lc_h3 = {
	.name = "h3",
	.global_init = lc_h3_global_init,
	.global_free = lc_h3_global_free,
	.open = lc_h3_open,
	.io = lc_h3_io,
	.free = lc_h3_free,
	.linger = lc_h3_linger,
};

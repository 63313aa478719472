/* hxload --idle over HTTP/3: each held connection's QUIC (ngtcp2, GnuTLS) on its own UDP socket, its one request, its timers and keep-alive PINGs. */
#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "lc_conn.h"
#include "lc_idle_int.h"
#include "lc_source.h"
#include "lc_thread.h"
#include "qmem.h"
#include "qtls.h"
#include "timer.h"

#define Q_STREAM_WINDOW (256 << 10) /* the answer's body: read and credited back as it comes */
#define Q_CONN_WINDOW   (1 << 20)

/* WHY no nghttp3 and no buffer: hxload's memory per idle connection is a
 * figure; the request is the same bytes for all, sent from <req> (ngtcp2
 * keeps a pointer to stream data until it is acknowledged) */
struct idle_q {
	ngtcp2_conn *conn;
	gnutls_session_t tls;
	ngtcp2_crypto_conn_ref ref;
	struct idle_conn *c;
	struct timer tm;
	int64_t req_id, ctl_id;      /* -1 until the handshake is done */
	uint16_t req_off, ctl_off;   /* bytes of <req> and <ctl> written */
	uint8_t ended;               /* closed (by the peer, its idle timeout) or failed */
	struct qmem qm;
};

static uint8_t req[4096];
static size_t req_len;
static const uint8_t ctl[] = { 0x00, 0x04, 0x00 }; /* the control stream: its type, an empty SETTINGS */
static uint8_t io[65536];                          /* a datagram in, a packet out */
static struct theap heap;                          /* the idle thread's */

static uint64_t now_us(void)
{
	return (uint64_t)clock_ns() / 1000;
}

static int handshake_done_cb(ngtcp2_conn *conn, void *user)
{
	struct idle_q *q = user;

	if (ngtcp2_conn_open_uni_stream(conn, &q->ctl_id, NULL) || ngtcp2_conn_open_bidi_stream(conn, &q->req_id, NULL))
		return NGTCP2_ERR_CALLBACK_FAILURE;
	lc_idle.connecting--;
	q->c->st = IC_SENT;
	return 0;
}

/* any byte of the answer answers it; every byte read is credited back */
static int recv_stream_cb(ngtcp2_conn *conn, uint32_t flags, int64_t id, uint64_t off, const uint8_t *data,
			  size_t len, void *user, void *suser)
{
	struct idle_q *q = user;

	(void)flags, (void)off, (void)data, (void)suser;
	if (id == q->req_id && q->c->st == IC_SENT) {
		idle_answered(q->c, lc_now_us());
		if (lc_o->idle_ping_us)
			ngtcp2_conn_set_keep_alive_timeout(conn, lc_o->idle_ping_us * NGTCP2_MICROSECONDS);
	}
	ngtcp2_conn_extend_max_stream_offset(conn, id, len);
	ngtcp2_conn_extend_max_offset(conn, len);
	return 0;
}

static const ngtcp2_callbacks q_cbs = {
	.client_initial = ngtcp2_crypto_client_initial_cb,
	.recv_retry = ngtcp2_crypto_recv_retry_cb,
	QTLS_CALLBACKS,
	.rand = qtls_client_rand,
	.get_new_connection_id = qtls_client_new_cid,
	.handshake_completed = handshake_done_cb,
	.recv_stream_data = recv_stream_cb,
};

/* the next stream bytes to send: the control stream's, then the request's (with FIN) */
static int64_t next_data(struct idle_q *q, ngtcp2_vec *v, uint32_t *flags, unsigned skip)
{
	if (q->ctl_id >= 0 && q->ctl_off < sizeof(ctl) && !(skip & 1)) {
		*v = (ngtcp2_vec){ (uint8_t *)ctl + q->ctl_off, sizeof(ctl) - q->ctl_off };
		return q->ctl_id;
	}
	if (q->req_id >= 0 && q->req_off < req_len && !(skip & 2)) {
		*v = (ngtcp2_vec){ req + q->req_off, req_len - q->req_off };
		*flags |= NGTCP2_WRITE_STREAM_FLAG_FIN;
		return q->req_id;
	}
	return -1;
}

/* every packet the connection has now, one send each: how many, or ngtcp2's error */
static int q_write(struct idle_q *q)
{
	size_t max = MIN(sizeof(io), ngtcp2_conn_get_max_tx_udp_payload_size(q->conn));
	unsigned skip = 0; /* WHY: a stream ngtcp2 will not take now is not offered again in this burst */
	int npkt = 0;

	for (;;) {
		uint32_t flags = NGTCP2_WRITE_STREAM_FLAG_MORE;
		ngtcp2_vec v;
		int64_t sid = next_data(q, &v, &flags, skip);
		ngtcp2_ssize nd = -1, n;
		ngtcp2_pkt_info pi;

		n = ngtcp2_conn_writev_stream(q->conn, NULL, &pi, io, max, &nd, flags, sid, &v, sid >= 0,
					      (ngtcp2_tstamp)clock_ns());
		if (n == NGTCP2_ERR_STREAM_DATA_BLOCKED || n == NGTCP2_ERR_STREAM_SHUT_WR) {
			skip |= sid == q->ctl_id ? 1 : 2;
			continue;
		}
		if (nd > 0 && sid == q->ctl_id)
			q->ctl_off += (uint16_t)nd;
		else if (nd > 0)
			q->req_off += (uint16_t)nd;
		if (n == NGTCP2_ERR_WRITE_MORE)
			continue;
		if (n <= 0)
			return n < 0 ? (int)n : npkt;
		/* WHY no retry: a datagram the kernel refuses is lost, QUIC resends it */
		if (send(q->c->fd, io, (size_t)n, 0) >= 0)
			npkt++;
	}
}

static void q_arm(struct idle_q *q)
{
	ngtcp2_tstamp exp = ngtcp2_conn_get_expiry(q->conn);

	if (exp == UINT64_MAX)
		timer_cancel(&heap, &q->tm);
	else
		timer_arm(&heap, &q->tm, (exp + 999) / 1000);
}

/* the connection ended: the peer's close (or its idle timeout) once
 * answered, a failure before (its cause said); -1 for the caller to free it */
static int q_end(struct idle_q *q, int rv)
{
	struct idle_conn *c = q->c;

	timer_cancel(&heap, &q->tm);
	q->ended = 1;
	if (c->st == IC_CONNECTING)
		lc_idle.connecting--;
	if (c->st != IC_ANSWERED)
		idle_why_text(&lc_idle, rv == NGTCP2_ERR_DRAINING ? "closed by the peer before its answer" :
					rv == NGTCP2_ERR_IDLE_CLOSE ? "QUIC idle timeout before its answer" :
					rv ? ngtcp2_strerror(rv) : "QUIC: cannot receive");
	return -1;
}

static int q_new(struct idle_q *q, const struct sockaddr *local, socklen_t locallen)
{
	ngtcp2_cid dcid = { .datalen = 18 }, scid = { .datalen = 17 };
	ngtcp2_settings st;
	ngtcp2_transport_params tp;
	ngtcp2_path path = { { (ngtcp2_sockaddr *)local, locallen },
			     { (ngtcp2_sockaddr *)&lc_tg->addr, lc_tg->alen }, NULL };

	gnutls_rnd(GNUTLS_RND_RANDOM, dcid.data, dcid.datalen);
	gnutls_rnd(GNUTLS_RND_RANDOM, scid.data, scid.datalen);
	ngtcp2_settings_default(&st);
	st.initial_ts = (ngtcp2_tstamp)clock_ns();
	st.handshake_timeout = lc_o->timeout_us * NGTCP2_MICROSECONDS;
	ngtcp2_transport_params_default(&tp);
	tp.initial_max_stream_data_bidi_local = Q_STREAM_WINDOW;
	tp.initial_max_stream_data_uni = Q_STREAM_WINDOW;
	tp.initial_max_data = Q_CONN_WINDOW;
	tp.initial_max_streams_uni = 3;
	/* WHY none of ours: the idle timeout in force is then the peer's,
	 * and a connection ended by it is the peer's doing */
	tp.max_idle_timeout = 0;
	qmem_init(&q->qm);
	if (ngtcp2_conn_client_new(&q->conn, &dcid, &scid, &path, NGTCP2_PROTO_VER_V1, &q_cbs, &st, &tp,
				   &q->qm.mem, q))
		return -1;
	if (qtls_session(lc_h3_qtls(), &q->tls, 0, 0, &q->conn, &q->ref) ||
	    (lc_tg->sni[0] && gnutls_server_name_set(q->tls, GNUTLS_NAME_DNS, lc_tg->sni, strlen(lc_tg->sni))))
		return -1;
	if (lc_o->cacert)
		gnutls_session_set_verify_cert(q->tls, lc_tg->sni[0] ? lc_tg->sni : lc_tg->host, 0);
	return 0;
}

int idle_h3_open(struct idle_conn *c, int ep, uint32_t source)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
	struct sockaddr_storage local;
	socklen_t locallen = sizeof(local);
	struct idle_q *q;

	if (!req_len && !(req_len = idle_h3_request(req, sizeof(req))))
		return errno = E2BIG, -1;
	if (!(q = calloc(1, sizeof(*q))))
		return errno = ENOMEM, -1;
	q->c = c, c->q = q;
	q->req_id = q->ctl_id = -1;
	q->tm = (struct timer){ 0, 0, NULL };
	if ((c->fd = socket(lc_tg->addr.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0 ||
	    lc_source_bind(c->fd, source) < 0 || connect(c->fd, (struct sockaddr *)&lc_tg->addr, lc_tg->alen) < 0 ||
	    getsockname(c->fd, (struct sockaddr *)&local, &locallen) < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) < 0)
		return -1;
	if (q_new(q, (struct sockaddr *)&local, locallen) < 0 || q_write(q) < 0)
		return errno = EPROTO, -1;
	q_arm(q);
	return 0;
}

int idle_h3_event(struct idle_conn *c)
{
	struct idle_q *q = c->q;
	int rv;

	for (;;) {
		ngtcp2_pkt_info pi = { 0 };
		ssize_t n = recv(c->fd, io, sizeof(io), 0);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n <= 0) { /* WHY 0 too: ngtcp2 0.12 asserts on an empty datagram */
			if (n == 0)
				continue;
			return q_end(q, 0);
		}
		if ((rv = ngtcp2_conn_read_pkt(q->conn, ngtcp2_conn_get_path(q->conn), &pi, io, (size_t)n,
					       (ngtcp2_tstamp)clock_ns())))
			return q_end(q, rv);
	}
	if ((rv = q_write(q)) < 0)
		return q_end(q, rv);
	q_arm(q);
	return 0;
}

int idle_h3_wait_ms(int most)
{
	uint64_t next = timer_next(&heap), now = now_us();

	if (next == TIMER_NONE)
		return most;
	return next <= now ? 0 : (int)MIN((uint64_t)most, (next - now + 999) / 1000);
}

/* the connections whose time came: ngtcp2's timers (losses, ACKs, its idle
 * timeout, the keep-alive PINGs, counted once answered); stops at one that
 * ended and returns it, NULL when none is due */
struct idle_conn *idle_h3_timers(struct idle_state *s)
{
	struct timer *t;

	while ((t = timer_pop(&heap, now_us()))) {
		struct idle_q *q = container_of(t, struct idle_q, tm);
		int rv = ngtcp2_conn_handle_expiry(q->conn, (ngtcp2_tstamp)clock_ns()), n = 0;

		if (rv || (n = q_write(q)) < 0) {
			q_end(q, rv ? rv : n);
			return q->c;
		}
		if (q->c->st == IC_ANSWERED && lc_o->idle_ping_us)
			s->pings += (uint64_t)n;
		q_arm(q);
	}
	return NULL;
}

/* the run is over: CONNECTION_CLOSE (no error), so that the server frees
 * it now, as a TCP peer does at its FIN, not at its idle timeout */
static void q_bye(struct idle_q *q)
{
	ngtcp2_connection_close_error ce;
	ngtcp2_pkt_info pi;
	ngtcp2_ssize n;

	ngtcp2_connection_close_error_set_application_error(&ce, 0x100 /* H3_NO_ERROR */, NULL, 0);
	n = ngtcp2_conn_write_connection_close(q->conn, NULL, &pi, io, sizeof(io), &ce, (ngtcp2_tstamp)clock_ns());
	if (n > 0 && send(q->c->fd, io, (size_t)n, 0) < 0)
		return; /* WHY: best effort, the server's idle timeout ends it else */
}

void idle_h3_free(struct idle_conn *c)
{
	struct idle_q *q = c->q;

	timer_cancel(&heap, &q->tm);
	if (q->conn && !q->ended && c->st == IC_ANSWERED)
		q_bye(q);
	if (q->conn) {
		ngtcp2_conn_del(q->conn);
		qmem_release(&q->qm);
	}
	if (q->tls)
		gnutls_deinit(q->tls);
	free(q);
	c->q = NULL;
}

void idle_h3_end(void)
{
	theap_free(&heap);
}

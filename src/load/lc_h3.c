/* hxload's HTTP/3 client: ngtcp2 + GnuTLS on a connected UDP socket, nghttp3 for requests. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
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

#include "clock.h"
#include "common.h"
#include "lc_conn.h"
#include "lc_hits.h"
#include "lc_source.h"
#include "lc_tls.h"
#include "qh3.h"
#include "qh3mem.h"
#include "qmem.h"
#include "qtls.h"
#include "qwrite.h"
#include "timer.h"

#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#define LC_QRX 65536 /* a GRO train's most */

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
	struct qmem qm;          /* ngtcp2's memory, freed whole at the end (its leak) */
};

static struct qtls qtls;

static ngtcp2_tstamp ts(void)
{
	return (ngtcp2_tstamp)clock_ns();
}

static struct lc_ex *ex_of(struct lc_conn *c, int64_t id)
{
	for (int i = 0; i < lc_o->depth; i++)
		if (c->ex[i].id == id)
			return &c->ex[i];
	return NULL;
}

/* ---------- nghttp3 ---------- */

static int h3_header(nghttp3_conn *h3, int64_t id, int32_t token, nghttp3_rcbuf *name,
		     nghttp3_rcbuf *value, uint8_t flags, void *cud, void *sud)
{
	struct lc_ex *e = sud;
	nghttp3_vec n = nghttp3_rcbuf_get_buf(name), v = nghttp3_rcbuf_get_buf(value);

	(void)h3, (void)id, (void)token, (void)flags, (void)cud;
	if (!e)
		return 0;
	if (n.len == 7 && !memcmp(n.base, ":status", 7) && v.len == 3)
		lc_head(((struct q *)cud)->c, e,
			(unsigned)((v.base[0] - '0') * 100 + (v.base[1] - '0') * 10 + (v.base[2] - '0')));
	else if (n.len == 5 && !memcmp(n.base, "x-rsp", 5))
		lc_xrsp(e, (const char *)v.base, v.len);
	else if (n.len == 13 && !memcmp(n.base, "x-hxterm-made", 13))
		lc_made(e, (const char *)v.base, v.len);
	else if (n.len == 16 && !memcmp(n.base, "x-hxterm-ignored", 16))
		lc_ignored(((struct q *)cud)->c->t, (const char *)v.base, v.len);
	return 0;
}

static void consume(struct q *q, int64_t id, size_t n)
{
	if (lc_o->h3_no_credit)
		return;
	ngtcp2_conn_extend_max_stream_offset(q->conn, id, n);
	ngtcp2_conn_extend_max_offset(q->conn, n);
}

static int h3_data(nghttp3_conn *h3, int64_t id, const uint8_t *data, size_t len, void *cud, void *sud)
{
	struct q *q = cud;

	(void)h3;
	if (sud)
		lc_verify(sud, (const char *)data, len);
	consume(q, id, len);
	return 0;
}

static int h3_deferred(nghttp3_conn *h3, int64_t id, size_t n, void *cud, void *sud)
{
	(void)h3, (void)sud;
	consume(cud, id, n);
	return 0;
}

static int h3_close(nghttp3_conn *h3, int64_t id, uint64_t code, void *cud, void *sud)
{
	struct q *q = cud;
	struct lc_ex *e = sud;

	(void)h3;
	if (!e)
		return 0;
	if (code != NGHTTP3_H3_NO_ERROR) {
		lc_fail(q->c, e, E_RESET);
	} else {
		lc_record(q->c, e);
	}
	e->id = -1;
	q->c->inflight--;
	(void)id;
	return 0;
}

static const nghttp3_callbacks h3_cbs = {
	.recv_header = h3_header,
	.recv_data = h3_data,
	.deferred_consume = h3_deferred,
	.stream_close = h3_close,
};

/* ---------- requests ---------- */

/* the request body: 'u' bytes from a constant buffer (it outlives every ack) */
static nghttp3_ssize body_read(nghttp3_conn *h3, int64_t id, nghttp3_vec *vec, size_t veccnt,
			       uint32_t *flags, void *cud, void *sud)
{
	static const uint8_t u[16384] = { [0 ... 16383] = 'u' };
	struct lc_ex *e = sud;
	size_t n = (size_t)MIN(e->body_left, (uint64_t)sizeof(u));

	(void)h3, (void)id, (void)veccnt, (void)cud;
	if (lc_o->h3_no_body)
		return NGHTTP3_ERR_WOULDBLOCK; /* WHY: the probe of a body timeout: it never comes */
	vec[0] = (nghttp3_vec){ (uint8_t *)u, n };
	e->body_left -= n;
	if (!e->body_left)
		*flags |= NGHTTP3_DATA_FLAG_EOF;
	return 1;
}

/* --h3-fields: a connection's first request as the user wrote it (nghttp3's
 * client checks nothing that it sends; WHY NO_COPY_NAME: its copy lower-cases
 * the name, and the fields live as long as the options) */
static void raw_fields(nghttp3_nv *nv)
{
	for (int i = 0; i < lc_o->nh3_fields; i++) {
		const struct lc_field *f = &lc_o->h3_fields[i];

		nv[i] = (nghttp3_nv){ (uint8_t *)f->name, (uint8_t *)f->value, f->nlen, f->vlen,
				      NGHTTP3_NV_FLAG_NO_COPY_NAME | NGHTTP3_NV_FLAG_NO_COPY_VALUE };
	}
}

static void submit(struct q *q, struct lc_ex *e)
{
	const struct lc_opts *o = lc_o;
	const struct lc_target *tg = lc_tg;
	static const nghttp3_data_reader body = { body_read };
	nghttp3_nv nv[4 + LC_MAX_HDRS];
	size_t n = 4;
	int64_t id;
	int raw;

#define NV(a, b) (nghttp3_nv){ (uint8_t *)(a), (uint8_t *)(b), strlen(a), strlen(b), NGHTTP3_NV_FLAG_NONE }
	nv[0] = NV(":method", o->method);
	nv[1] = NV(":scheme", "https");
	nv[2] = NV(":authority", tg->authority);
	nv[3] = NV(":path", tg->paths[e->path].path);
#undef NV
	if ((raw = o->nh3_fields && !q->raw_sent++)) {
		raw_fields(nv);
		n = (size_t)o->nh3_fields;
	}
	for (int i = 0; i < o->nhdrs && !raw; i++) {
		const char *colon = strchr(o->hdrs[i], ':'), *v = colon + 1 + strspn(colon + 1, " \t");
		static __thread char lname[LC_MAX_HDRS][128];
		size_t nl = MIN((size_t)(colon - o->hdrs[i]), (size_t)127);

		for (size_t k = 0; k < nl; k++)
			lname[i][k] = (char)(o->hdrs[i][k] | 0x20);
		nv[n++] = (nghttp3_nv){ (uint8_t *)lname[i], (uint8_t *)v, nl, strlen(v), NGHTTP3_NV_FLAG_NONE };
	}
	e->body_left = o->body;
	if (ngtcp2_conn_open_bidi_stream(q->conn, &id, NULL) ||
	    nghttp3_conn_submit_request(q->h3, id, nv, n, o->body ? &body : NULL, e)) {
		e->id = -1;
		return;
	}
	e->id = id;
}

/* ---------- ngtcp2 ---------- */

/* the HTTP/3 session on <q>'s connection: its control and QPACK streams */
static int h3_open(struct q *q)
{
	nghttp3_settings st;
	int64_t ctrl, enc, dec;

	nghttp3_settings_default(&st);
	if (nghttp3_conn_client_new(&q->h3, &h3_cbs, &st, qh3mem(), q) ||
	    ngtcp2_conn_open_uni_stream(q->conn, &ctrl, NULL) || nghttp3_conn_bind_control_stream(q->h3, ctrl) ||
	    ngtcp2_conn_open_uni_stream(q->conn, &enc, NULL) || ngtcp2_conn_open_uni_stream(q->conn, &dec, NULL) ||
	    nghttp3_conn_bind_qpack_streams(q->h3, enc, dec))
		return -1;
	q->ready = 1;
	return 0;
}

/* the server refused our 0-RTT: its streams are gone; the requests in
 * them go again on this connection's new HTTP/3 session, their clocks
 * still running from their first send */
static int early_refused(struct q *q)
{
	struct lc_conn *c = q->c;

	if (ngtcp2_conn_early_data_rejected(q->conn))
		return -1;
	nghttp3_conn_del(q->h3);
	q->h3 = NULL;
	q->ready = 0;
	c->t->st.early_rejected++;
	if (h3_open(q))
		return -1;
	for (int i = 0; i < lc_o->depth; i++)
		if (c->ex[i].id >= 0) {
			submit(q, &c->ex[i]);
			if (c->ex[i].id < 0)
				return -1;
		}
	return 0;
}

static int handshake_done_cb(ngtcp2_conn *conn, void *user)
{
	struct q *q = user;

	(void)conn;
	/* WHY: with 0-RTT the session is open already, unless the server refused it */
	if (!q->early ? h3_open(q) :
	    !(gnutls_session_get_flags(q->tls) & GNUTLS_SFLAGS_EARLY_DATA) ? early_refused(q) : 0)
		return NGTCP2_ERR_CALLBACK_FAILURE;
	q->c->t->st.early += q->early && q->ready && !ngtcp2_conn_get_early_data_rejected(q->conn);
	q->c->got_bytes = 1; /* WHY: the server answered; a stream it resets is no silent close */
	lc_conn_up(q->c, gnutls_session_is_resumed(q->tls));
	return 0;
}

/* ---------- sessions to resume: a thread's blobs of [a byte, 1 once
 * offered; 2 bytes of length, the server's transport parameters; 4 bytes of
 * length, GnuTLS's session data] ---------- */

static int ticket_hook(gnutls_session_t s, unsigned htype, unsigned when, unsigned incoming, const gnutls_datum_t *msg)
{
	ngtcp2_crypto_conn_ref *ref = gnutls_session_get_ptr(s);
	struct q *q = container_of(ref, struct q, ref);
	struct lc_thread *t = q->c->t;
	const ngtcp2_transport_params *rtp = ngtcp2_conn_get_remote_transport_params(q->conn);
	uint8_t tp[512], *b;
	ngtcp2_ssize n = rtp ? ngtcp2_encode_transport_params(tp, sizeof(tp),
							     NGTCP2_TRANSPORT_PARAMS_TYPE_ENCRYPTED_EXTENSIONS, rtp) : -1;
	gnutls_datum_t d;

	(void)htype, (void)when, (void)incoming, (void)msg;
	if (n < 0 || gnutls_session_get_data2(s, &d))
		return 0;
	if ((b = malloc(3 + (size_t)n + 4 + d.size))) {
		b[0] = 0, b[1] = (uint8_t)(n >> 8), b[2] = (uint8_t)n;
		memcpy(b + 3, tp, (size_t)n);
		memcpy(b + 3 + n, &d.size, 4);
		memcpy(b + 7 + n, d.data, d.size);
		if (t->nqtick == LC_TICKETS) {
			free(t->qtick[0]);
			memmove(t->qtick, t->qtick + 1, (LC_TICKETS - 1) * sizeof(t->qtick[0]));
			t->nqtick--;
		}
		t->qtick[t->nqtick++] = b;
	}
	q->ticket = 1;
	gnutls_free(d.data);
	return 0;
}

/* the session a new connection offers: the thread's newest, or NULL */
static uint8_t *ticket_peek(struct lc_thread *t)
{
	return lc_o->no_resume || !t->nqtick ? NULL : t->qtick[t->nqtick - 1];
}

/* 0-RTT on <b>: with --0rtt, on a session not offered before (a server
 * refuses 0-RTT on a ticket it saw twice, and GnuTLS, told early data may
 * come, fails the handshake when it does not) */
static int ticket_early(const uint8_t *b)
{
	return b && lc_o->zero_rtt && !b[0];
}

/* offers <b> (ticket_peek), each session once (a TLS 1.3 ticket is for one
 * use) but the last, which is offered again (a --close connection whose
 * answer came in 0.5-RTT is gone before the server's ticket comes); with
 * <early> the server's last transport parameters let requests go before
 * the handshake ends. 0, or -1 */
static int resume(struct q *q, uint8_t *b, int early)
{
	struct lc_thread *t = q->c->t;
	size_t n;
	unsigned dlen;
	ngtcp2_transport_params tp;
	int rv = 0;

	gnutls_handshake_set_hook_function(q->tls, GNUTLS_HANDSHAKE_NEW_SESSION_TICKET, GNUTLS_HOOK_POST, ticket_hook);
	if (!b)
		return 0;
	n = (size_t)b[1] << 8 | b[2];
	memcpy(&dlen, b + 3 + n, 4);
	if (gnutls_session_set_data(q->tls, b + 7 + n, dlen) == 0 && early &&
	    ngtcp2_decode_transport_params(&tp, NGTCP2_TRANSPORT_PARAMS_TYPE_ENCRYPTED_EXTENSIONS, b + 3, n) == 0) {
		ngtcp2_conn_set_early_remote_transport_params(q->conn, &tp);
		q->early = 1;
		rv = h3_open(q);
	}
	b[0] = 1;
	if (t->nqtick > 1)
		free(t->qtick[--t->nqtick]);
	return rv;
}

static int recv_stream_cb(ngtcp2_conn *conn, uint32_t flags, int64_t id, uint64_t off,
			  const uint8_t *data, size_t len, void *user, void *suser)
{
	struct q *q = user;
	nghttp3_ssize n;

	(void)conn, (void)off, (void)suser;
	if (!q->h3)
		return 0;
	n = nghttp3_conn_read_stream(q->h3, id, data, len, flags & NGTCP2_STREAM_DATA_FLAG_FIN);
	if (n < 0)
		return NGTCP2_ERR_CALLBACK_FAILURE;
	consume(q, id, (size_t)n);
	return 0;
}

static int stream_close_cb(ngtcp2_conn *conn, uint32_t flags, int64_t id, uint64_t code,
			   void *user, void *suser)
{
	struct q *q = user;

	(void)conn, (void)suser;
	qh3_close(q->h3, flags, id, code);
	return 0;
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

static const ngtcp2_callbacks q_cbs = {
	.client_initial = ngtcp2_crypto_client_initial_cb,
	.recv_retry = ngtcp2_crypto_recv_retry_cb,
	QTLS_CALLBACKS,
	.rand = qtls_client_rand,
	.get_new_connection_id = qtls_client_new_cid,
	.handshake_completed = handshake_done_cb,
	.handshake_confirmed = confirmed_cb,
	.recv_stream_data = recv_stream_cb,
	.acked_stream_data_offset = qh3_acked,
	.stream_close = stream_close_cb,
	.stream_reset = qh3_reset,
	.extend_max_stream_data = qh3_unblock,
};

/* ---------- I/O ---------- */

static void fill(struct q *q)
{
	struct lc_conn *c = q->c;

	while (q->ready && c->inflight < (uint32_t)lc_o->depth && ngtcp2_conn_get_streams_bidi_left(q->conn)) {
		struct lc_ex *e = ex_of(c, -1);

		if (!lc_take(c, e))
			return;
		submit(q, e);
		if (e->id < 0) {
			lc_fail(c, e, E_PROTOCOL);
			return;
		}
		c->inflight++;
	}
}

static int q_write(struct q *q)
{
	struct qw_out o = { q->c->x.fd, NULL, 0, q->c->t->qbuf, 0 };

	if (qw_burst(q->conn, q->h3, NULL, &o, ts()) < 0)
		return -1;
	/* WHY not before the handshake's end: with no RTT sample, ngtcp2 paces
	 * by its 333 ms initial RTT, and the first Initial's 1,200 bytes held
	 * the Finished and the first request 20 ms (0-RTT: the Finished) */
	if (ngtcp2_conn_get_handshake_completed(q->conn))
		ngtcp2_conn_update_pkt_tx_time(q->conn, ts());
	return 0;
}

static void q_arm(struct q *q)
{
	ngtcp2_tstamp exp = ngtcp2_conn_get_expiry(q->conn);

	if (exp != UINT64_MAX)
		timer_arm(&q->c->t->loop.timers, &q->tm, (exp + 999) / 1000);
}

static void q_timer(struct loop *l, struct timer *t)
{
	struct q *q = container_of(t, struct q, tm);

	(void)l;
	if (ngtcp2_conn_handle_expiry(q->conn, ts()) || q_write(q) < 0) {
		struct lc_conn *c = q->c;

		lc_error(c, q->ready ? E_TIMEOUT : E_TLS);
		lc_reset(c); /* frees <q> */
		return;
	}
	q_arm(q);
}

/* WHY: a server that refuses the handshake (a client certificate it
 * wants, no certificate for no SNI) says why in its CONNECTION_CLOSE, a TLS
 * alert as CRYPTO_ERROR, maybe after the client saw its handshake done, or
 * another code and a reason before it: 1 when so, its line set */
static int refused(struct q *q)
{
	ngtcp2_connection_close_error ce;
	int crypto, want_cert;
	char said[160], why[201], msg[700];
	size_t n;

	ngtcp2_conn_get_connection_close_error(q->conn, &ce);
	crypto = ce.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_TRANSPORT &&
		 (ce.error_code & ~(uint64_t)0xff) == NGTCP2_CRYPTO_ERROR;
	want_cert = crypto && (ce.error_code & 0xff) == 116; /* certificate required */
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

/* one read: a datagram, or (UDP_GRO) a train of them of one size; its
 * length, *seg the size of each; 0 nothing now, -1 an error */
static ssize_t q_recv(int fd, uint8_t *buf, size_t *seg)
{
	char ctrl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, LC_QRX };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctrl, .msg_controllen = sizeof(ctrl) };
	ssize_t n = recvmsg(fd, &mh, 0);

	if (n < 0)
		return errno == EAGAIN ? 0 : -1;
	*seg = (size_t)n;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO)
		{
			int g;

			memcpy(&g, CMSG_DATA(cm), sizeof(g));
			*seg = (size_t)g;
		}
	return n;
}

static int lc_h3_io(struct lc_conn *c)
{
	struct q *q = c->proto_state;
	uint8_t *buf = c->t->qbuf + QW_BUF;

	for (;;) {
		ngtcp2_path path = { { (ngtcp2_sockaddr *)&q->local, q->locallen },
				     { (ngtcp2_sockaddr *)&lc_tg->addr, lc_tg->alen }, NULL };
		ngtcp2_pkt_info pi = { 0 };
		size_t seg = 0;
		ssize_t n = q_recv(c->x.fd, buf, &seg);

		if (n < 0) {
			lc_error(c, q->ready ? E_RESET : E_CONNECT);
			return -1;
		}
		if (!n)
			break;
		/* WHY seg: ngtcp2 0.12 asserts on an empty datagram (the server's did) */
		for (size_t off = 0; seg && off < (size_t)n; off += seg) {
			int rv = ngtcp2_conn_read_pkt(q->conn, &path, &pi, buf + off, MIN(seg, (size_t)n - off), ts());

			if (rv) {
				/* WHY refused first: the server's words before
				 * the handshake's end too */
				int tls = (rv == NGTCP2_ERR_DRAINING && refused(q)) || rv == NGTCP2_ERR_CRYPTO ||
					  !q->ready;

				lc_error(c, tls ? E_TLS : E_RESET);
				return -1;
			}
		}
	}
	fill(q);
	if (q_write(q) < 0) {
		lc_error(c, E_PROTOCOL);
		return -1;
	}
	q_arm(q);
	return 0;
}

static int q_new(struct q *q, struct lc_conn *c)
{
	ngtcp2_cid dcid, scid;
	ngtcp2_settings st;
	ngtcp2_transport_params tp;
	uint8_t *b = ticket_peek(c->t);
	ngtcp2_path path = { { (ngtcp2_sockaddr *)&q->local, q->locallen },
			     { (ngtcp2_sockaddr *)&lc_tg->addr, lc_tg->alen }, NULL };

	dcid.datalen = 18;
	scid.datalen = 17;
	gnutls_rnd(GNUTLS_RND_RANDOM, dcid.data, dcid.datalen);
	gnutls_rnd(GNUTLS_RND_RANDOM, scid.data, scid.datalen);
	ngtcp2_settings_default(&st);
	st.initial_ts = ts();
	st.handshake_timeout = lc_o->timeout_us * NGTCP2_MICROSECONDS;
	ngtcp2_transport_params_default(&tp);
	tp.initial_max_stream_data_bidi_local = lc_o->h3_no_credit ? 1024 : 8 << 20;
	tp.initial_max_stream_data_uni = 1 << 20;
	tp.initial_max_data = 64 << 20;
	tp.initial_max_streams_uni = 3;
	tp.max_idle_timeout = 30 * NGTCP2_SECONDS;
	qmem_init(&q->qm);
	if (ngtcp2_conn_client_new(&q->conn, &dcid, &scid, &path, NGTCP2_PROTO_VER_V1, &q_cbs, &st,
				   &tp, &q->qm.mem, q))
		return -1;
	/* WHY NO_END_OF_EARLY_DATA: QUIC has none (RFC 9001 8.3); in the
	 * transcript it made the next ticket's binder wrong, decrypt_error */
	if (qtls_session(&qtls, &q->tls, 0, ticket_early(b) ? GNUTLS_ENABLE_EARLY_DATA | GNUTLS_NO_END_OF_EARLY_DATA : 0,
			 &q->conn, &q->ref) ||
	    (lc_tg->sni[0] && gnutls_server_name_set(q->tls, GNUTLS_NAME_DNS, lc_tg->sni, strlen(lc_tg->sni))) ||
	    (!lc_o->no_resume && resume(q, b, ticket_early(b))))
		return -1;
	if (lc_o->cacert)
		gnutls_session_set_verify_cert(q->tls, lc_tg->sni[0] ? lc_tg->sni : lc_tg->host, 0);
	return 0;
}

static int lc_h3_open(struct lc_conn *c)
{
	struct q *q = calloc(1, sizeof(*q));
	int fd = socket(lc_tg->addr.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (!q || fd < 0 || lc_source_bind(fd, lc_conn_source(c)) < 0 ||
	    connect(fd, (const struct sockaddr *)&lc_tg->addr, lc_tg->alen) < 0) {
		free(q);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!c->t->qbuf && !(c->t->qbuf = malloc(QW_BUF + LC_QRX))) {
		free(q);
		close(fd);
		return -1;
	}
	/* WHY: a server's GSO train arrives whole, one read for up to 45 packets */
	setsockopt(fd, SOL_UDP, UDP_GRO, &(int){ 1 }, sizeof(int));
	q->c = c;
	q->tm = (struct timer){ 0, 0, q_timer };
	q->locallen = sizeof(q->local);
	getsockname(fd, (struct sockaddr *)&q->local, &q->locallen);
	c->x = (struct xprt){ fd, NULL, NULL };
	c->proto_state = q;
	for (int i = 0; i < lc_o->depth; i++)
		c->ex[i].id = -1;
	c->ev.fd = fd;
	if (q_new(q, c) < 0 || loop_watch(&c->t->loop, &c->ev, EPOLLIN | EPOLLET) < 0)
		return -1;
	fill(q); /* WHY: with --0rtt and a session, the requests go with the ClientHello */
	if (q_write(q) < 0)
		return -1;
	q_arm(q);
	return 0;
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
	if (n > 0 && send(q->c->x.fd, buf, (size_t)n, 0) < 0)
		return; /* WHY: best effort; the server's idle timeout ends it otherwise */
}

static void lc_h3_free(struct lc_conn *c)
{
	struct q *q = c->proto_state;

	if (!q)
		return;
	timer_cancel(&c->t->loop.timers, &q->tm);
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

/* The QUIC transport on the TLS port's UDP twin: sockets, connection IDs, ngtcp2 connections, GnuTLS; every stream event handed up through the application's table (quic_app). */
#include <errno.h>
#include <malloc.h>
#include <gnutls/crypto.h>
#include <netinet/in.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "listen.h"
#include "log.h"
#include "qinit.h"
#include "quic.h"
#include "quic_reply.h"
#include "client.h"
#include "qtls.h"
#include "tls_auth.h"
#include "tls_keys.h"
#include "qrecv.h"
#include "qwrite.h"
#include "timer.h"
#include "tls_ctx.h"
#include "session.h"

#define QUIC_TRIM_PEAK 256 /* connections a thread held before its last close trims the heap */
#define MAP_BITS   12

_Static_assert(CFG_MAX_LISTEN <= ST_LISTEN_B, "a drop counter for each UDP listener");

static struct qtls qtls;
static const struct quic_app *app; /* the application above (proto/h3), given by quic_setup() */

/* ---------- connection IDs: per-thread hash of CID -> connection ---------- */

struct cident {
	struct cident *next;
	struct quic_conn *c;
	ngtcp2_cid cid;
};

struct cidmap {
	struct cident *b[1 << MAP_BITS];
};

static unsigned cid_hash(const uint8_t *p, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 16777619u;
	return h & ((1 << MAP_BITS) - 1);
}

static struct quic_conn *cid_find(const struct cidmap *m, const uint8_t *p, size_t len)
{
	if (!m)
		return NULL; /* no connection yet on this worker */
	for (struct cident *e = m->b[cid_hash(p, len)]; e; e = e->next)
		if (e->cid.datalen == len && !memcmp(e->cid.data, p, len))
			return e->c;
	return NULL;
}

/* WHY the map made by the first connection: its 32 KiB of buckets, zeroed
 * at start-up, were resident in every worker at rest, QUIC clients or not */
static int cid_add(struct cidmap **mp, const ngtcp2_cid *cid, struct quic_conn *c)
{
	struct cident *e;
	struct cidmap *m = *mp ? *mp : (*mp = calloc(1, sizeof(**mp)));
	unsigned h = cid_hash(cid->data, cid->datalen);

	if (!m || !(e = malloc(sizeof(*e))))
		return -1;
	e->cid = *cid;
	e->c = c;
	e->next = m->b[h];
	m->b[h] = e;
	return 0;
}

static void cid_del(struct cidmap *m, const ngtcp2_cid *cid)
{
	struct cident **pe = &m->b[cid_hash(cid->data, cid->datalen)];

	for (; *pe; pe = &(*pe)->next) {
		struct cident *e = *pe;

		if (e->cid.datalen == cid->datalen && !memcmp(e->cid.data, cid->data, cid->datalen)) {
			*pe = e->next;
			free(e);
			return;
		}
	}
}

/* ---------- sending ---------- */

/* the packets queued by this wakeup's connections go, in one sendmmsg */
static int quic_send_batch(struct worker *w)
{
	struct qw_batch *b = qw(w)->batch;

	if (!b->n)
		return 0;
	qw_flush(b);
	ctr_add(w->st.quic_send_errors, b->lost);
	b->lost = 0;
	return 1;
}

/* CONNECTION_CLOSE with <ccerr> (unless the peer closed), and <c> freed at the end of the turn */
static void qc_close_now(struct quic_conn *c, const ngtcp2_connection_close_error *ccerr)
{
	ngtcp2_path_storage ps;
	ngtcp2_pkt_info pi;
	ngtcp2_ssize n;

	if (!(c->flags & QC_DRAINING)) {
		ngtcp2_path_storage_zero(&ps);
		n = ngtcp2_conn_write_connection_close(c->conn, &ps.path, &pi, qw(c->w)->txbuf,
						       1500, ccerr, (ngtcp2_tstamp)clock_ns());
		if (n > 0) {
			struct qw_out o = { c->ep->ev.fd, &c->peer, c->peerlen, qw(c->w)->txbuf, 0, NULL };

			quic_send_batch(c->w); /* WHY first: its last packets before the close */

			qw_send(&o, o.buf, (size_t)n, (size_t)n);
			ctr_add(c->w->st.quic_send_errors, o.lost);
			ctr_add(&c->w->st.quic_udp[1], 1);
		}
	}
	c->flags |= QC_DEAD;
}

/* the error behind <rv> as a CONNECTION_CLOSE */
static void qc_fail(struct quic_conn *c, int rv)
{
	ngtcp2_connection_close_error ccerr;

	if (cfg.debug)
		log_debug("thread %d: QUIC connection ends: %s", c->w->id, ngtcp2_strerror(rv));
	if (c->why == SC_UNSET)
		c->why = rv == NGTCP2_ERR_IDLE_CLOSE ? SC_IDLE : rv == NGTCP2_ERR_HANDSHAKE_TIMEOUT ? SC_TIMEOUT :
			 rv == NGTCP2_ERR_DRAINING ? SC_PEER : rv == NGTCP2_ERR_CRYPTO ? SC_BAD : SC_ERROR;
	if (rv == NGTCP2_ERR_DRAINING || rv == NGTCP2_ERR_DROP_CONN || rv == NGTCP2_ERR_IDLE_CLOSE ||
	    rv == NGTCP2_ERR_HANDSHAKE_TIMEOUT) {
		c->flags |= QC_DEAD | QC_DRAINING;
		return;
	}
	ngtcp2_connection_close_error_default(&ccerr);
	if (rv == NGTCP2_ERR_CRYPTO)
		ngtcp2_connection_close_error_set_transport_error_tls_alert(
			&ccerr, ngtcp2_conn_get_tls_alert(c->conn), NULL, 0);
	else
		ngtcp2_connection_close_error_set_transport_error_liberr(&ccerr, rv, NULL, 0);
	qc_close_now(c, &ccerr);
}

void quic_write(struct quic_conn *c)
{
	struct qw_out o = { c->ep->ev.fd, &c->peer, c->peerlen, qw(c->w)->txbuf, 0, NULL };
	ngtcp2_tstamp now = (ngtcp2_tstamp)clock_ns(); /* WHY: one clock read per burst */
	struct qw_srcs srcs;
	int rv;

	if (c->flags & (QC_DEAD | QC_DRAINING))
		return;
	app->sources(c, &srcs);
	/* WHY a batch: the packets of every connection written in a turn of
	 * the loop (read in its receive batches, or woken by a timer) go in
	 * one sendmmsg, at quic_flush or at the turn's end */
	rv = qw_burst_in(qw(c->w)->batch, c->conn, &srcs, &o, now);
	if (o.lost)
		ctr_add(c->w->st.quic_send_errors, o.lost);
	if (rv > 0)
		ctr_add(&c->w->st.quic_udp[1], (uint64_t)rv);
	if (rv < 0) {
		qc_fail(c, rv);
		return;
	}
	/* WHY not before the handshake's end: with no RTT sample yet, ngtcp2
	 * paces by its 333 ms initial RTT, and the first flight's 1,200 bytes
	 * held the next packet 20 ms, HANDSHAKE_DONE and the first response
	 * with it */
	if (!(c->flags & QC_HALF))
		ngtcp2_conn_update_pkt_tx_time(c->conn, now);
	app->wrote(c, &srcs);
}

/* ---------- ngtcp2 callbacks ---------- */

static int new_cid_cb(ngtcp2_conn *conn, ngtcp2_cid *cid, uint8_t *token, size_t len,
		      void *user)
{
	struct quic_conn *c = user;
	ngtcp2_rand_ctx ctx = { &c->w->rng };

	(void)conn;
	quic_rand_cb(cid->data, len, &ctx);
	cid->datalen = len;
	if (quic_reset_token(token, cid))
		return NGTCP2_ERR_CALLBACK_FAILURE;
	return cid_add(&qw(c->w)->cids, cid, c) ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static int remove_cid_cb(ngtcp2_conn *conn, const ngtcp2_cid *cid, void *user)
{
	struct quic_conn *c = user;

	(void)conn;
	cid_del(qw(c->w)->cids, cid);
	return 0;
}

static int recv_stream_cb(ngtcp2_conn *conn, uint32_t flags, int64_t id, uint64_t off,
			  const uint8_t *data, size_t len, void *user, void *suser)
{
	(void)conn, (void)suser;
	return app->recv(user, id, off, data, len, !!(flags & NGTCP2_STREAM_DATA_FLAG_FIN),
			      !!(flags & NGTCP2_STREAM_DATA_FLAG_EARLY)) ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static int acked_cb(ngtcp2_conn *conn, int64_t id, uint64_t off, uint64_t len, void *user, void *suser)
{
	(void)conn, (void)off;
	return app->acked(user, id, len, suser) ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static int reset_cb(ngtcp2_conn *conn, int64_t id, uint64_t size, uint64_t code, void *user, void *suser)
{
	(void)conn, (void)size;
	return app->reset(user, id, code, suser) ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static int unblock_cb(ngtcp2_conn *conn, int64_t id, uint64_t max, void *user, void *suser)
{
	(void)conn, (void)max;
	return app->unblock(user, id, suser) ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

/* <c>'s handshake is done, or <c> goes: no longer half-open */
static void qc_whole(struct quic_conn *c)
{
	if (c->flags & QC_HALF) {
		c->flags &= ~QC_HALF;
		qw(c->w)->nhalf--;
	}
}

void quic_close_soon(struct quic_conn *c, enum st_close why)
{
	c->flags |= QC_CLOSE;
	c->why = c->why == SC_UNSET ? why : c->why;
}

static int stream_close_cb(ngtcp2_conn *conn, uint32_t flags, int64_t id, uint64_t code,
			   void *user, void *suser)
{
	(void)conn;
	return app->closed(user, id, !!(flags & NGTCP2_STREAM_CLOSE_FLAG_APP_ERROR_CODE_SET), code, suser) ?
		       NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static int max_bidi_cb(ngtcp2_conn *conn, uint64_t max, void *user)
{
	(void)conn;
	return app->max_streams(user, max) ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

static int handshake_done_cb(ngtcp2_conn *conn, void *user)
{
	struct quic_conn *c = user;

	(void)conn;
	qc_whole(c);
	/* WHY not at the 1-RTT key: a half-open connection held its HTTP/3
	 * session (about 47 KB of nghttp3's and ngtcp2's) for nothing */
	if (app->start(c) < 0)
		return NGTCP2_ERR_CALLBACK_FAILURE;
	if (cfg.debug)
		log_debug("thread %d: QUIC handshake done, signed with %s", c->w->id,
			  gnutls_sign_get_name(gnutls_sign_algorithm_get(c->tls)));
	/* WHY now: a ticket (0-RTT included) for the next connection, in the
	 * 1-RTT CRYPTO frames the next write sends */
	if (gnutls_session_ticket_send(c->tls, 1, 0) < 0 && cfg.debug)
		log_debug("thread %d: no QUIC session ticket sent", c->w->id);
	if (cfg.client_cert) {
		char subj[512];

		tls_auth_gnutls_subject(c->tls, subj, sizeof(subj));
		/* WHY fail: a request must never be answered without the
		 * certificate's name it was asked for */
		if (!(c->ci = cinfo_new(-1, &c->peer, NULL, subj)))
			return NGTCP2_ERR_CALLBACK_FAILURE;
	}
	return 0;
}

static const ngtcp2_callbacks quic_cbs = {
	.recv_client_initial = ngtcp2_crypto_recv_client_initial_cb,
	QTLS_CALLBACKS,
	.rand = quic_rand_cb,
	.get_new_connection_id = new_cid_cb,
	.remove_connection_id = remove_cid_cb,
	.recv_stream_data = recv_stream_cb,
	.acked_stream_data_offset = acked_cb,
	.stream_close = stream_close_cb,
	.stream_reset = reset_cb,
	.extend_max_remote_streams_bidi = max_bidi_cb,
	.extend_max_stream_data = unblock_cb,
	.handshake_completed = handshake_done_cb,
};

/* ---------- connections ---------- */

static void qc_params(ngtcp2_transport_params *tp, const ngtcp2_pkt_hd *hd,
			 const ngtcp2_cid *scid, const ngtcp2_cid *odcid)
{
	ngtcp2_transport_params_default(tp);
	tp->initial_max_stream_data_bidi_local = cfg.h3_window;
	tp->initial_max_stream_data_bidi_remote = cfg.h3_window;
	tp->initial_max_stream_data_uni = cfg.h3_window;
	tp->initial_max_data = (uint64_t)cfg.h3_window * 4;
	tp->initial_max_streams_bidi = cfg.h3_streams;
	tp->initial_max_streams_uni = 3;
	tp->max_idle_timeout = cfg.idle_ms * NGTCP2_MILLISECONDS;
	tp->original_dcid = hd->dcid;
	if (odcid) { /* after a Retry: the first DCID came in the token */
		tp->original_dcid = *odcid;
		tp->retry_scid = hd->dcid;
		tp->retry_scid_present = 1;
	}
	tp->stateless_reset_token_present = 1;
	quic_reset_token(tp->stateless_reset_token, scid);
}

static void qc_timer_cb(struct loop *l, struct timer *t);

static struct quic_conn *qc_new(struct worker *w, struct udp_ep *ep, const ngtcp2_pkt_hd *hd,
			       const struct sockaddr_storage *peer, socklen_t peerlen,
			       const ngtcp2_cid *odcid)
{
	struct quic_conn *c = calloc(1, app->conn_size);
	ngtcp2_settings st;
	ngtcp2_transport_params tp;
	ngtcp2_cid scid;
	ngtcp2_rand_ctx rctx = { &w->rng };
	ngtcp2_path path = { { (ngtcp2_sockaddr *)&ep->local, ep->locallen },
			     { (ngtcp2_sockaddr *)peer, peerlen }, NULL };

	if (!c)
		return NULL;
	c->w = w;
	c->ep = ep;
	c->peer = *peer;
	c->peerlen = peerlen;
	c->tm = (struct timer){ 0, 0, qc_timer_cb };
	c->odcid = hd->dcid;
	scid.datalen = QUIC_SCIDLEN;
	quic_rand_cb(scid.data, scid.datalen, &rctx);
	ngtcp2_settings_default(&st);
	st.initial_ts = (ngtcp2_tstamp)clock_ns();
	st.rand_ctx = rctx;
	st.max_stream_window = 16 << 20;
	st.max_window = 24 << 20;
	st.handshake_timeout = cfg.head_ms * NGTCP2_MILLISECONDS;
	/* WHY 1, not ngtcp2's 2: ngtcp2 0.12 puts an ACK on a packet only once
	 * it is due, so a request's ACK, not due yet when its answer went,
	 * followed alone at the delayed-ACK timer: 0.048 datagrams a request
	 * more (hxload -c 10 -m 10, 100 B: 0.248 in a request, now 0.200) and a
	 * sendmsg each. Due at once, it rides on the answer; a turn that reads
	 * upload data and answers nothing sends its ACK alone (1 MiB POSTs: 12
	 * ACKs a request where 10 went, against 756 packets of data) */
	st.ack_thresh = 1;
	qc_params(&tp, hd, &scid, odcid);
	qmem_init(&c->qm);
	if (ngtcp2_conn_server_new(&c->conn, &hd->scid, &scid, &path, hd->version, &quic_cbs,
				   &st, &tp, &c->qm.mem, c) || qtls_session(&qtls, &c->tls, 1, cfg.early_data ? GNUTLS_ENABLE_EARLY_DATA | GNUTLS_NO_END_OF_EARLY_DATA : 0,
			 &c->conn, &c->ref) ||
	    tls_auth_gnutls_session(c->tls) < 0 || tls_keys_quic(c->tls) < 0 ||
	    cid_add(&qw(w)->cids, &scid, c) || cid_add(&qw(w)->cids, &c->odcid, c)) {
		if (c->conn)
			ngtcp2_conn_del(c->conn);
		qmem_release(&c->qm);
		if (c->tls)
			gnutls_deinit(c->tls);
		free(c);
		return NULL;
	}
	c->why = SC_UNSET;
	c->proto = app->slot;
	c->flags |= QC_HALF;
	tc_count_open(&qw(w)->set, &c->l, c->proto);
	qw(w)->nhalf++;
	if (qw(w)->set.n > qw(w)->peak)
		qw(w)->peak = qw(w)->set.n;
	ctr_add(&w->st.accepted, 1);
	app->open(c);
	if (cfg.debug)
		log_debug("thread %d: new QUIC connection (%u on this thread)", w->id, qw(w)->set.n);
	return c;
}

/* WHY: a flood's connections (86 kB each half-open) left the heap at its
 * peak for good (2,000 of them: 278 MB after they timed out); once the
 * last is gone, hand what is free back to the system. Not for a few: a
 * churn of one connection at a time would trim at every close */
static void quic_trim(struct worker *w)
{
	if (qw(w)->set.n == 0 && qw(w)->peak >= QUIC_TRIM_PEAK) {
		qw(w)->peak = 0;
		malloc_trim(0);
	}
}

static void qc_free(struct quic_conn *c)
{
	struct worker *w = c->w;
	ngtcp2_cid inl[16], *ids = inl;
	size_t n = ngtcp2_conn_get_num_scid(c->conn);
	uint32_t nreq;

	if (n > ARRAY_SIZE(inl) && !(ids = malloc(n * sizeof(*ids))))
		n = 0; /* WHY: out of memory, the map keeps stale IDs to nothing */
	n = n ? ngtcp2_conn_get_scid(c->conn, ids) : 0;
	for (size_t i = 0; i < n; i++)
		cid_del(qw(w)->cids, &ids[i]);
	if (ids != inl)
		free(ids);
	cid_del(qw(w)->cids, &c->odcid);
	qc_whole(c);
	timer_cancel(&w->loop.timers, &c->tm);
	nreq = app->gone(c);
	ngtcp2_conn_del(c->conn);
	/* WHY: ngtcp2 0.12 leaks STREAM frame chains (its issue 1244, fixed
	 * in 1.6) when frames of many small DATA pieces are split or merged;
	 * LeakSanitizer found 12 to 37 blocks in 8 s of small-k= h3 load */
	ctr_add(w->st.quic_reclaimed, qmem_release(&c->qm));
	gnutls_deinit(c->tls);
	free(c->ci);
	tc_count_close(&qw(w)->set, &c->l, c->proto, c->why, 0, nreq);
	free(c);
	quic_trim(w);
}

/* after any work on <c>: close it, or re-arm its timer */
void quic_done(struct quic_conn *c)
{
	ngtcp2_tstamp exp;

	if ((c->flags & QC_CLOSE) && !(c->flags & QC_DEAD)) {
		ngtcp2_connection_close_error ccerr;

		ngtcp2_connection_close_error_default(&ccerr);
		ngtcp2_connection_close_error_set_application_error(&ccerr, app->no_error, NULL, 0);
		qc_close_now(c, &ccerr);
	}
	if (c->flags & QC_DEAD) {
		qc_free(c);
		return;
	}
	exp = ngtcp2_conn_get_expiry(c->conn);
	exp = exp == UINT64_MAX ? UINT64_MAX : (exp + 999) / 1000;
	/* WHY: open streams are looked at for stalls at least every QUIC_SCAN_MS */
	if (app->busy(c)) {
		if (!c->scan_at)
			c->scan_at = c->w->loop.now_ms + QUIC_SCAN_MS;
		exp = MIN(exp, c->scan_at * 1000);
	}
	if (exp != UINT64_MAX)
		timer_arm(&c->w->loop.timers, &c->tm, exp);
}

static void qc_timer_cb(struct loop *l, struct timer *t)
{
	struct quic_conn *c = container_of(t, struct quic_conn, tm);
	int rv = ngtcp2_conn_handle_expiry(c->conn, (ngtcp2_tstamp)clock_ns());

	(void)l;
	if (!app->busy(c))
		c->scan_at = 0;
	else if (!rv && c->w->loop.now_ms >= c->scan_at) {
		c->scan_at = c->w->loop.now_ms + QUIC_SCAN_MS;
		app->scan(c);
	}
	if (rv)
		qc_fail(c, rv);
	else
		quic_write(c);
	quic_done(c);
}

/* ---------- receiving ---------- */

/* <c> was read in this wakeup's batches: it is written, and closed or re-armed, after them */
static void quic_pend(struct quic_conn *c)
{
	if (!(c->flags & QC_PEND)) {
		c->flags |= QC_PEND;
		c->pend = qw(c->w)->pend;
		qw(c->w)->pend = c;
	}
}

/* WHY after the batches: two datagrams of one connection (a request and
 * an ACK, or a burst of requests) gave two writes, two sendmsg calls and
 * two wakeups of the peer; now one */
static void quic_flush(struct worker *w)
{
	struct quic_conn *c;

	while ((c = qw(w)->pend)) {
		qw(w)->pend = c->pend;
		c->flags &= ~QC_PEND;
		quic_write(c);
		quic_done(c);
	}
	quic_send_batch(w);
}

/* the loop's turn ends: what timers and other events wrote goes */
static int quic_turn_end(struct loop *l)
{
	return quic_send_batch(worker_of(l));
}

static void quic_datagram(struct worker *w, struct udp_ep *ep, const uint8_t *p, size_t len,
			  const struct sockaddr_storage *peer, socklen_t peerlen, ngtcp2_tstamp now)
{
	ngtcp2_version_cid vc;
	ngtcp2_pkt_hd hd;
	ngtcp2_pkt_info pi = { 0 };
	struct quic_conn *c;
	ngtcp2_path path;
	int rv;

	/* WHY first: ngtcp2 0.12 asserts on an empty datagram, and one
	 * empty UDP packet aborted the process (found by fuzz/quic) */
	if (!len) {
		ctr_add(&w->st.quic_dgram[SQD_DROPPED], 1);
		return;
	}
	rv = ngtcp2_pkt_decode_version_cid(&vc, p, len, QUIC_SCIDLEN);
	if (rv == NGTCP2_ERR_VERSION_NEGOTIATION) {
		ctr_add(&w->st.quic_dgram[SQD_VN], 1);
		quic_send_vn(w, ep, &vc, peer, peerlen);
		return;
	}
	if (rv) {
		ctr_add(&w->st.quic_dgram[SQD_DROPPED], 1);
		return; /* not QUIC: dropped, nothing allocated */
	}
	c = cid_find(qw(w)->cids, vc.dcid, vc.dcidlen);
	if (!c) {
		if (!(p[0] & 0x80)) {
			ctr_add(&w->st.quic_dgram[SQD_RESET], 1);
			quic_send_reset(w, ep, &vc, len, peer, peerlen);
			return;
		}
		ngtcp2_cid odcid;
		int ac;

		/* WHY qinit_open: a forged or random Initial once made a
		 * connection and a GnuTLS session before its decryption failed */
		if (ngtcp2_accept(&hd, p, len) || qw(w)->set.n >= cfg.quic_max_conns || w->draining ||
		    qinit_open(p, len) < 0) {
			ctr_add(&w->st.quic_dgram[SQD_DROPPED], 1);
			return;
		}
		if (!(ac = quic_address_check(w, ep, &hd, peer, peerlen, &odcid)))
			return;
		if (!(c = qc_new(w, ep, &hd, peer, peerlen, ac == 2 ? &odcid : NULL)))
			return;
	}
	if (c->flags & QC_DEAD)
		return; /* WHY: it failed on an earlier datagram of this batch, and goes at its end */
	path = (ngtcp2_path){ { (ngtcp2_sockaddr *)&ep->local, ep->locallen },
			      { (ngtcp2_sockaddr *)peer, peerlen }, NULL };
	c->rx_ns = (int64_t)now;
	rv = ngtcp2_conn_read_pkt(c->conn, &path, &pi, p, len, now);
	if (rv)
		qc_fail(c, rv);
	quic_pend(c);
}

#define UDP_DRY 4 /* empty reads after short ones, in a row, before a short one ends udp_cb's loop */

static void udp_cb(struct loop *l, struct ev *e, uint32_t events)
{
	struct worker *w = worker_of(l);
	struct udp_ep *ep = container_of(e, struct udp_ep, ev);
	struct qr_batch *b = qw(w)->rb;
	int after_short = 0; /* the last read was short: the socket was empty at its end */

	(void)events;
	/* WHY every batch the socket holds before any write (8 at most): each
	 * connection then answers all it got in as few packets as it can. At
	 * 300k h3 requests a second, against a write after each batch: 0.367
	 * datagrams out a request, not 0.41, and 3 % less CPU a request, for
	 * one more recvmmsg (the one that finds the socket empty) */
	for (int round = 0; round < 8; round++) {
		uint64_t drops = 0;
		ngtcp2_tstamp now;
		int n = qr_read(ep->ev.fd, b, &ep->drops_seen, &drops);

		if (drops)
			ctr_add(&w->st.udp_drops[ep->idx], drops);
		if (after_short)
			ep->dry = n > 0 ? 0 : (uint8_t)MIN(ep->dry + 1, UDP_DRY);
		if (n <= 0)
			break;
		ctr_add(&w->st.quic_udp[0], (uint64_t)n);
		now = (ngtcp2_tstamp)clock_ns(); /* WHY: one clock read per batch */
		for (int i = 0; i < n; i++) {
			ctr_add(w->st.bytes_in, b->mm[i].msg_len);
			quic_datagram(w, ep, b->bufs[i], b->mm[i].msg_len, &b->peers[i], b->mm[i].msg_hdr.msg_namelen,
				      now);
		}
		/* WHY a short read may end the loop: the socket was empty when
		 * it ended, and epoll (level-triggered) says so again if more
		 * came since. Below some 50k requests a second the read after it
		 * found nothing each wake-up (1.83 recvmmsg a request at 20k, the
		 * one datagram's and the empty one); above, it mostly finds more,
		 * which a loop turn and an epoll wait would cost more to take
		 * (+30 % CPU at 150k when every short read ended it). So it ends
		 * the loop once UDP_DRY such reads in a row found nothing, and
		 * every 16th short read still looks, to see the rate rise */
		after_short = n < QR_BATCH;
		if (after_short && ep->dry >= UDP_DRY && (++ep->probe & 15))
			break;
	}
	quic_flush(w);
}

/* ---------- set-up ---------- */

/* the kernel's drop count asked for, --udp-rcvbuf set; the first worker
 * names the listener for the counters and logs the kernel's answer */
static int udp_setup(struct worker *w, struct udp_ep *ep, const struct listen_addr *la, uint16_t port)
{
	char name[160];
	int got = qr_setup(ep->ev.fd, cfg.udp_rcvbuf);

	listen_name(la, port, name, sizeof(name));
	if (got < 0) {
		log_err("cannot set up UDP %s (SO_RXQ_OVFL, --udp-rcvbuf): %s", name, strerror(errno));
		return -1;
	}
	if (w->id)
		return 0;
	st_udp_name(ep->idx, name);
	/* WHY log_err when less: a cap (net.core.rmem_max, no CAP_NET_ADMIN)
	 * must not pass unseen; the kernel answers twice the size it took */
	if (cfg.udp_rcvbuf && got / 2 < cfg.udp_rcvbuf)
		log_err("UDP %s: receive buffer %d bytes asked, the kernel answered %d (capped)", name,
			cfg.udp_rcvbuf, got);
	else if (cfg.udp_rcvbuf)
		log_info("UDP %s: receive buffer %d bytes asked, the kernel answered %d", name, cfg.udp_rcvbuf,
			 got);
	return 0;
}

/* a worker's sockets table and I/O batches, at its first QUIC listener.
 * WHY sized to the addresses and the batches malloc()ed, not calloc()ed:
 * calloc zeroes all it gives from the heap, and 256 slots, the send
 * batch's 15 KB and the receive batch's 36 KB were resident in every
 * worker at rest (+128 KB each with the map, smaps); each batch's entries
 * are written before they are read (qr_read, qw_burst_in) */
static int qw_buffers(struct qw *q)
{
	if (!q->udp && !(q->udp = calloc((size_t)cfg.naddrs, sizeof(*q->udp))))
		return -1;
	if (!q->txbuf && !(q->txbuf = malloc(QW_BUF)))
		return -1;
	if (!q->batch && (q->batch = malloc(sizeof(*q->batch)))) {
		q->batch->fd = -1;
		q->batch->n = 0;
		q->batch->used = q->batch->lost = 0;
		q->batch->buf = NULL;
		q->batch->ring = NULL; /* WHY: one socket a worker, sendmmsg is its one call */
		q->batch->mixed = 0;
	}
	if (!q->batch || (!q->batch->buf && !(q->batch->buf = malloc(QW_BATCH_BYTES))))
		return -1;
	if (!q->rb) {
		if (!(q->rb = malloc(sizeof(*q->rb))))
			return -1;
		qr_init(q->rb);
	}
	return 0;
}

int quic_listen(struct worker *w, const struct listen_addr *la, uint16_t port)
{
	struct qw *q = qw(w);
	struct udp_ep *ep;
	int fd;

	if (cfg.no_h3)
		return 0;
	if (qw_buffers(q) < 0)
		return -1;
	w->loop.turn_end = quic_turn_end;
	fd = listen_udp(la, port);
	if (fd < 0) {
		char name[160];

		listen_name(la, port, name, sizeof(name));
		log_err("cannot listen on UDP %s: %s", name, strerror(errno));
		return -1;
	}
	ep = &qw(w)->udp[qw(w)->nudp];
	*ep = (struct udp_ep){ .ev = { fd, udp_cb }, .idx = (unsigned)qw(w)->nudp++ };
	ep->locallen = sizeof(ep->local);
	getsockname(fd, (struct sockaddr *)&ep->local, &ep->locallen);
	if (udp_setup(w, ep, la, port) < 0)
		return -1;
	return loop_watch(&w->loop, &ep->ev, EPOLLIN);
}

static void qc_drain_one(struct tc_link *l)
{
	app->drain(container_of(l, struct quic_conn, l));
}

void quic_drain(struct worker *w)
{
	tc_drain(&qw(w)->set, qc_drain_one);
}

static void qc_end(struct tc_link *l)
{
	struct quic_conn *c = container_of(l, struct quic_conn, l);

	quic_close_soon(c, SC_DRAIN);
	quic_done(c);
}

void quic_close_all(struct worker *w)
{
	if (qw(w))
		tc_close_all(&qw(w)->set, qc_end);
}

void quic_thread_free(struct worker *w)
{
	if (!qw(w))
		return;
	for (int i = 0; i < qw(w)->nudp; i++)
		close(qw(w)->udp[i].ev.fd);
	free(qw(w)->udp);
	free(qw(w)->cids);
	free(qw(w)->txbuf);
	if (qw(w)->batch)
		free(qw(w)->batch->buf);
	free(qw(w)->batch);
	free(qw(w)->rb);
	free(w->ps[P_H3]);
	w->ps[P_H3] = NULL;
}

static int add_pair(int i)
{
	const char *c = tls_cert_pem(i), *k = tls_key_pem(i);
	gnutls_datum_t cd = { (unsigned char *)c, c ? (unsigned)strlen(c) : 0 };
	gnutls_datum_t kd = { (unsigned char *)k, k ? (unsigned)strlen(k) : 0 };

	if (!c || !k)
		return 0;
	return gnutls_certificate_set_x509_key_mem2(qtls.cred, &cd, &kd, GNUTLS_X509_FMT_PEM, NULL, 0) < 0 ? -1 : 0;
}

int quic_setup(const struct quic_app *a)
{
	app = a;
	if (cfg.no_h3)
		return 0;
	if (qtls_init(&qtls) || quic_reply_init()) {
		log_err("cannot set up QUIC's TLS (GnuTLS)");
		return -1;
	}
	/* WHY: GnuTLS serves the first certificate a client can take. ECDSA
	 * first, as OpenSSL picks on TCP: with the RSA-2048 one a handshake
	 * cost the worker 24.1M instructions (nettle's RSA-PSS signature),
	 * with ECDSA P-256 4.7M (callgrind, 20 handshakes) */
	if (add_pair(1) < 0 || add_pair(0) < 0) {
		log_err("GnuTLS refused the certificate or key for QUIC");
		return -1;
	}
	return tls_auth_gnutls(qtls.cred);
}

void quic_free(void)
{
	qtls_free(&qtls);
}

/* WHY no size, release or gone: the set counts a QUIC connection and
 * walks it; it neither makes one nor keeps one, and none is a session's */
static const struct tc_kind qc_kind = { 0, offsetof(struct quic_conn, l), NULL, NULL };

int quic_thread_init(struct worker *w, void *a)
{
	struct qw *q = calloc(1, sizeof(*q));

	if (!q)
		return -1;
	tc_set_init(&q->set, &qc_kind, &w->loop, &w->st);
	q->app = a;
	w->ps[P_H3] = q;
	return 0;
}

uint32_t quic_live(const struct worker *w)
{
	return qw(w)->set.n;
}

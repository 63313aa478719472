/* hxload's HTTP/3 client: requests and their streams (nghttp3's callbacks, submit, fill); their responses are read by lc_h3_read.c. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "lc_h3.h"
#include "qh3mem.h"

static struct lc_ex *ex_of(struct lc_conn *c, int64_t id)
{
	for (int i = 0; i < lc_o->depth; i++)
		if (c->ex[i].id == id)
			return &c->ex[i];
	return NULL;
}

/* ---------- nghttp3 ---------- */

void lc_h3_consume(struct q *q, int64_t id, size_t n)
{
	if (lc_o->h3_no_credit)
		return;
	ngtcp2_conn_extend_max_stream_offset(q->conn, id, n);
	ngtcp2_conn_extend_max_offset(q->conn, n);
}

static int h3_deferred(nghttp3_conn *h3, int64_t id, size_t n, void *cud, void *sud)
{
	(void)h3, (void)sud;
	lc_h3_consume(cud, id, n);
	return 0;
}

static int h3_close(nghttp3_conn *h3, int64_t id, uint64_t code, void *cud, void *sud)
{
	struct q *q = cud;
	struct lc_ex *e = sud;

	(void)h3;
	if (!e)
		return 0;
	/* WHY a retry: H3_REQUEST_REJECTED says the server processed none of
	 * it (RFC 9114 4.1.1, 8.1), as h2's REFUSED_STREAM */
	if (code == NGHTTP3_H3_REQUEST_REJECTED) {
		lc_retry(q->c, e);
	} else if (code != NGHTTP3_H3_NO_ERROR) {
		lc_fail(q->c, e, E_RESET);
	} else {
		lc_record(q->c, e);
	}
	e->id = -1;
	q->c->inflight--;
	(void)id;
	return 0;
}

/* the server's GOAWAY: no new request on this connection; the ones at or
 * above <id> were never processed (RFC 9114 5.2), so they go again on the
 * next connection, retried and not failed (WHY no stream shut here: ngtcp2
 * would close it inside nghttp3's read; the stream forgets its exchange,
 * and the connection ends once the rest are answered) */
static int h3_shutdown(nghttp3_conn *h3, int64_t id, void *cud)
{
	struct q *q = cud;
	struct lc_conn *c = q->c;

	if (!c->goaway)
		c->t->st.goaways += c->up == 2;
	c->goaway = 1;
	q->goaway_id = id;
	for (int i = 0; i < lc_o->depth; i++) {
		struct lc_ex *e = &c->ex[i];

		if (e->id < id)
			continue;
		nghttp3_conn_set_stream_user_data(h3, e->id, NULL);
		lc_retry(c, e);
		e->id = -1;
		c->inflight--;
	}
	return 0;
}

static const nghttp3_callbacks h3_cbs = {
	.deferred_consume = h3_deferred,
	.stream_close = h3_close,
	.shutdown = h3_shutdown,
};

/* ---------- requests ---------- */

/* the request body: 'u' bytes from a constant buffer (it outlives every ack) */
static nghttp3_ssize body_read(nghttp3_conn *h3, int64_t id, nghttp3_vec *vec, size_t veccnt,
			       uint32_t *flags, void *cud, void *sud)
{
	static const uint8_t u[16384] = { [0 ... 16383] = 'u' };
	struct lc_ex *e = sud;
	size_t n;

	(void)h3, (void)id, (void)veccnt, (void)cud;
	if (!e) { /* WHY: the exchange left the stream (a GOAWAY's retry, a broken answer) */
		*flags |= NGHTTP3_DATA_FLAG_EOF;
		return 0;
	}
	if (lc_o->h3_no_body)
		return NGHTTP3_ERR_WOULDBLOCK; /* WHY: the probe of a body timeout: it never comes */
	n = (size_t)MIN(e->body_left, (uint64_t)sizeof(u));
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
	if (ngtcp2_conn_open_bidi_stream(q->conn, &id, lc_h3_rd_bind(q, e)) ||
	    nghttp3_conn_submit_request(q->h3, id, nv, n, o->body ? &body : NULL, e)) {
		e->id = -1;
		return;
	}
	e->id = id;
}

/* the HTTP/3 session on <q>'s connection: its control and QPACK streams */
int lc_h3_session_open(struct q *q)
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
int lc_h3_early_refused(struct q *q)
{
	struct lc_conn *c = q->c;

	if (ngtcp2_conn_early_data_rejected(q->conn))
		return -1;
	nghttp3_conn_del(q->h3);
	q->h3 = NULL;
	q->ready = 0;
	c->t->st.early_rejected++;
	if (lc_h3_session_open(q))
		return -1;
	for (int i = 0; i < lc_o->depth; i++)
		if (c->ex[i].id >= 0) {
			submit(q, &c->ex[i]);
			if (c->ex[i].id < 0)
				return -1;
		}
	return 0;
}

void lc_h3_fill(struct q *q)
{
	struct lc_conn *c = q->c;

	/* WHY !goaway: the server processes no request sent after its GOAWAY */
	while (q->ready && !c->goaway && c->inflight < (uint32_t)lc_o->depth) {
		struct lc_ex *e;

		if (!ngtcp2_conn_get_streams_bidi_left(q->conn)) {
			if (c->t->budget)
				lc_h3_limited(q);
			return;
		}
		e = ex_of(c, -1);

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

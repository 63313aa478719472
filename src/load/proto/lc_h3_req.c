/* hxload's HTTP/3 client: its HTTP/3 session (nghttp3: the control and QPACK streams, GOAWAY) and its requests (submit, fill); their streams are framed by lc_h3_tx.c and read by lc_h3_read.c. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "lc_h3.h"
#include "qh3mem.h"

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

/* the server's GOAWAY: no new request on this connection; the ones at or
 * above <id> were never processed (RFC 9114 5.2), so they go again on the
 * next connection, retried and not failed (WHY no stream shut here: ngtcp2
 * would close it inside nghttp3's read; the stream forgets its exchange,
 * and the connection ends once the rest are answered) */
static int h3_shutdown(nghttp3_conn *h3, int64_t id, void *cud)
{
	struct q *q = cud;
	struct lc_conn *c = q->c;

	(void)h3;
	if (!c->goaway)
		c->t->st.goaways += c->up == 2;
	c->goaway = 1;
	q->goaway_id = id;
	for (uint32_t i = 0; i < c->ex_used; i++) {
		struct lc_ex *e = LC_EX(c, i);

		if (e->id < id)
			continue;
		lc_retry(c, e);
		lc_h3s_leave(q, e);
	}
	return 0;
}

static const nghttp3_callbacks h3_cbs = {
	.deferred_consume = h3_deferred,
	.shutdown = h3_shutdown,
};

/* ---------- requests ---------- */

/* --h3-fields: a connection's first request as the user wrote it (we
 * check nothing that we send; the fields live as long as the options) */
static size_t raw_fields(struct hpk_field *f)
{
	for (int i = 0; i < lc_o->nh3_fields; i++) {
		const struct lc_field *r = &lc_o->h3_fields[i];

		f[i] = (struct hpk_field){ (const uint8_t *)r->name, (const uint8_t *)r->value, r->nlen, r->vlen, 0 };
	}
	return (size_t)lc_o->nh3_fields;
}

static void submit(struct q *q, struct lc_ex *e)
{
	const struct lc_opts *o = lc_o;
	const struct lc_target *tg = lc_tg;
	struct hpk_field f[4 + LC_MAX_HDRS];
	size_t n = 4;
	int raw = o->nh3_fields && !q->raw_sent++;

	if (!raw && !lc_h3s_again(q, e))
		return;

#define FLD(a, b) (struct hpk_field){ (const uint8_t *)(a), (const uint8_t *)(b), strlen(a), strlen(b), 0 }
	f[0] = FLD(":method", o->method);
	f[1] = FLD(":scheme", "https");
	f[2] = FLD(":authority", tg->authority);
	f[3] = FLD(":path", tg->paths[e->path].path);
#undef FLD
	if (raw)
		n = raw_fields(f);
	else
		for (int i = 0; i < o->nhdrs; i++) {
			const char *colon = strchr(o->hdrs[i], ':'), *v = colon + 1 + strspn(colon + 1, " \t");
			static __thread char lname[LC_MAX_HDRS][128];
			size_t nl = MIN((size_t)(colon - o->hdrs[i]), (size_t)127);

			for (size_t k = 0; k < nl; k++)
				lname[i][k] = (char)(o->hdrs[i][k] | 0x20);
			f[n++] = (struct hpk_field){ (const uint8_t *)lname[i], (const uint8_t *)v, nl, strlen(v), 0 };
		}
	if (lc_h3s_open(q, e, f, n, !raw))
		e->id = -1;
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
	q->h3_busy = 1;
	return 0;
}


/* the server refused our 0-RTT: its streams are gone; the requests in
 * them go again on this connection's new HTTP/3 session, their clocks
 * still running from their first send */
int lc_h3_early_refused(struct q *q)
{
	struct lc_conn *c = q->c;

	lc_h3s_orphan_all(q);
	if (ngtcp2_conn_early_data_rejected(q->conn))
		return -1;
	nghttp3_conn_del(q->h3);
	q->h3 = NULL;
	q->ready = 0;
	c->t->st.early_rejected++;
	if (lc_h3_session_open(q))
		return -1;
	for (uint32_t i = 0; i < c->ex_used; i++)
		if (LC_EX(c, i)->id >= 0) {
			submit(q, LC_EX(c, i));
			if (LC_EX(c, i)->id < 0)
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
		e = lc_ex_free(c);

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

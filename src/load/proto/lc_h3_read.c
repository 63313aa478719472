/* hxload's HTTP/3 client: the responses read by net/h3read (no nghttp3 on the request streams' receiving side): heads, interim heads, trailers, bodies to the run's reader. */
#include <string.h>

#include "common.h"
#include "lc_h3.h"
#include "lc_hits.h"

/* WHY not nghttp3: its reading of a response (QPACK decoding into reference
 * counted buffers, every field validated, per-frame callbacks) cost 9,100
 * of hxload's 18,600 instructions an h3 request (callgrind, -c 10 -m 10,
 * 100 B bodies), for four fields hxload looks at. nghttp3 keeps the
 * control and QPACK streams (SETTINGS, GOAWAY) and the requests' sending;
 * with SETTINGS_QPACK_MAX_TABLE_CAPACITY 0 (its default) the server may
 * use no dynamic table, so no decoder state is shared with it. */

/* the exchange <rd> reads for stream <id>, or NULL when it has none now
 * (answered, failed, retried: its slot's id moved on) */
static struct lc_ex *ex_of_rd(struct q *q, struct lc_h3rd *rd, int64_t id)
{
	struct lc_ex *e = &q->c->ex[rd - q->rd];

	return e->id == id ? e : NULL;
}

/* the three digits of a :status, or 0 */
static unsigned status_of(const uint8_t *v, size_t n)
{
	if (n != 3 || v[0] < '1' || v[0] > '9' || v[1] < '0' || v[1] > '9' || v[2] < '0' || v[2] > '9')
		return 0;
	return (unsigned)((v[0] - '0') * 100 + (v[1] - '0') * 10 + (v[2] - '0'));
}

/* the static table's :status entries (RFC 9204 Appendix A) */
static int is_status(int sidx)
{
	return (sidx >= 24 && sidx <= 28) || (sidx >= 63 && sidx <= 71);
}

static void on_line(void *arg, const struct qpk_line *l)
{
	struct lc_h3rd *rd = arg;
	struct lc_ex *e = rd->e;
	const char *v = (const char *)l->value;
	unsigned st;

	/* WHY the static index first: of the fields looked for only :status is
	 * in the table, and no name is compared for the others */
	if (l->sidx >= 0 && !is_status(l->sidx))
		return;
	if (l->sidx >= 0 || (l->nlen == 7 && !memcmp(l->name, ":status", 7))) {
		if (!(st = status_of(l->value, l->vlen)))
			return;
		if (st < 200) /* an interim head: 103, 100 */
			rd->q->c->t->st.interim++;
		else
			lc_head(rd->q->c, e, st);
	} else if (l->nlen == 5 && !memcmp(l->name, "x-rsp", 5)) {
		lc_xrsp(e, v, l->vlen);
	} else if (l->nlen == 13 && !memcmp(l->name, "x-hxterm-made", 13)) {
		lc_made(e, v, l->vlen);
	} else if (l->nlen == 16 && !memcmp(l->name, "x-hxterm-ignored", 16)) {
		lc_ignored(rd->q->c->t, v, l->vlen);
	}
}

static void on_data(void *arg, const uint8_t *p, size_t n)
{
	lc_verify(((struct lc_h3rd *)arg)->e, (const char *)p, n);
}

static const struct h3r_ops rd_ops = { on_line, on_data };

/* <e> leaves stream <id>: nghttp3 forgets it (its close reports nothing) */
static void leave(struct q *q, struct lc_ex *e, int64_t id)
{
	nghttp3_conn_set_stream_user_data(q->h3, id, NULL);
	e->id = -1;
	q->c->inflight--;
}

struct lc_h3rd *lc_h3_rd_bind(struct q *q, struct lc_ex *e)
{
	struct lc_h3rd *rd = &q->rd[e - q->c->ex];

	h3r_reset(&rd->r);
	rd->q = q;
	rd->e = e;
	return rd;
}

/* The response is whole: recorded now, not at the stream's close, which
 * waits for the server's ACK of the request (WHY: a server that closes
 * once its streams are done, at a request limit, closed before that ACK
 * came, and its last answer counted as lost; the latency ends at the last
 * byte too). Not while the request body still goes: nghttp3 reads <e>,
 * and its close records it. A stream that breaks HTTP/3, or ends before
 * its head or inside a frame, fails alone (WHY not the connection, as
 * nghttp3 did: its other requests were answered well); the rest of its
 * bytes are passed over. */
void lc_h3_read(struct q *q, struct lc_h3rd *rd, int64_t id, const uint8_t *p, size_t n, int fin)
{
	struct lc_ex *e = rd ? ex_of_rd(q, rd, id) : NULL;

	if (!e)
		return;
	if (h3r_feed(&rd->r, p, n, &rd_ops, rd) < 0 || (fin && (!h3r_at_end(&rd->r) || !e->head_us))) {
		lc_fail(q->c, e, E_PROTOCOL);
		leave(q, e, id);
	} else if (fin && !e->body_left) {
		lc_record(q->c, e);
		leave(q, e, id);
	}
}

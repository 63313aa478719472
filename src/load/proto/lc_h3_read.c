/* hxload's HTTP/3 client: the responses read by net/h3read (no nghttp3 on the request streams): heads, interim heads, trailers, bodies to the run's reader. */
#include <string.h>

#include "common.h"
#include "lc_h3.h"
#include "lc_hits.h"
#include "lc_reader.h"

/* WHY not nghttp3: its reading of a response (QPACK decoding into reference
 * counted buffers, every field validated, per-frame callbacks) cost 9,100
 * of hxload's 18,600 instructions an h3 request (callgrind, -c 10 -m 10,
 * 100 B bodies), for the four fields hxload looks at (and those a body
 * reader asks for, as over h1 and h2, which nghttp3's client never gave). nghttp3 keeps the
 * control and QPACK streams (SETTINGS, GOAWAY); with SETTINGS_QPACK_MAX_TABLE_CAPACITY 0 (its default) the server may
 * use no dynamic table, so no decoder state is shared with it. */


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
	struct lc_h3s *s = arg;
	struct lc_ex *e = s->e;
	const char *v = (const char *)l->value;
	unsigned st;

	/* WHY the static index first: of the fields looked for only :status is
	 * in the table, and no name is compared for the others */
	if (l->sidx >= 0 ? is_status(l->sidx) : l->nlen == 7 && !memcmp(l->name, ":status", 7)) {
		if (!(st = status_of(l->value, l->vlen)))
			return;
		if (st < 200) /* an interim head: 103, 100 */
			s->q->c->t->st.interim++;
		else
			lc_head(s->q->c, e, st);
	} else if (l->sidx < 0 && l->nlen == 5 && !memcmp(l->name, "x-rsp", 5)) {
		lc_xrsp(e, v, l->vlen);
	} else if (l->sidx < 0 && l->nlen == 13 && !memcmp(l->name, "x-hxterm-made", 13)) {
		lc_made(e, v, l->vlen);
	} else if (l->sidx < 0 && l->nlen == 16 && !memcmp(l->name, "x-hxterm-ignored", 16)) {
		lc_ignored(s->q->c->t, v, l->vlen);
	} else if (unlikely(lc_rd->head != NULL)) { /* as h1 and h2 do: gRPC's status, a reader's fields */
		lc_rd->head(e, (const char *)l->name, l->nlen, v, l->vlen);
	}
}

static void on_data(void *arg, const uint8_t *p, size_t n)
{
	lc_verify(((struct lc_h3s *)arg)->e, (const char *)p, n);
}

static const struct h3r_ops rd_ops = { on_line, on_data };

/* The response is whole: recorded now, not at the stream's close, which
 * waits for the server's ACK of the request (WHY: a server that closes
 * once its streams are done, at a request limit, closed before that ACK
 * came, and its last answer counted as lost; the latency ends at the last
 * byte too). Not while the request body still goes: the stream's close
 * records it then (lc_h3s_closed). A stream that breaks HTTP/3, or ends before
 * its head or inside a frame, fails alone (WHY not the connection, as
 * nghttp3 did: its other requests were answered well); the rest of its
 * bytes are passed over. */
void lc_h3_read(struct q *q, struct lc_h3s *s, int64_t id, const uint8_t *p, size_t n, int fin)
{
	struct lc_ex *e = s ? s->e : NULL;

	(void)id;
	if (!e)
		return;
	if (h3r_feed(&s->r, p, n, &rd_ops, s) < 0 || (fin && (!h3r_at_end(&s->r) || !e->head_us))) {
		lc_fail(q->c, e, E_PROTOCOL);
		lc_h3s_leave(q, e);
	} else if (fin && !e->body_left) {
		lc_record(q->c, e);
		lc_h3s_leave(q, e);
	}
}

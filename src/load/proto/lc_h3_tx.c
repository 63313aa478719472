/* hxload's HTTP/3 client: its requests framed by us (HEADERS by core/qpack: static table and literals; the body one DATA frame) on their own streams, sent beside nghttp3's control and QPACK streams. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "lc_h3.h"
#include "h3frame.h"

/* WHY not nghttp3: its submit, its QPACK encoder and its writes of each
 * stream cost 6,000 of hxload's 13,200 instructions an h3 request once it
 * no longer read the responses (callgrind, -c 10 -m 10, 100 B bodies) */

#define SPARE_MAX  64 /* closed streams kept to use again, a connection */
#define BODY_VECS  4  /* body runs offered at once */

/* the request body: 'u' bytes from a constant buffer (it outlives every ack) */
static const uint8_t body_bytes[16384] = { [0 ... 16383] = 'u' };

/* whether <s> has bytes or its FIN to offer now */
static int has_more(const struct lc_h3s *s)
{
	if (s->st & (LC_H3S_SHUT | LC_H3S_BLOCKED | LC_H3S_FINSENT))
		return 0;
	return s->off < s->len || !(s->st & LC_H3S_NOFIN);
}

/* behind the others on the ready streams, if it has something */
static void ready(struct q *q, struct lc_h3s *s)
{
	list_del(&s->ready);
	if (has_more(s))
		list_add(q->txq.prev, &s->ready);
}

/* a spare stream, or a new one */
static struct lc_h3s *take(struct q *q)
{
	struct list *n = list_pop(&q->spare);
	struct lc_h3s *s;

	if (n) {
		q->nspare--;
		s = list_elem(n, struct lc_h3s, all);
	} else if (!(s = calloc(1, sizeof(*s)))) {
		return NULL;
	}
	s->r = (struct h3r){ 0 };
	list_init(&s->ready);
	s->q = q;
	s->off = 0;
	s->st = 0;
	s->mem = NULL;
	list_add(&q->streams, &s->all);
	return s;
}

/* <s> closed: its state freed, itself kept to use again or freed */
static void put(struct q *q, struct lc_h3s *s)
{
	list_del(&s->ready);
	list_del(&s->all);
	h3r_reset(&s->r);
	free(s->mem);
	s->mem = NULL;
	if (q->nspare < SPARE_MAX) {
		list_add(&q->spare, &s->all);
		q->nspare++;
	} else {
		free(s);
	}
}

/* the request's HEADERS frame (and the DATA frame's head before its body)
 * into <s>, its type and length written in front of the field section
 * once its length is known: 0, or -1 */
static int frames(struct lc_h3s *s, const struct hpk_field *f, size_t n, uint64_t body)
{
	size_t bound = H3F_HEAD + qpk_bound(f, n) + H3F_HEAD, len;
	uint8_t *b = bound <= sizeof(s->in) ? s->in : (s->mem = malloc(bound)), *h;

	if (!b)
		return -1;
	h = h3f_headers(b, f, n, &len);
	s->hlen = (uint32_t)len;
	if (body) {
		h[s->hlen] = H3F_DATA;
		s->hlen = (uint32_t)(qv_put(h + s->hlen + 1, body) - h);
	}
	s->hd = h;
	s->len = s->hlen + body;
	return 0;
}

/* <s>, framed, opened for <e> and ready to send: 0, or -1 (<s> put back) */
static int start(struct q *q, struct lc_h3s *s, struct lc_ex *e)
{
	if (ngtcp2_conn_open_bidi_stream(q->conn, &s->id, s)) {
		put(q, s);
		return -1;
	}
	/* WHY no FIN with --h3-no-body: the probe of a body timeout, it never comes */
	if (lc_o->h3_no_body && lc_o->body)
		s->st |= LC_H3S_NOFIN;
	s->e = e;
	e->id = s->id;
	e->body_left = lc_o->body;
	q->sx[LC_EX_IDX(q->c, e)] = s;
	ready(q, s);
	return 0;
}

int lc_h3s_open(struct q *q, struct lc_ex *e, const struct hpk_field *f, size_t n, int keep)
{
	struct lc_h3s *s = take(q);
	uint64_t body = lc_o->h3_no_body ? 0 : lc_o->body;

	if (!s)
		return -1;
	if (frames(s, f, n, body) < 0) {
		put(q, s);
		return -1;
	}
	if (keep && s->hlen <= sizeof(q->hc)) {
		memcpy(q->hc, s->hd, s->hlen);
		q->hc_len = s->hlen;
		q->hc_path = e->path;
	}
	return start(q, s, e);
}

/* WHY: a request's frames are the same for each request of its path (its
 * fields, the body's length); encoded once, they cost a copy (the encoder:
 * 460 instructions a request, callgrind) */
int lc_h3s_again(struct q *q, struct lc_ex *e)
{
	struct lc_h3s *s;

	if (q->hc_path != e->path || !(s = take(q)))
		return -1;
	memcpy(s->in, q->hc, q->hc_len);
	s->hd = s->in;
	s->hlen = q->hc_len;
	s->len = s->hlen + (lc_o->h3_no_body ? 0 : lc_o->body);
	return start(q, s, e);
}

void lc_h3s_leave(struct q *q, struct lc_ex *e)
{
	struct lc_h3s **sx = &q->sx[LC_EX_IDX(q->c, e)];

	if (*sx) {
		(*sx)->e = NULL;
		/* WHY: a body that no exchange waits for is not sent on */
		list_del(&(*sx)->ready);
		*sx = NULL;
	}
	e->id = -1;
	q->c->inflight--;
}

void lc_h3s_orphan_all(struct q *q)
{
	for (int i = 0; i < lc_o->depth; i++)
		if (q->sx[i]) {
			q->sx[i]->e = NULL;
			list_del(&q->sx[i]->ready);
			q->sx[i] = NULL;
		}
}

/* WHY a retry: H3_REQUEST_REJECTED says the server processed none of it
 * (RFC 9114 4.1.1, 8.1), as h2's REFUSED_STREAM; a close without an error
 * is one whose answer ended while its body still went (lc_h3_read) */
void lc_h3s_closed(struct q *q, struct lc_h3s *s, uint32_t flags, uint64_t code)
{
	struct lc_ex *e = s ? s->e : NULL;

	if (!s)
		return;
	if (!(flags & NGTCP2_STREAM_CLOSE_FLAG_APP_ERROR_CODE_SET))
		code = NGHTTP3_H3_NO_ERROR;
	if (e) {
		if (code == NGHTTP3_H3_REQUEST_REJECTED)
			lc_retry(q->c, e);
		else if (code != NGHTTP3_H3_NO_ERROR)
			lc_fail(q->c, e, E_RESET);
		else
			lc_record(q->c, e);
		lc_h3s_leave(q, e);
	}
	put(q, s);
}

void lc_h3s_unblock(struct q *q, struct lc_h3s *s)
{
	if (s && (s->st & LC_H3S_BLOCKED)) {
		s->st &= (uint8_t)~LC_H3S_BLOCKED;
		if (s->e)
			ready(q, s);
	}
}

void lc_h3s_free_all(struct q *q)
{
	struct list *n;

	while ((n = list_pop(&q->streams))) {
		struct lc_h3s *s = list_elem(n, struct lc_h3s, all);

		list_init(&s->all);
		put(q, s);
	}
	while ((n = list_pop(&q->spare)))
		free(list_elem(n, struct lc_h3s, all));
	q->nspare = 0;
}

/* ---------- the packet writer's source ---------- */

static int tx_next(void *arg, int64_t *sid, int *fin, struct qw_vec *v, size_t max)
{
	struct q *q = arg;

	if (!list_empty(&q->txq)) {
		struct lc_h3s *s = list_elem(q->txq.next, struct lc_h3s, ready);
		uint64_t off = s->off;
		size_t k = 0;

		if (off < s->hlen) {
			v[k++] = (struct qw_vec){ s->hd + off, s->hlen - (size_t)off };
			off = s->hlen;
		}
		for (; off < s->len && k < MIN(max, (size_t)BODY_VECS); k++) {
			size_t b = (size_t)MIN(s->len - off, (uint64_t)sizeof(body_bytes));

			v[k] = (struct qw_vec){ (uint8_t *)body_bytes, b };
			off += b;
		}
		*fin = off == s->len && !(s->st & LC_H3S_NOFIN);
		s->st = (uint8_t)((s->st & ~LC_H3S_FINOFF) | (*fin ? LC_H3S_FINOFF : 0));
		*sid = s->id;
		q->tx_cur = s;
		return (int)k;
	}
	*sid = -1;
	return 0;
}

static int tx_wrote(void *arg, int64_t sid, size_t n)
{
	struct q *q = arg;
	struct lc_h3s *s = q->tx_cur;

	(void)sid; /* WHY: tx_cur's, the stream tx_next() offered */
	s->off += n;
	if ((s->st & LC_H3S_FINOFF) && s->off == s->len)
		s->st |= LC_H3S_FINSENT;
	if (s->e && !(s->st & LC_H3S_NOFIN))
		s->e->body_left = s->len - MAX(s->off, (uint64_t)s->hlen);
	ready(q, s); /* round robin: behind the others */
	return 0;
}

static void tx_stop(void *arg, int64_t sid, int shut)
{
	struct q *q = arg;
	struct lc_h3s *s = q->tx_cur;

	(void)sid;
	s->st |= shut ? LC_H3S_SHUT : LC_H3S_BLOCKED;
	list_del(&s->ready);
}

void lc_h3s_src(struct qw_src *src, struct q *q)
{
	*src = (struct qw_src){ tx_next, tx_wrote, tx_stop, q, 0 };
}

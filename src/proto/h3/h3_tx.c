/* HTTP/3 responses framed by us (--h3-engine hx): HEADERS by core/qpack, DATA over the generator's slices, sent beside nghttp3's streams. */
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "h3_eng.h"
#include "h3frame.h"

/* WHY our own: nghttp3 0.8 Huffman-codes every literal and never indexes
 * a name without a token (x-req, x-rsp, server-timing), so its encoder
 * cost 2,980 instructions an h3 response (13.6 % of ours); nghttp3 keeps
 * the control and QPACK streams, the request side and its QPACK decoder. */


static __thread struct pool arenas = { .size = H3T_ARENA };

void h3tx_drain(void)
{
	pool_drain(&arenas);
}

/* the framing state of <s>, one of ours (h3s_hx) */
static inline struct h3tx *TX(struct h3s *s)
{
	return &container_of(s, struct h3s_hx, s)->tx;
}

static struct h3piece *piece(struct h3tx *t, uint32_t i)
{
	return &t->pc[i % H3T_PIECES];
}

static void push(struct h3tx *t, const uint8_t *p, size_t len)
{
	struct h3piece *pc = piece(t, t->end++);

	pc->p = p;
	pc->len = (uint32_t)len;
}

static void h3tx_init(struct h3s *s)
{
	struct h3tx *t = TX(s);

	list_init(&t->ready);
	t->first = t->cur = t->end = 0;
	t->cur_off = 0;
	t->acked = 0;
	t->st = 0;
	t->offered_fin = 0;
	t->arena_used = 0;
	t->arena_end = 0;
	t->arena = NULL;
	t->big[0] = t->big[1] = NULL;
}

/* the arena back to the worker's pool: none of its frames is in flight */
static void arena_put(struct h3tx *t)
{
	if (t->arena) {
		pool_put(&arenas, t->arena);
		t->arena = NULL;
	}
}

static void h3tx_release(struct h3s *s)
{
	struct h3tx *t = TX(s);

	list_del(&t->ready);
	arena_put(t);
	free(t->big[0]);
	free(t->big[1]);
	t->big[0] = t->big[1] = NULL;
}

/* on the connection's ready streams, behind the others, unless it may not send */
static void ready(struct h3s *s)
{
	struct h3tx *t = TX(s);

	if (list_empty(&t->ready) && !(t->st & (H3T_SHUT | H3T_BLOCKED | H3T_FINSENT)))
		list_add(s->c->ready.prev, &t->ready);
}

/* <n> bytes that stay until the peer has them: its arena (taken from the
 * pool on first use), else malloc (a head and its trailers: two at most,
 * kept till the stream ends) */
static uint8_t *arena(struct h3tx *t, size_t n)
{
	if (!t->arena && n <= H3T_ARENA) {
		if (!(t->arena = pool_get(&arenas)))
			return NULL;
		t->arena_used = 0;
	}
	if (t->arena && t->arena_used + n <= H3T_ARENA) {
		uint8_t *p = t->arena + t->arena_used;

		t->arena_used = (uint16_t)(t->arena_used + n);
		return p;
	}
	for (int i = 0; i < 2; i++)
		if (!t->big[i])
			return t->big[i] = malloc(n);
	return NULL;
}

/* a HEADERS frame of <nv>, its type and length written in front of the
 * field section once its length is known */
static int headers(struct h3tx *t, const struct xs_nv *nv, size_t n)
{
	const struct hpk_field *f = xs_hpk(nv);
	size_t bound = H3F_HEAD + qpk_bound(f, n), len;
	uint8_t *b = arena(t, bound), *h;

	if (!b)
		return -1;
	h = h3f_headers(b, f, n, &len);
	if (t->arena && b >= t->arena && b < t->arena + H3T_ARENA) { /* WHY: the bound was generous */
		t->arena_used = (uint16_t)(h + len - t->arena);
		t->arena_end = t->end + 1;
	}
	push(t, h, len);
	return 0;
}

static int h3tx_respond(struct h3s *s, const struct xs_nv *nv, size_t n, int body)
{
	if (headers(TX(s), nv, n) < 0)
		return -1;
	TX(s)->st &= (uint8_t)~H3T_WAIT; /* a 103's: the body may follow now */
	if (!body)
		TX(s)->st |= H3T_FIN;
	ready(s);
	return 0;
}

static int h3tx_info(struct h3s *s, const struct xs_nv *nv, size_t n)
{
	if (headers(TX(s), nv, n) < 0)
		return -1;
	TX(s)->st |= H3T_WAIT; /* WHY: no body asked for before the answer's head */
	ready(s);
	return 0;
}

/* the body is whole: its trailers, then the FIN */
static void body_end(struct h3s *s)
{
	struct xs_nv nv[PLAN_MAX_FIELDS];
	char lbuf[PLAN_DEC_SIZE];
	size_t nt = xs_trailers_nv(&s->x, nv, lbuf);

	if (nt && headers(TX(s), nv, nt) < 0)
		return s->x.ops->fail(&s->x);
	TX(s)->st |= H3T_FIN;
}

/* One DATA frame of the generator's next slices, as many as the ring
 * holds, keeping a piece for the trailers; or the end, a pause, a fault */
static void fill(struct h3s *s)
{
	struct h3tx *t = TX(s);
	uint32_t room = H3T_PIECES - (t->end - t->first);
	nghttp3_vec v[H3T_PIECES];
	struct ex_action a;
	uint64_t len = 0;
	size_t n;

	if (room < 3) {
		t->st |= H3T_ROOM;
		return;
	}
	n = h3s_gather(s, v, room - 2, &a);
	if (n) {
		struct h3piece *hd = piece(t, t->end);

		for (size_t i = 0; i < n; i++)
			len += v[i].len;
		hd->hd[0] = H3F_DATA;
		hd->len = (uint32_t)(qv_put(hd->hd + 1, len) - hd->hd);
		hd->p = hd->hd;
		t->end++;
		for (size_t i = 0; i < n; i++)
			push(t, v[i].base, v[i].len);
	}
	if (a.act == EXA_END)
		body_end(s);
	else if (!n && a.act != EXA_DATA && h3s_halt(s, &a) == 0)
		t->st |= H3T_WAIT; /* WHY: the halt repeats until acted upon */
}

static void h3tx_wake(struct h3s *s)
{
	TX(s)->st &= (uint8_t)~H3T_WAIT;
	ready(s);
}

static void h3tx_shut(struct h3s *s)
{
	TX(s)->st |= H3T_SHUT;
	list_del(&TX(s)->ready);
}

static void h3tx_unblock(struct h3s *s)
{
	if (TX(s)->st & H3T_BLOCKED) {
		TX(s)->st &= (uint8_t)~H3T_BLOCKED;
		ready(s);
	}
}

static void h3tx_acked(struct h3s *s, uint64_t len)
{
	struct h3tx *t = TX(s);

	t->acked += len;
	while (t->first < t->cur && t->acked >= piece(t, t->first)->len) {
		t->acked -= piece(t, t->first)->len;
		t->first++;
	}
	if (t->first >= t->arena_end)
		arena_put(t);
	if ((t->st & H3T_ROOM) && H3T_PIECES - (t->end - t->first) >= 3) {
		t->st &= (uint8_t)~H3T_ROOM;
		ready(s);
	}
}

/* whether <t> has nothing to offer now (after a fill) */
static int idle(const struct h3tx *t)
{
	if (t->st & H3T_SHUT)
		return 1;
	return t->cur == t->end && (!(t->st & H3T_FIN) || (t->st & H3T_FINSENT));
}

static int tx_next(void *arg, int64_t *sid, int *fin, struct qw_vec *v, size_t max)
{
	struct h3c *c = arg;

	while (!list_empty(&c->ready)) {
		struct h3s *s = &list_elem(c->ready.next, struct h3s_hx, tx.ready)->s;
		struct h3tx *t = TX(s);
		size_t k = 0;

		/* WHY at one piece left too: the head and the first DATA frame
		 * then go in one STREAM frame */
		if (t->end - t->cur <= 1 && !(t->st & (H3T_FIN | H3T_SHUT | H3T_WAIT | H3T_ROOM)))
			fill(s);
		if (idle(t)) {
			list_del(&t->ready); /* WHY: back by an ack, a window, a wake */
			continue;
		}
		for (uint32_t i = t->cur; i < t->end && k < max; i++, k++) {
			const struct h3piece *p = piece(t, i);
			size_t off = i == t->cur ? t->cur_off : 0;

			v[k] = (struct qw_vec){ (uint8_t *)p->p + off, p->len - off };
		}
		*fin = t->offered_fin = (t->st & H3T_FIN) && t->cur + k == t->end;
		*sid = s->id;
		c->tx_cur = s;
		return (int)k;
	}
	*sid = -1;
	return 0;
}

static int tx_wrote(void *arg, int64_t sid, size_t n)
{
	struct h3c *c = arg;
	struct h3tx *t = TX(c->tx_cur);

	(void)sid; /* WHY: tx_cur's, the stream tx_next() offered */
	while (t->cur < t->end && n >= piece(t, t->cur)->len - t->cur_off) {
		n -= piece(t, t->cur)->len - t->cur_off;
		t->cur++;
		t->cur_off = 0;
	}
	t->cur_off += (uint32_t)n;
	if (t->offered_fin && t->cur == t->end)
		t->st |= H3T_FINSENT;
	/* round robin: behind the others */
	list_del(&t->ready);
	ready(c->tx_cur);
	return 0;
}

static void tx_stop(void *arg, int64_t sid, int shut)
{
	struct h3c *c = arg;
	struct h3tx *t = TX(c->tx_cur);

	(void)sid;
	t->st |= shut ? H3T_SHUT : H3T_BLOCKED;
	list_del(&t->ready);
}

static void h3tx_src(struct h3c *c, struct qw_src *src)
{
	*src = (struct qw_src){ tx_next, tx_wrote, tx_stop, c, 0 };
}

const struct h3_eng h3_eng_hx = {
	.name = "hx",
	.slot = 0,
	.ssize = sizeof(struct h3s_hx),
	.own_acks = 1,
	.init = h3tx_init,
	.release = h3tx_release,
	.respond = h3tx_respond,
	.info = h3tx_info,
	.resume = h3tx_wake,
	.shut = h3tx_shut,
	.acked = h3tx_acked,
	.unblock = h3tx_unblock,
	.src = h3tx_src,
};

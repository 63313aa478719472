/* HTTP/1.x output: the staging queue, response heads, bodies and chunked framing. */
#include <string.h>

#include "body.h"
#include "config.h"
#include "fmt.h"
#include "h1_conn.h"
#include "resp.h"

#define HEAD_RESERVE 4096      /* the largest head before padding */
#define STAGE_MAX    (1 << 20) /* bytes staged per writev */
#define COPY_BELOW   64        /* chunk slices shorter than this are copied */
#define COPY_SMALL   512       /* a whole body this short is copied after its head */

static void stage_field(struct oq *q, const char *n, size_t nl, const char *v,
			size_t vl)
{
	char *p = q->sc + q->sc_used, *s = p;

	p = fmt_mem(p, n, nl);
	p = fmt_lit(p, ": ");
	p = fmt_mem(p, v, vl);
	p = fmt_lit(p, "\r\n");
	q->sc_used += (uint32_t)(p - s);
	oq_ref(q, s, (size_t)(p - s));
}

/* status line, framing, the generator's fields, Connection */
static void stage_head_main(struct h1c *c)
{
	struct oq *q = &c->oq;
	struct hresp *rs = &c->ex->rs;
	char *p = q->sc + q->sc_used, *s = p;

	p = c->minor ? fmt_lit(p, "HTTP/1.1 ") : fmt_lit(p, "HTTP/1.0 ");
	p = fmt_u64(p, rs->status);
	*p++ = ' ';
	p = fmt_mem(p, rs->reason.ptr, rs->reason.len);
	p = fmt_lit(p, "\r\n");
	if (rs->clen >= 0) {
		p = fmt_lit(p, "Content-Length: ");
		p = fmt_u64(p, (uint64_t)rs->clen);
		p = fmt_lit(p, "\r\n");
	}
	if (rs->chunked)
		p = fmt_lit(p, "Transfer-Encoding: chunked\r\n");
	if (!(c->flags & H1C_KEEP))
		p = fmt_lit(p, "Connection: close\r\n");
	else if (!c->minor)
		p = fmt_lit(p, "Connection: keep-alive\r\n");
	q->sc_used += (uint32_t)(p - s);
	oq_ref(q, s, (size_t)(p - s));
	for (int i = 0; i < rs->nf; i++)
		stage_field(q, rs->f[i].name, rs->f[i].nlen, rs->f[i].val, rs->f[i].vlen);
}

int h1_stage_head(struct h1c *c)
{
	struct oq *q = &c->oq;
	struct hfield f;

	if (!(c->flags & H1C_HEAD_OUT)) {
		if (oq_sc_room(q) < HEAD_RESERVE || oq_iov_room(q) < 2 + RESP_MAX_FIELDS)
			return 0;
		stage_head_main(c);
		c->flags |= H1C_HEAD_OUT;
	}
	while (c->ex->rs.pad) {
		if (oq_sc_room(q) < PAD_RUN + 64 || oq_iov_room(q) < 2)
			return 0;
		resp_pad_next(&c->ex->rs, &f);
		stage_field(q, f.name, f.nlen, f.val, f.vlen);
	}
	if (oq_sc_room(q) < 2 || oq_iov_room(q) < 1)
		return 0;
	oq_copy(q, "\r\n", 2);
	return 1;
}

/* stages up to <max> payload bytes at the body cursor; returns how many */
static size_t stage_data(struct h1c *c, uint64_t max)
{
	struct oq *q = &c->oq;
	const char *ptr;
	size_t n;

	if (c->ex->rs.src == BODY_TEXT) {
		n = (size_t)MIN(max, (uint64_t)oq_sc_room(q));
		oq_copy(q, c->ex->rs.text.ptr + c->out_off, n);
	} else {
		n = body_slice(c->out_off, (size_t)MIN(max, (uint64_t)SIZE_MAX),
			       c->ex->rs.src == BODY_RANDOM, &ptr);
		/* WHY: head and a short body in one iovec: one send, not a
		 * gather of two (IORING_OP_SEND on the ring, a plain writev) */
		if ((n < COPY_BELOW && c->ex->rs.chunked) ||
		    (c->ex->rs.body <= COPY_SMALL && !c->ex->rs.chunked)) {
			n = MIN(n, oq_sc_room(q));
			oq_copy(q, ptr, n);
		} else {
			oq_ref(q, ptr, n);
		}
	}
	c->out_off += n;
	return n;
}

/* opens the next chunk: "<hex size>\r\n" */
static void chunk_open(struct h1c *c)
{
	struct oq *q = &c->oq;
	char *p = q->sc + q->sc_used, *s = p;
	uint64_t size = MIN(c->ex->plan.chunk, c->ex->rs.body - c->out_off);

	p = fmt_hex(p, size);
	p = fmt_lit(p, "\r\n");
	q->sc_used += (uint32_t)(p - s);
	oq_ref(q, s, (size_t)(p - s));
	c->chunk_left = size;
}

/* the last chunk and the trailers; returns 0 when there is no room yet */
static int chunk_close(struct h1c *c)
{
	struct oq *q = &c->oq;
	const struct plan *p = &c->ex->plan;
	size_t need = 8;

	for (int i = 0; i < p->ntrl; i++)
		need += p->trl[i].nlen + p->trl[i].vlen + 4;
	if (oq_sc_room(q) < need || oq_iov_room(q) < 2 + p->ntrl)
		return 0;
	oq_copy(q, "0\r\n", 3);
	for (int i = 0; i < p->ntrl; i++)
		stage_field(q, p->trl[i].name, p->trl[i].nlen, p->trl[i].val,
			    p->trl[i].vlen);
	oq_copy(q, "\r\n", 2);
	c->flags |= H1C_TRL_OUT;
	return 1;
}

/* one step of body staging; returns 1 staged something, 0 no room */
static int stage_step(struct h1c *c)
{
	struct oq *q = &c->oq;
	uint64_t max = c->out_end - c->out_off;

	if (oq_iov_room(q) < 3 || oq_sc_room(q) < 32 || q->bytes >= STAGE_MAX)
		return 0;
	if (c->ex->plan.flags & PF_PIECE)
		max = MIN(max, c->piece_left);
	if (!c->ex->rs.chunked) {
		max = stage_data(c, max);
	} else {
		if (!c->chunk_left)
			chunk_open(c);
		max = stage_data(c, MIN(max, c->chunk_left));
		c->chunk_left -= max;
		if (!c->chunk_left)
			oq_copy(q, "\r\n", 2);
	}
	if (c->ex->plan.flags & PF_PIECE)
		c->piece_left -= max;
	return max > 0;
}

/* Returns 1 when the whole body is staged, 0 when the queue needs a flush,
 * 2 at the end of a piece (p=). */
int h1_stage_body(struct h1c *c)
{
	while (c->out_off < c->out_end) {
		if ((c->ex->plan.flags & PF_PIECE) && !c->piece_left)
			return 2;
		if (!stage_step(c))
			return 0;
	}
	/* the framing ends only with the whole body, never at a fault cut */
	if (c->ex->rs.chunked && c->out_end == c->ex->rs.body && !(c->flags & H1C_TRL_OUT))
		return chunk_close(c);
	return 1;
}

void h1_stage_error(struct h1c *c, uint16_t status, const char *why)
{
	struct oq *q = &c->oq;
	char *p = q->sc + q->sc_used, *s = p;
	struct ist r = resp_reason(status);
	size_t wl = strlen(why);

	p = fmt_lit(p, "HTTP/1.1 ");
	p = fmt_u64(p, status);
	*p++ = ' ';
	p = fmt_mem(p, r.ptr, r.len);
	p = fmt_lit(p, "\r\nContent-Type: text/plain\r\nContent-Length: ");
	p = fmt_u64(p, wl + 1);
	p = fmt_lit(p, "\r\nConnection: close\r\n\r\n");
	p = fmt_mem(p, why, wl);
	*p++ = '\n';
	q->sc_used += (uint32_t)(p - s);
	oq_ref(q, s, (size_t)(p - s));
}

/* ---------- spliced bodies ---------- */

int h1_splice_ok(struct h1c *c)
{
	const struct hresp *rs = &c->ex->rs;

	if (!cfg.splice || !c->w->spl.ok || c->x.ssl || (c->u_st & U_ON) || (c->flags & H1C_NOSPLICE) ||
	    (c->ex->plan.flags & (PF_NOSPLICE | PF_PIECE)) || rs->chunked ||
	    rs->src == BODY_TEXT || c->out_end - c->out_off < SPL_MIN)
		return 0;
	return (c->sp = spl_get(&c->w->spl)) != NULL;
}

/* the pipe is empty: tee the next bytes, or say why not (1 done, 2 writev) */
static int splice_refill(struct h1c *c, int rnd)
{
	long n;

	if (c->out_off < c->out_end && !(c->out_off % spl_period(rnd)) &&
	    (n = spl_fill(&c->w->spl, c->sp, rnd, c->out_end - c->out_off)) > 0) {
		c->out_off += (uint64_t)n;
		return 0;
	}
	spl_put(&c->w->spl, c->sp);
	c->sp = NULL;
	if (c->out_off == c->out_end)
		return 1;
	c->flags |= H1C_NOSPLICE; /* WHY: a short tee left the pattern mid-line */
	return 2;
}

int h1_splice_body(struct h1c *c)
{
	int rnd = c->ex->rs.src == BODY_RANDOM;
	long n;
	int r;

	/* the head goes first, held back by MSG_MORE to share a segment */
	if (oq_pending(&c->oq) && (r = h1_flush_queue(c, 1)) <= 0)
		return r;
	for (;;) {
		if (!c->sp->len && (r = splice_refill(c, rnd)))
			return r;
		if (!(c->flags & H1C_WR_READY))
			return 0;
		n = spl_out(c->sp, c->x.fd, c->out_off < c->out_end);
		if (n == XPRT_AGAIN) {
			c->flags &= ~H1C_WR_READY;
			return 0;
		}
		if (n < 0) {
			c->flags |= H1C_DEAD;
			return -1;
		}
		c->last_act = c->w->now_ms;
		c->w->st.bytes_out += (uint64_t)n;
	}
}

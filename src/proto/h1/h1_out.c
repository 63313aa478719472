/* HTTP/1.x output: the staging queue and its flush, response heads, bodies and chunked framing; a connection marked dead. */
#include <string.h>
#include <sys/socket.h>

#include "body.h"
#include "config.h"
#include "fmt.h"
#include "h1_conn.h"
#include "resp.h"

#define HEAD_RESERVE 4096      /* the largest head before padding */
#define STAGE_MAX    (1 << 20) /* bytes staged per writev */
#define COPY_BELOW   64        /* chunk slices shorter than this are copied */
#define COPY_SMALL   512       /* a whole body this short is copied after its head */

/* "name: value\r\n" at <p>, returns its end */
static char *put_field(char *p, const char *n, size_t nl, const char *v, size_t vl)
{
	p = fmt_mem(p, n, nl);
	p = fmt_lit(p, ": ");
	p = fmt_mem(p, v, vl);
	return fmt_lit(p, "\r\n");
}

static void stage_field(struct oq *q, const char *n, size_t nl, const char *v,
			size_t vl)
{
	char *s = q->sc + q->sc_used, *p = put_field(s, n, nl, v, vl);

	q->sc_used += (uint32_t)(p - s);
	oq_ref(q, s, (size_t)(p - s));
}

/* status line, framing, the generator's fields, Connection, and the blank
 * line when no padding follows: 1 when the head is whole. WHY in one piece
 * of the scratch, one oq_ref: a call per field was 150 of an HTTP/1
 * request's instructions (bench/cg) */
static int stage_head_main(struct h1c *c)
{
	struct oq *q = &c->oq;
	struct hresp *rs = &c->ex->rs;
	char *p = q->sc + q->sc_used, *s = p;

	if (rs->status == 200 && c->minor) {
		p = fmt_lit(p, "HTTP/1.1 200 OK\r\n");
	} else {
		/* WHY here, not in resp_build: only this line says it */
		struct ist why = resp_reason(rs->status);

		p = c->minor ? fmt_lit(p, "HTTP/1.1 ") : fmt_lit(p, "HTTP/1.0 ");
		p = fmt_u64(p, rs->status);
		*p++ = ' ';
		p = fmt_mem(p, why.ptr, why.len);
		p = fmt_lit(p, "\r\n");
	}
	if (rs->clen >= 0) {
		p = fmt_lit(p, "Content-Length: ");
		p = fmt_u64(p, (uint64_t)rs->clen);
		p = fmt_lit(p, "\r\n");
	}
	if (rs->chunked)
		p = fmt_lit(p, "Transfer-Encoding: chunked\r\n");
	if (!(c->t.nc.flags & H1C_KEEP))
		p = fmt_lit(p, "Connection: close\r\n");
	else if (!c->minor)
		p = fmt_lit(p, "Connection: keep-alive\r\n");
	p = fmt_mem(p, rs->h1, rs->h1_len);
	for (int i = rs->h1_nf; i < rs->nf; i++)
		p = put_field(p, rs->f[i].name, rs->f[i].nlen, rs->f[i].val, rs->f[i].vlen);
	if (!rs->pad)
		p = fmt_lit(p, "\r\n");
	q->sc_used += (uint32_t)(p - s);
	oq_ref(q, s, (size_t)(p - s));
	return !rs->pad;
}

enum h1_out h1_stage_head(struct h1c *c)
{
	struct oq *q = &c->oq;
	struct hfield f;

	if (!(c->t.nc.flags & H1C_HEAD_OUT)) {
		if (oq_sc_room(q) < HEAD_RESERVE || oq_iov_room(q) < 2 + RESP_MAX_FIELDS)
			return H1O_FLUSH;
		c->t.nc.flags |= H1C_HEAD_OUT;
		if (stage_head_main(c))
			return H1O_DONE;
	}
	while (c->ex->rs.pad) {
		if (oq_sc_room(q) < PAD_RUN + 64 || oq_iov_room(q) < 2)
			return H1O_FLUSH;
		resp_pad_next(&c->ex->rs, &f);
		stage_field(q, f.name, f.nlen, f.val, f.vlen);
	}
	if (oq_sc_room(q) < 2 || oq_iov_room(q) < 1)
		return H1O_FLUSH;
	oq_copy(q, "\r\n", 2);
	return H1O_DONE;
}

/* stages the body bytes [off, off + len) the generator handed out */
static void stage_data(struct h1c *c, uint64_t off, uint64_t len)
{
	struct oq *q = &c->oq;
	const struct exch *x = c->ex;
	/* WHY: head and a short body in one iovec: one send, not a gather of
	 * two (IORING_OP_SEND on the ring, a plain writev); bytes of the
	 * request's own buffer (E=1) must be copied before it is reused */
	int copy = ex_copy_needed(x) || (x->rs.body <= COPY_SMALL && !x->rs.chunked);

	while (len) {
		const char *ptr;
		size_t n = ex_slice(x, off, (size_t)len, &ptr);

		if (copy || (n < COPY_BELOW && x->rs.chunked))
			oq_copy(q, ptr, n);
		else
			oq_ref(q, ptr, n);
		off += n;
		len -= n;
	}
}

/* the size of the next chunk: it counts to the body's end, so a fault cut
 * leaves it short (a truncated chunk) */
static uint64_t chunk_size(const struct h1c *c, uint64_t off)
{
	return MIN(ex_frame(c->ex), c->ex->rs.body - off);
}

/* opens the chunk that starts at body offset <off>: "<hex size>\r\n" */
static void chunk_open(struct h1c *c, uint64_t off)
{
	struct oq *q = &c->oq;
	char *p = q->sc + q->sc_used, *s = p;
	uint64_t size = chunk_size(c, off);

	p = fmt_hex(p, size);
	p = fmt_lit(p, "\r\n");
	q->sc_used += (uint32_t)(p - s);
	oq_ref(q, s, (size_t)(p - s));
	c->chunk_left = size;
}

/* the last chunk and the trailers: H1O_DONE, or H1O_FLUSH when there is no room yet */
static enum h1_out chunk_close(struct h1c *c)
{
	struct oq *q = &c->oq;
	size_t nt, need = 8;
	const struct hfield *t = ex_trailers(c->ex, &nt);

	for (size_t i = 0; i < nt; i++)
		need += t[i].nlen + t[i].vlen + 4;
	if (oq_sc_room(q) < need || oq_iov_room(q) < 2 + (int)nt)
		return H1O_FLUSH;
	oq_copy(q, "0\r\n", 3);
	for (size_t i = 0; i < nt; i++)
		stage_field(q, t[i].name, t[i].nlen, t[i].val, t[i].vlen);
	oq_copy(q, "\r\n", 2);
	c->t.nc.flags |= H1C_TRL_OUT;
	return H1O_DONE;
}

/* the most one step may take: one slice of the prebuilt buffers (at most two
 * iovecs), the current chunk, the scratch room for bytes to copy */
static uint64_t step_max(struct h1c *c)
{
	struct oq *q = &c->oq;
	uint64_t max = body_slice_max();

	if (c->ex->rs.chunked)
		max = MIN(max, c->chunk_left ? c->chunk_left : chunk_size(c, c->ex->out_off));
	if (ex_copy_needed(c->ex) || c->ex->rs.body <= COPY_SMALL)
		max = MIN(max, (uint64_t)oq_sc_room(q) - 16);
	return max;
}

/* the body staged as far as the queue takes it (enum h1_out) */
enum h1_out h1_stage_body(struct h1c *c)
{
	struct oq *q = &c->oq;
	struct ex_action a;

	for (;;) {
		if (oq_iov_room(q) < 5 || oq_sc_room(q) < 48 || q->bytes >= STAGE_MAX)
			return H1O_FLUSH;
		enum ex_act act = ex_left(c->ex) ? ex_next(c->ex, step_max(c), &cfg.gen, &a) :
				  ex_end(c->ex);

		switch (act) {
		case EXA_DATA:
			if (c->ex->rs.chunked && !c->chunk_left)
				chunk_open(c, a.off);
			stage_data(c, a.off, a.len);
			if (c->ex->rs.chunked && !(c->chunk_left -= a.len))
				oq_copy(q, "\r\n", 2);
			/* WHY: a whole unchunked body ends here, without another
			 * turn of room checks (most responses are one slice) */
			if (!ex_left(c->ex) && !c->ex->rs.chunked && ex_end(c->ex) == EXA_END)
				return H1O_DONE;
			break;
		case EXA_PAUSE:
			return H1O_PIECE;
		case EXA_END:
			/* the framing ends only with the whole body, never at a fault;
			 * a HEAD response announces chunks but sends none */
			if (c->ex->rs.chunked && !(c->ex->rq.flags & RQ_HEAD) && !(c->t.nc.flags & H1C_TRL_OUT))
				return chunk_close(c);
			return H1O_DONE;
		case EXA_RESET:
		case EXA_CLOSE:
			return H1O_DONE;
		}
	}
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
	if (!cfg.splice || !c->t.w->spl.ok || c->t.nc.x.ssl || c->t.nc.x.rio || (c->t.nc.flags & H1C_NOSPLICE) ||
	    !ex_zero_copy_ok(c->ex) || ex_left(c->ex) < SPL_MIN)
		return 0;
	return (c->sp = spl_get(&c->t.w->spl)) != NULL;
}

/* the pipe is empty: tee the next bytes (0), or say why not (H1O_DONE, H1O_WRITEV) */
static enum h1_out splice_refill(struct h1c *c, int rnd)
{
	long n;

	if (ex_left(c->ex) && !(c->ex->out_off % spl_period(rnd)) &&
	    (n = spl_fill(&c->t.w->spl, c->sp, rnd, ex_left(c->ex))) > 0) {
		ex_skip(c->ex, (uint64_t)n);
		return 0; /* WHY 0: refilled, no outcome yet */
	}
	spl_put(&c->t.w->spl, c->sp);
	c->sp = NULL;
	if (!ex_left(c->ex))
		return H1O_DONE;
	c->t.nc.flags |= H1C_NOSPLICE; /* WHY: a short tee left the pattern mid-line */
	return H1O_WRITEV;
}

enum h1_out h1_splice_body(struct h1c *c)
{
	int rnd = c->ex->rs.src == BODY_RANDOM;
	enum h1_out o;
	long n;
	int r;

	/* the head goes first, held back by MSG_MORE to share a segment */
	if (oq_pending(&c->oq) && (r = h1_flush_queue(c, 1)))
		return r == HX_AGAIN ? H1O_WAIT : H1O_DEAD;
	for (;;) {
		if (!c->sp->len && (o = splice_refill(c, rnd)))
			return o;
		if (!(c->t.nc.flags & H1C_WR_READY))
			return H1O_WAIT;
		n = spl_out(c->sp, c->t.nc.x.fd, ex_left(c->ex) > 0);
		if (n == XPRT_AGAIN) {
			c->t.nc.flags &= ~H1C_WR_READY;
			return H1O_WAIT;
		}
		if (n < 0) {
			c->t.nc.flags |= H1C_DEAD;
			return H1O_DEAD;
		}
		c->t.nc.last_act = c->t.w->loop.now_ms;
		ctr_add(c->t.w->st.bytes_out, (uint64_t)n);
	}
}

void h1_kill(struct h1c *c, int rst, unsigned why)
{
	if (c->t.nc.why == SC_UNSET)
		c->t.nc.why = (uint8_t)why;
	if (rst) {
		struct linger l = { 1, 0 };

		setsockopt(c->t.nc.ev.fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	}
	c->t.nc.flags |= H1C_DEAD;
}

int h1_flush_queue(struct h1c *c, int more)
{
	uint64_t sent;
	int r;

	if (!(c->t.nc.flags & H1C_WR_READY) && oq_pending(&c->oq))
		return HX_AGAIN;
	r = more ? oq_flush_more(&c->oq, &c->t.nc.x, &sent) : oq_flush(&c->oq, &c->t.nc.x, &sent);
	/* WHY a ring send too: --send-timeout counts from when it went out; a
	 * last_act of the last recv would make a response staged after a long
	 * wait look stalled */
	if (sent || (r == HX_AGAIN && c->t.nc.x.rio)) {
		c->t.nc.last_act = c->t.w->loop.now_ms;
		ctr_add(c->t.w->st.bytes_out, sent);
	}
	if (r == HX_AGAIN)
		c->t.nc.flags &= ~H1C_WR_READY;
	else if (r == -1)
		h1_kill(c, 0, SC_PEER);
	return r;
}

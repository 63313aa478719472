/* The response generator: one exchange from the request head to its last byte, the same for every protocol. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "common.h"
#include "gen.h"
#include "grpc.h"
#include "parts.h"
#include "resp.h"
#include "words.h"

/* ---------- the request ---------- */

/* no response yet: nothing handed out, no pause */
static void ex_cursor_init(struct exch *x)
{
	x->out_off = x->out_end = x->piece_left = 0;
	x->paused = 0;
}

/* sse=1 or a gRPC call: the stream planned, sse=1's slots taken (each
 * event is formatted in its own as it goes; a gRPC call's messages take
 * none, grpc_slice() makes them as they are pulled): 0, or the status to
 * answer with its reason in the plan (400, or 500 without memory) */
static int ex_plan_events(struct exch *x, const struct gen_conf *gc, struct rng *r)
{
	struct plan *p = &x->plan;
	uint64_t bytes = 0;
	int grpc = !(p->flags & PF_SSE);
	const char *why;

	x->sse.seed = rng_u64(r); /* WHY first: sse_plan sums the sizes drawn from it */
	why = grpc ? grpc_plan(&x->sse, p, &x->rq, &gc->lim, &bytes) : sse_plan(&x->sse, p, &x->rq, &gc->lim, &bytes);
	if (grpc) /* WHY no slots: grpc_slice() makes the messages as they are pulled */
		bytes = 0;
	if (!why && bytes > x->echo_cap) {
		char *b = realloc(x->echo, (size_t)bytes);

		if (b) {
			x->echo = b;
			x->echo_cap = (uint32_t)bytes;
		} else {
			plan_why(p, "out of memory for sse=1's events");
			return 500;
		}
	}
	x->echo_len = (uint32_t)bytes;
	if (why && plan_why(p, why) < 0)
		return 500;
	return why ? 400 : 0;
}

/* E=2's checks, sse=1's and a gRPC call's plans: <bad> or the status to
 * answer with (400, 500) */
__attribute__((cold, noinline)) static int ex_plan_rare(struct exch *x, const struct gen_conf *gc, struct rng *r, int bad)
{
	struct plan *p = &x->plan;

	if (p->flags & PF_ECHOBODY) {
		x->echo_len = 0;
		/* WHY refused: E=2 answers once the whole body is in, which A=
		 * and B= would cut short */
		if (!bad && (p->flags & (PF_ACKFIRST | PF_BODYMAX))) {
			bad = plan_why(p, "E=2 answers after the whole body: not with A=1 or B=") < 0 ? 500 : 1;
		}
	}
	if ((x->rq.flags & RQ_GRPC) && !bad && !(p->flags & PF_SSE))
		p->flags |= PF_GRPC;
	if ((p->flags & (PF_SSE | PF_GRPC)) && !bad)
		bad = ex_plan_events(x, gc, r);
	return bad;
}

/* the last query this thread planned whose plan drew no random number and
 * took no extension, and that plan. WHY: a benchmark asks for one URL over
 * and over, and reading its query was 262 of an h1 request's 2,450
 * user-space instructions (bench/cg); a plan is a function of the
 * defaults (fixed for the process), the query and the random draws, so a
 * query seen again byte for byte, with no X-Hxterm header beside it, has
 * the same plan */
#define MEMO_QUERY 128
static __thread struct {
	uint32_t qlen; /* 0: none kept */
	char q[MEMO_QUERY];
	struct plan plan;
} memo;

/* WHY words for 4 to 16 bytes, overlapping: a query such as s=100 in two
 * loads a side, where memcmp's call was 26 instructions */
static inline int memo_hit(const char *q, size_t qlen)
{
	if (!qlen || memo.qlen != qlen)
		return 0;
	if (qlen < 4 || qlen > 16)
		return !memcmp(memo.q, q, qlen);
	if (qlen < 8)
		return ld4x2(q, qlen) == ld4x2(memo.q, qlen);
	return ld8(q) == ld8(memo.q) && ld8(q + qlen - 8) == ld8(memo.q + qlen - 8);
}

/* <p>, the plan of <q>, kept when it may be (see memo) */
static void memo_keep(const struct plan *p, const char *q, size_t qlen, const struct rng *before,
		      const struct rng *r)
{
	if (!qlen || qlen > MEMO_QUERY || p->ext || (p->flags & (PF_BAD | PF_ECHOBODY | PF_SSE)) ||
	    memcmp(before, r, sizeof(*r)))
		return;
	memcpy(memo.q, q, qlen);
	memo.qlen = (uint32_t)qlen;
	memo.plan = *p;
}

void ex_plan(struct exch *x, const struct gen_conf *gc, struct rng *r)
{
	struct plan *p = &x->plan;
	const char *q = NULL;
	size_t qlen = 0;
	struct rng before;
	int bad, memo_ok = !x->rq.xhx.len && !(x->rq.flags & RQ_GRPC);

	ex_cursor_init(x);
	if (plan_query_of(x->rq.target.ptr, x->rq.target.len, &q, &qlen) && memo_ok && memo_hit(q, qlen)) {
		if (unlikely(p->ext != NULL))
			plan_init(p); /* WHY: gives the extension back */
		*p = memo.plan;
		return;
	}
	before = *r;
	plan_init(p);
	bad = gc->defaults && plan_apply(p, gc->defaults, gc->defaults_len, r, &gc->lim) < 0;
	if (!bad && x->rq.xhx.len)
		bad = plan_apply(p, x->rq.xhx.ptr, x->rq.xhx.len, r, &gc->lim) < 0;
	if (!bad && q)
		bad = plan_apply(p, q, qlen, r, &gc->lim) < 0;
	/* WHY one test: E=2, events and gRPC calls are rare, and each costs
	 * the others nothing (bench/cg) */
	if (unlikely((p->flags & (PF_ECHOBODY | PF_SSE)) | (x->rq.flags & RQ_GRPC)))
		bad = ex_plan_rare(x, gc, r, bad);
	if (bad) { /* answered 400 with the reason; C=1 still closes after it */
		p->flags = PF_BAD | (p->flags & PF_CLOSE);
		/* WHY 500 without an extension: the reason could not be written */
		p->status = bad == 500 || !p->ext ? 500 : 400;
		/* WHY: at once, not after the wait an earlier item asked for */
		p->wait_ms = p->pause_ms = 0;
	} else if (memo_ok && q) {
		memo_keep(p, q, qlen, &before, r);
	}
}

void ex_refuse(struct exch *x, uint16_t status, const char *why)
{
	ex_cursor_init(x);
	plan_init(&x->plan);
	x->plan.flags = PF_BAD;
	/* WHY 500: without memory for the reason, plan_err says so */
	x->plan.status = plan_why(&x->plan, why) < 0 ? 500 : status;
}

void ex_ws(struct exch *x, int handshake)
{
	struct plan *p = &x->plan;

	if (ex_refused(x))
		p->ws = WS_NONE;
	else if (handshake && !p->ws)
		p->ws = WS_ECHO;
	else if (p->ws && !handshake)
		ex_refuse(x, 400, "ws= needs a WebSocket handshake (Upgrade: websocket, Connection: Upgrade, "
			  "Sec-WebSocket-Key, Sec-WebSocket-Version: 13) or HTTP/2's extended CONNECT");
}

void ex_tunnel(struct exch *x)
{
	struct plan *p = &x->plan;

	p->size = 0;
	p->flags = (p->flags & ~(PF_CHUNK | PF_LIE | PF_RESET | PF_TRUNC | PF_PIECE)) | PF_NOLEN | PF_ACKFIRST;
	p->wait_ms = 0;
}

/* sse=1 or a gRPC call across an h2c Upgrade: the stream's place (a
 * call's message head) and sse=1's slots copied for <dst> */
static void ex_adopt_events(struct exch *dst, const struct exch *src)
{
	dst->sse = src->sse;
	if (!src->echo_len)
		return;
	if (!(dst->echo = malloc(src->echo_len))) {
		ex_refuse(dst, 500, "out of memory for the stream's events or messages");
		return;
	}
	memcpy(dst->echo, src->echo, src->echo_len);
	dst->echo_len = dst->echo_cap = src->echo_len;
}

/* a string of the old request, moved with its text to <echo> (an absent
 * one, ptr NULL, stays absent) */
static struct ist rebase(struct ist v, const struct hreq *from, const char *echo)
{
	if (!v.ptr)
		return v;
	return (struct ist){ echo + (v.ptr - from->echo.ptr), v.len };
}

/* the conditional fields of <src>, moved with its text to <echo> */
static void rebase_cond(struct hcond *dst, const struct hreq *src, const char *echo)
{
	dst->inm = rebase(src->c.inm, src, echo);
	dst->im = rebase(src->c.im, src, echo);
	dst->ims = rebase(src->c.ims, src, echo);
	dst->ius = rebase(src->c.ius, src, echo);
	dst->range = rebase(src->c.range, src, echo);
	dst->if_range = rebase(src->c.if_range, src, echo);
}

void ex_adopt(struct exch *dst, const struct exch *src, const char *echo)
{
	dst->rq = src->rq;
	dst->rq.target = rebase(src->rq.target, &src->rq, echo);
	dst->rq.xhx = rebase(src->rq.xhx, &src->rq, echo);
	if (src->rq.flags & RQ_COND)
		rebase_cond(&dst->rq.c, &src->rq, echo);
	dst->rq.echo = (struct ist){ echo, src->rq.echo.len };
	if (plan_copy(&dst->plan, &src->plan) < 0) {
		ex_refuse(dst, 500, "out of memory for the plan's fields");
		return;
	}
	ex_cursor_init(dst);
	if (unlikely(src->plan.flags & (PF_SSE | PF_GRPC)))
		ex_adopt_events(dst, src);
}

/* ---------- the response ---------- */

/* several ranges: their heads formatted (the parts' bytes are sliced from
 * the pattern as they are pulled); without memory the answer is cut
 * (reset) after its head */
__attribute__((cold, noinline)) static void ex_multipart(struct exch *x)
{
	struct hresp *rs = &x->rs;
	char *b = sizeof(struct parts) > x->echo_cap ? realloc(x->echo, sizeof(struct parts)) : x->echo;

	if (!rs->body) /* HEAD */
		return;
	if (!b) {
		x->plan.flags |= PF_RESET;
		x->plan.fault_at = 0;
		x->out_end = 0;
		return;
	}
	x->echo = b;
	x->echo_cap = MAX(x->echo_cap, (uint32_t)sizeof(struct parts));
	x->echo_len = (uint32_t)sizeof(struct parts);
	parts_make((struct parts *)(void *)b, rs->spans, rs->nspans, rs->full, rs->multi_random);
}

/* sse=1's first event, at once or ttft= after the head (a pause first) */
static void ex_first_event(struct exch *x)
{
	if (x->plan.ttft_ms) {
		x->piece_left = 0;
		x->drip_ms = x->plan.ttft_ms;
		return;
	}
	x->drip_ms = sse_event(&x->sse, &x->plan, x->echo, x->echo_len);
	x->piece_left = x->sse.cur;
}

/* ttft= on a body that is no event stream: the head goes (at <now_ns>,
 * monotonic), then a pause that long before the first byte, then the body
 * (p=/d= pieces after) */
__attribute__((cold, noinline)) static void ex_first_byte_later(struct exch *x, int64_t now_ns)
{
	struct plan *p = &x->plan;

	if ((p->flags & PF_SSE) || !x->out_end)
		return;
	if (!(p->flags & PF_PIECE))
		p->piece = UINT64_MAX;
	p->flags |= PF_PIECE;
	x->piece_left = 0;
	x->paused = 1;
	x->pause_until = (uint64_t)now_ns / 1000 + p->ttft_ms * 1000;
}

/* a made body's start, once the head is built: several ranges' heads, an
 * event stream's first event (a gRPC call's messages need none) */
__attribute__((cold, noinline)) static void ex_respond_text(struct exch *x)
{
	if (x->rs.src == BODY_MULTI)
		ex_multipart(x);
	else if ((x->plan.flags & PF_SSE) && x->rs.body)
		ex_first_event(x);
}

size_t ex_slice_made(const struct exch *x, uint64_t off, size_t want, const char **ptr)
{
	const struct hresp *rs = &x->rs;

	switch (rs->src) {
	case BODY_MULTI: /* WHY the test: none made for HEAD, nor without memory (cut at 0) */
		if (!x->echo || x->echo_len < sizeof(struct parts))
			return 0;
		return parts_slice((const struct parts *)(const void *)x->echo, off, want, ptr);
	case BODY_GRPC:
		return grpc_slice(&x->sse, off, want, ptr);
	default:
		*ptr = rs->text.ptr + off;
		return want;
	}
}

void ex_respond(struct exch *x, const struct gen_conf *gc, int64_t now_ns)
{
	const struct plan *p = &x->plan;

	if (unlikely(p->flags & (PF_ECHOBODY | PF_SSE)))
		x->rs.text = (struct ist){ x->echo, x->echo_len };
	resp_build(&x->rs, &x->rq, p, gc->id, now_ns);
	x->out_off = 0;
	x->out_end = x->rs.body;
	if ((p->flags & (PF_RESET | PF_TRUNC)) && p->fault_at < x->out_end)
		x->out_end = p->fault_at;
	x->piece_left = p->piece;
	x->paused = 0;
	/* WHY one test: several ranges, a gRPC call and an event stream are
	 * bodies made as they go, rare; a plain body costs one compare (bench/cg) */
	if (unlikely(x->rs.src >= BODY_TEXT))
		ex_respond_text(x);
	if (unlikely(p->flags & PF_TTFT))
		ex_first_byte_later(x, now_ns);
}

void ex_resume(struct exch *x)
{
	x->paused = 0;
	x->piece_left = x->plan.piece;
	if (unlikely(x->plan.flags & PF_SSE)) {
		x->drip_ms = sse_event(&x->sse, &x->plan, x->echo, x->echo_len);
		x->piece_left = x->sse.cur; /* WHY: sizes drawn per event */
	}
}

void ex_skip(struct exch *x, uint64_t n)
{
	x->out_off += MIN(n, ex_left(x));
}

int ex_zero_copy_ok(const struct exch *x)
{
	return !(x->plan.flags & (PF_NOSPLICE | PF_PIECE)) && !x->rs.chunked &&
	       x->rs.src < BODY_TEXT && !x->rs.from;
}

int ex_has_body(const struct exch *x)
{
	return x->rs.body || (x->plan.ntrl && !(x->rq.flags & RQ_HEAD)) ||
	       (x->plan.flags & (PF_RESET | PF_TRUNC));
}

const struct hfield *ex_trailers(const struct exch *x, size_t *n)
{
	*n = (x->rq.flags & RQ_HEAD) || !x->plan.ext ? 0 : x->plan.ntrl;
	return x->plan.ext ? x->plan.ext->trl : NULL;
}

int ex_body_in(struct exch *x, const char *p, size_t n)
{
	if (!n || !(x->plan.flags & PF_ECHOBODY))
		return 0;
	if ((uint64_t)x->echo_len + n > EX_ECHO_MAX) {
		ex_refuse(x, 413, "E=2 echoes a request body of at most 16 MiB");
		return -1;
	}
	if (x->echo_len + n > x->echo_cap) {
		uint32_t cap = (uint32_t)MIN((uint64_t)EX_ECHO_MAX, MAX((uint64_t)x->echo_cap * 2, x->echo_len + n));
		char *b = realloc(x->echo, MAX(cap, 4096u));

		if (!b) {
			ex_refuse(x, 500, "out of memory for E=2's copy of the body");
			return -1;
		}
		x->echo = b;
		x->echo_cap = MAX(cap, 4096u);
	}
	memcpy(x->echo + x->echo_len, p, n);
	x->echo_len += (uint32_t)n;
	return 0;
}

void ex_free_echo(struct exch *x)
{
	free(x->echo);
	x->echo = NULL;
	x->echo_len = x->echo_cap = 0;
}

/* The response generator: one exchange from the request head to its last byte, the same for every protocol. */
#ifndef HX_GEN_H
#define HX_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "body.h"
#include "msg-t.h"
#include "plan.h"
#include "rng.h"
#include "sse.h"

/* What the generator needs of the server's settings, and its clock, so that
 * a test can give its own. */
struct gen_conf {
	uint64_t (*clock_us)(void);  /* monotonic, us, rounded up: waits */
	const char *defaults;        /* --defaults, validated at start, or NULL */
	size_t defaults_len;
	struct plan_limits lim;      /* --max-size, --max-wait */
	struct ist id;               /* X-rsp id= */
};

/* One exchange. An adapter fills <rq> (its strings stay valid until the
 * head is built), calls ex_plan(), asks the request-side questions below,
 * calls ex_respond() when the head goes to the transport, then ex_next()
 * until it says EXA_END, EXA_RESET or EXA_CLOSE. */
struct exch {
	uint64_t out_off;            /* body bytes handed to the adapter so far */
	uint64_t out_end;            /* where they stop: the body's end or a fault */
	uint64_t piece_left;         /* bytes left in the current piece (p=) */
	uint64_t pause_until;        /* us: end of the pause after a piece */
	int paused;                  /* a piece ended, the next one waits */
	uint64_t drip_ms;            /* sse=1: the pause after this event (d=, drawn for each) */
	char *echo;                  /* E=2: the request body, kept; sse=1: the events; several
				      * ranges: their heads (struct parts) (ex_done frees it) */
	uint32_t echo_len, echo_cap;
	struct ex_sse sse;           /* sse=1: the stream's place */
	struct hreq rq;
	struct plan plan;
	struct hresp rs;
};

/* ---------- the request ---------- */

/* --defaults, then X-Hxterm (rq.xhx), then the query of rq.target: each
 * item applied once, random forms drawn from <r>. A bad item makes the plan
 * answer 400 with a one-line reason naming it. */
void ex_plan(struct exch *x, const struct gen_conf *gc, struct rng *r);
/* A request the adapter could not take in whole (header list too large,
 * out of memory): answered <status> with the one-line <why>. */
void ex_refuse(struct exch *x, uint16_t status, const char *why);
/* The exchange <src> continued elsewhere (an h2c Upgrade): <dst> takes its
 * plan without drawing again, and its request whose text (rq.echo) now
 * lives at <echo>. */
void ex_adopt(struct exch *dst, const struct exch *src, const char *echo);

/* The WebSocket decision, once the plan is drawn: <handshake> says the
 * request asked for one (an Upgrade, or HTTP/2's extended CONNECT). One
 * without ws= echoes; ws= without one is a 400; an error or the help page
 * carries none. */
void ex_ws(struct exch *x, int handshake);
/* The exchange becomes a tunnel (an extended CONNECT's WebSocket, RFC 8441
 * 5): its 200 goes at once, without a length, after no wait, and no body
 * size, piece or fault of the plan applies to it. */
void ex_tunnel(struct exch *x);

/* Whether the answer is hxterm's own (a refusal, an error or the help
 * page) rather than the plan's. */
static inline int ex_refused(const struct exch *x)
{
	return !!(x->plan.flags & (PF_BAD | PF_HELP));
}

/* Whether the body's bytes are random (R=1) rather than the pattern. */
static inline int ex_random(const struct exch *x)
{
	return !!(x->plan.flags & PF_RANDOM);
}

/* E=2 echoes a request body of at most this many bytes (413 beyond) */
#define EX_ECHO_MAX (16u << 20)

/* Whether the adapter hands the request body to ex_body_in() (E=2). */
static inline int ex_wants_body(const struct exch *x)
{
	return !!(x->plan.flags & PF_ECHOBODY);
}
/* E=2: <n> more request-body bytes at <p>, kept to be sent back: 0, or -1
 * when they do not fit (EX_ECHO_MAX, memory): the answer is then a 413 or
 * a 500 with its reason, at once (ex_answer_early), the rest drained */
int ex_body_in(struct exch *x, const char *p, size_t n);
void ex_free_echo(struct exch *x);
/* The exchange's memory given back (its E=2 copy), before the struct is
 * pooled or freed; it may be planned again after. WHY inline: asked at
 * each exchange's end, and most have none */
static inline void ex_done(struct exch *x)
{
	if (unlikely(x->echo != NULL))
		ex_free_echo(x);
	plan_done(&x->plan);
}
/* A struct just taken from malloc or a free list: no memory of its own yet
 * (one from a list went through ex_done; a pool's come zeroed) */
static inline void ex_new(struct exch *x)
{
	x->plan.ext = NULL;
	x->echo = NULL;
	x->echo_len = x->echo_cap = 0;
}

/* Whether the request's head goes back to the client (E=1). */
static inline int ex_echo(const struct exch *x)
{
	return !!(x->plan.flags & PF_ECHO);
}

/* The fault the plan asks after fault_at bytes (x= or X=): a stream of
 * messages (a WebSocket's) is reset or cut there. */
enum ex_fault { EXF_NONE, EXF_RESET, EXF_CUT };
static inline enum ex_fault ex_fault(const struct exch *x)
{
	return x->plan.flags & PF_RESET ? EXF_RESET : x->plan.flags & PF_TRUNC ? EXF_CUT : EXF_NONE;
}

/* WHY inline: these small questions are asked of every request; as calls
 * they cost h1 5 % more instructions per request than the flag tests they
 * replaced (bench/cg) */

/* Whether to answer before the request body is read to its end (A=1, B=,
 * or a request answered 400), <body_read> bytes of it being in. */
static inline int ex_answer_early(const struct exch *x, uint64_t body_read)
{
	return (x->plan.flags & (PF_ACKFIRST | PF_BAD)) ||
	       ((x->plan.flags & PF_BODYMAX) && body_read >= x->plan.body_max);
}

/* the most request-body bytes to read before answering (B=) */
static inline uint64_t ex_body_cap(const struct exch *x)
{
	return (x->plan.flags & PF_BODYMAX) ? x->plan.body_max : UINT64_MAX;
}

/* When the answer may start (t=), in us on the configuration's clock: 0
 * when at once (and the clock is not read). */
static inline uint64_t ex_wait_until(const struct exch *x, const struct gen_conf *gc)
{
	return x->plan.wait_ms ? gc->clock_us() + x->plan.wait_ms * 1000 : 0;
}

/* ---------- the connection around it (HTTP/1) ---------- */

/* keep-alive after this response: K=1 keeps, C=1 closes, else <dflt> */
static inline int ex_keep(const struct exch *x, int dflt)
{
	if (x->plan.flags & PF_CLOSE)
		return 0;
	return (x->plan.flags & PF_KEEP) ? 1 : dflt;
}

/* the connection's idle timeout from now on (w=), else <dflt> */
static inline uint64_t ex_idle_ms(const struct exch *x, uint64_t dflt)
{
	return (x->plan.flags & PF_IDLE) ? x->plan.idle_ms : dflt;
}

/* the connection's request limit from now on (maxreq=), else <cur>
 * (--conn-requests, or an earlier request's; 0: none) */
static inline uint32_t ex_max_req(const struct exch *x, uint32_t cur)
{
	if (likely(!(x->plan.flags & PF_CONN)) || !(x->plan.ext->conn.set & PC_MAXREQ))
		return cur;
	return x->plan.ext->conn.maxreq;
}

/* one test for the rare keys of a connection: maxreq=, h2s=, h2w=, ping=, hint= */
static inline int ex_conn_keys(const struct exch *x)
{
	return unlikely(x->plan.flags & (PF_CONN | PF_HINT));
}

/* the connection keys an answer asked for (h2s=, h2w=, ping=), or NULL */
static inline const struct plan_conn *ex_conn_changes(const struct exch *x)
{
	return (x->plan.flags & PF_CONN) ? &x->plan.ext->conn : NULL;
}

/* hint=: the Link of a 103 Early Hints, taken once (NULL: none, or taken) */
static inline const struct hfield *ex_hint_take(struct exch *x)
{
	if (!(x->plan.flags & PF_HINT))
		return NULL;
	x->plan.flags &= ~PF_HINT;
	return &x->plan.ext->hint;
}

/* the pause before the next request is read (P=), ms */
static inline uint64_t ex_pause_ms(const struct exch *x)
{
	return x->plan.pause_ms;
}

/* ---------- the response ---------- */

/* Builds the head (status, fields, framing) and sets the body cursor.
 * <now_ns> is when the head goes to the transport (monotonic): X-rsp's real
 * time. WHY a parameter, not gc's clock: an inline clock read here saves
 * 20 instructions per request against a call through the pointer. */
void ex_respond(struct exch *x, const struct gen_conf *gc, int64_t now_ns);

/* what the adapter does next */
enum ex_act {
	EXA_DATA,   /* send body bytes [off, off + len); ex_slice() has them */
	EXA_PAUSE,  /* a piece ended (p=): flush, wait until until_us (d=), then
		     * ex_resume(); asked again before that, it says PAUSE again */
	EXA_RESET,  /* fault x=: reset the stream, or the connection on HTTP/1 */
	EXA_CLOSE,  /* fault X=: close the connection, the body cut short */
	EXA_END,    /* the body is whole: trailers (ex_trailers), then the end */
};

struct ex_action {
	enum ex_act act;
	uint64_t off, len;           /* EXA_DATA */
	uint64_t until_us;           /* EXA_PAUSE */
};

/* the pause is over: the next piece may go */
void ex_resume(struct exch *x);

/* whether the bytes of ex_slice() must be copied before the next request is
 * read or the stream goes: they live in the request's buffer (E=1) or in
 * the exchange (a text, multipart heads, a gRPC message's head) */
static inline int ex_copy_needed(const struct exch *x)
{
	return x->rs.src >= BODY_TEXT;
}

/* The adapter sent <n> body bytes by itself (zero-copy), n <= ex_left(). */
void ex_skip(struct exch *x, uint64_t n);

/* body bytes still to hand out */
static inline uint64_t ex_left(const struct exch *x)
{
	return x->out_end - x->out_off;
}

/* Once the body is handed out (ex_left() == 0): EXA_END, or the fault
 * that cut it, EXA_RESET or EXA_CLOSE; what ex_next() says then. */
static inline enum ex_act ex_end(const struct exch *x)
{
	if (x->out_end == x->rs.body)
		return EXA_END;
	return (x->plan.flags & PF_RESET) ? EXA_RESET : EXA_CLOSE;
}

/* The next action, DATA of at most <max> bytes. A pause is timed from
 * <gc>'s clock when it begins. Returns a->act. A pause, a fault and the end repeat until acted
 * upon, so an adapter may stop at any action and ask again later. WHY
 * inline, with ex_slice(): each response of a keep-alive h1 benchmark runs
 * them; as calls they cost 2.6 % more instructions per request (bench/cg). */
static inline enum ex_act ex_next(struct exch *x, uint64_t max, const struct gen_conf *gc, struct ex_action *a)
{
	const struct plan *p = &x->plan;
	uint64_t n;

	if (x->out_off == x->out_end)
		return a->act = ex_end(x);
	if ((p->flags & PF_PIECE) && !x->piece_left) {
		/* WHY the true clock, not the loop's: that one was read when
		 * the turn began, and a busy turn made every d= pause shorter than
		 * asked (9 pauses of 10 ms took 89 ms under ASan) */
		if (!x->paused) { /* WHY the exchange's for events: drawn for each */
			uint64_t ms = (p->flags & PF_SSE) ? x->drip_ms : p->drip_ms;

			/* WHY 0 without d=: the piece goes alone and the next at
			 * once; a clock read here set a timer per piece (16-byte
			 * pieces of 16k took 137 ms, not 46, the server idle) */
			x->pause_until = ms ? gc->clock_us() + ms * 1000 : 0;
		}
		x->paused = 1;
		a->until_us = x->pause_until;
		return a->act = EXA_PAUSE;
	}
	n = MIN(max, x->out_end - x->out_off);
	if (p->flags & PF_PIECE) {
		n = MIN(n, x->piece_left);
		x->piece_left -= n;
	}
	a->off = x->out_off;
	a->len = n;
	x->out_off += n;
	return a->act = EXA_DATA;
}

/* The body bytes at <off>: points <*ptr> at them and returns how many
 * follow contiguously, at most <want>. Bodies the generator makes (a text,
 * several ranges, a gRPC call) are ex_slice_made()'s: multipart and gRPC
 * bytes are made there as they are asked for, so an unread answer holds
 * none of them. */
size_t ex_slice_made(const struct exch *x, uint64_t off, size_t want, const char **ptr);
static inline size_t ex_slice(const struct exch *x, uint64_t off, size_t want, const char **ptr)
{
	if (unlikely(x->rs.src >= BODY_TEXT))
		return ex_slice_made(x, off, want, ptr);
	return body_slice(x->rs.from + off, want, x->rs.src == BODY_RANDOM, ptr);
}

/* DATA frame or chunk size (k=), 0 when the protocol chooses */
static inline uint64_t ex_frame(const struct exch *x)
{
	if (!(x->plan.flags & PF_CHUNK))
		return 0;
	return unlikely(x->plan.chunk == SSE_CHUNK_EVENT) ? x->sse.cur : x->plan.chunk; /* sse=1: an event a chunk */
}

/* whether the rest of the body may be sent zero-copy (no S=0, no pieces,
 * no chunks, not a text body) */
int ex_zero_copy_ok(const struct exch *x);
/* whether the stream needs a body reader: a body, trailers or a fault */
int ex_has_body(const struct exch *x);
/* the trailers (T=), none for a response without a body */
const struct hfield *ex_trailers(const struct exch *x, size_t *n);

#endif

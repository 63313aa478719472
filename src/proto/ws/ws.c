/* The WebSocket target: ws=echo sends each message back, ws=gen sends n messages of the body pattern (sizes and intervals drawn per message) then closes with 1000; x=/X= cut the message stream. Framing is wslay's. */
#include <malloc.h>
#include <string.h>
#include <wslay/wslay.h>

#include "body.h"
#include "config.h"
#include "num.h"
#include "plan.h"
#include "ws.h"

#define WS_MAX_MSG (16u << 20) /* the largest message echoed (1009 beyond) */
#define WS_OUT_MAX (1u << 20)  /* what queued answers hold past which nothing more is read */
/* WHY: what wslay holds for a queued message besides its payload (the
 * message, its queue cell, the copy's malloc header): a flood of empty
 * pings queues no payload at all */
#define WS_MSG_COST 128u

/* what the answers waiting in wslay's queues hold: echoes, pongs and
 * close frames (its control queue is counted with the rest) */
static size_t ws_waiting(const struct ws *s)
{
	return wslay_event_get_queued_msg_length(s->ctx) + wslay_event_get_queued_msg_count(s->ctx) * WS_MSG_COST;
}

/* over the bound: remembered, for ws_free() */
static int ws_over(struct ws *s)
{
	if (ws_waiting(s) <= WS_OUT_MAX)
		return 0;
	s->was_over = 1;
	return 1;
}

/* ---------- wslay's callbacks ---------- */

static ssize_t recv_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *u)
{
	struct ws *s = u;
	long n;

	(void)flags;
	/* WHY here and not only before wslay_event_recv(): one call reads
	 * until the transport has nothing, and a client that keeps it fed
	 * (writes of 100 pings) had all its 50 MB read in one call, a pong
	 * queued for each */
	if (ws_over(s)) {
		s->held = 1;
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	n = s->io->recv(s->u, buf, len);
	if (n > 0)
		return n;
	if (n == 0)
		s->eof = 1;
	s->rblocked = 1;
	wslay_event_set_error(ctx, n == HX_AGAIN ? WSLAY_ERR_WOULDBLOCK : WSLAY_ERR_CALLBACK_FAILURE);
	return -1;
}

static ssize_t send_cb(wslay_event_context_ptr ctx, const uint8_t *data, size_t len, int flags, void *u)
{
	struct ws *s = u;
	long n = s->io->send(s->u, data, len);

	(void)flags;
	if (n > 0)
		return n;
	if (n == 0 || n == HX_AGAIN) {
		s->blocked = 1;
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
	} else {
		wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
	}
	return -1;
}

/* payload bytes handed out: the fault point stops them */
static size_t fault_cap(struct ws *s, size_t n)
{
	if (s->fault && s->sent + n >= s->fault_at) {
		n = (size_t)(s->fault_at - s->sent);
		s->fault_hit = 1;
	}
	return n;
}

/* ws=echo: each message back as it came */
static void msg_cb(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *a, void *u)
{
	struct ws *s = u;
	struct wslay_event_msg m = { a->opcode, a->msg, a->msg_length };

	/* WHY: wslay answers a 1-byte close payload with an empty close;
	 * RFC 6455 5.5.1 makes it a protocol error, answered 1002 */
	if (a->opcode == WSLAY_CONNECTION_CLOSE && a->msg_length == 1)
		s->bad_close = 1;
	if (a->opcode != WSLAY_TEXT_FRAME && a->opcode != WSLAY_BINARY_FRAME)
		return; /* WHY: wslay answers pings and close frames itself */
	s->msgs_in++;
	if (s->mode != WS_ECHO || s->fault_hit)
		return;
	m.msg_length = fault_cap(s, m.msg_length);
	if (s->fault_hit && !m.msg_length)
		return;
	if (wslay_event_queue_msg(ctx, &m) == 0) {
		s->sent += m.msg_length;
		s->msgs_out++;
	}
}

/* ws=gen: the pattern (or random bytes) of the current message */
static ssize_t gen_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, const union wslay_event_msg_source *src,
		      int *eof, void *u)
{
	struct ws *s = u;
	size_t n = (size_t)MIN((uint64_t)len, s->msg_len - s->msg_off), done = 0;

	(void)ctx, (void)src;
	n = fault_cap(s, n);
	while (done < n) {
		const char *p;
		size_t k = body_slice(s->msg_off + done, n - done, s->random, &p);

		memcpy(buf + done, p, k);
		done += k;
	}
	s->msg_off += n;
	s->sent += n;
	if (s->msg_off == s->msg_len) {
		*eof = 1;
		s->in_msg = 0;
		s->msgs_out++;
	}
	return (ssize_t)n;
}

static const struct wslay_event_callbacks cbs = {
	.recv_callback = recv_cb,
	.send_callback = send_cb,
	.on_msg_recv_callback = msg_cb,
};

/* ---------- the session ---------- */

int ws_init(struct ws *s, const struct exch *x, const struct ws_io *io, void *u, struct rng *r)
{
	const struct plan *p = &x->plan;

	memset(s, 0, sizeof(*s));
	s->io = io;
	s->u = u;
	s->rng = r;
	s->mode = p->ws == WS_GEN ? WS_GEN : WS_ECHO;
	s->random = ex_random(x);
	s->fault = ex_fault(x);
	s->fault_at = p->fault_at;
	s->count = p->count;
	s->size = p->size;
	s->drip_ms = p->drip_ms;
	memcpy(s->spec_s, plan_spec_s(p), strlen(plan_spec_s(p)) + 1);
	memcpy(s->spec_d, plan_spec_d(p), strlen(plan_spec_d(p)) + 1);
	if (wslay_event_context_server_init((wslay_event_context_ptr *)&s->ctx, &cbs, s))
		return -1;
	wslay_event_config_set_max_recv_msg_length(s->ctx, WS_MAX_MSG);
	return 0;
}

void ws_free(struct ws *s)
{
	if (s->ctx)
		wslay_event_context_free(s->ctx);
	s->ctx = NULL;
	/* WHY: the answers a flood queued are thousands of small blocks, and
	 * the arena keeps them (main.c's trim threshold) once freed: 80 MB
	 * stayed after a client left. Only after a session that went over
	 * WS_OUT_MAX, each such costs its peer a megabyte sent first */
	if (s->was_over)
		malloc_trim(0);
}

/* a number of the plan drawn again: its spec when written, else <dflt> */
static uint64_t redraw(struct ws *s, const char *spec, uint64_t dflt)
{
	uint64_t v;
	const char *err;

	if (!*spec || num_draw(spec, strlen(spec), s->rng, &v, &err) < 0)
		return dflt;
	return v;
}

/* the next ws=gen message, or the close frame after the last */
static int gen_next(struct ws *s)
{
	struct wslay_event_fragmented_msg m = { s->random ? WSLAY_BINARY_FRAME : WSLAY_TEXT_FRAME, { .data = NULL },
						 gen_cb };

	if (s->queued == s->count) {
		s->close_queued = 1;
		return wslay_event_queue_close(s->ctx, 1000, NULL, 0);
	}
	s->msg_len = redraw(s, s->spec_s, s->size);
	if (s->msg_len > cfg.max_size) {
		s->close_queued = 1;
		return wslay_event_queue_close(s->ctx, 1011, (const uint8_t *)"s= above --max-size", 19);
	}
	s->msg_off = 0;
	s->in_msg = 1;
	s->queued++;
	/* WHY from the start of this one: d= is the interval between messages */
	s->next_us = s->now_us + redraw(s, s->spec_d, s->drip_ms) * 1000;
	return wslay_event_queue_fragmented_msg(s->ctx, &m);
}

/* what may be queued now: 1 queued something */
static int gen_due(struct ws *s)
{
	if (s->mode != WS_GEN || s->in_msg || s->close_queued || s->fault_hit)
		return 0;
	if (s->queued && s->now_us < s->next_us) {
		s->io->wake_at(s->u, s->next_us);
		return 0;
	}
	return gen_next(s) == 0;
}

void ws_going_away(struct ws *s)
{
	if (!s->close_queued && !s->in_msg) {
		s->close_queued = 1;
		wslay_event_queue_close(s->ctx, 1001, NULL, 0);
	}
	s->count = s->queued; /* WHY: a message being sent is finished first */
}

/* reads what came: -1 when the session failed or ended */
static int ws_read(struct ws *s)
{
	s->rblocked = 0;
	/* WHY a loop: wslay stops at a short read (a TLS record's end) with
	 * more bytes there; until the transport says it has none */
	for (int turn = 0; turn < 64 && !s->rblocked && !s->held && wslay_event_want_read(s->ctx); turn++)
		if (wslay_event_recv(s->ctx) != 0)
			return -1;
	return 0;
}

/* sends what is due: 1 done for now, 0 go on, or a final state (> 1) */
static int ws_write(struct ws *s, enum ws_state *st)
{
	int turn;

	for (turn = 0; turn < 64; turn++) {
		int queued = gen_due(s);

		s->blocked = 0;
		if (wslay_event_send(s->ctx) != 0)
			return *st = WS_FAILED, 2;
		/* WHY not blocked: the bytes before the fault point are out */
		if (s->fault_hit && !s->blocked)
			return *st = s->fault == EXF_RESET ? WS_RESET : WS_CUT, 2;
		/* WHY want_write: wslay returns after a partial write */
		if (s->blocked || (!queued && !wslay_event_want_write(s->ctx)))
			break;
	}
	if (turn == 64)
		s->io->wake_at(s->u, s->now_us); /* WHY: more is due, the loop runs the others first */
	return 1;
}

/* a close frame with 1002 (protocol error), written as is: wslay's own
 * answer, an empty close, never goes */
static enum ws_state ws_protocol_error(struct ws *s)
{
	static const uint8_t close1002[] = { 0x88, 0x02, 0x03, 0xea };

	s->io->send(s->u, close1002, sizeof(close1002));
	return WS_FAILED;
}

/* WHY not while our output waits: a peer that sends and never reads (a
 * ping flood, echoes it does not take) would have us queue an answer per
 * message without bound; its bytes wait in the transport (TCP's window,
 * the stream's) until ours leave. And not past WS_OUT_MAX queued whatever
 * the transport says: one that kept taking our bytes (a loopback send
 * buffer autotuned large, a slow sanitized build) let 49 MB of pongs queue */
static int ws_may_read(struct ws *s)
{
	return !(s->blocked && wslay_event_want_write(s->ctx)) && !ws_over(s);
}

enum ws_state ws_run(struct ws *s, uint64_t now_us)
{
	enum ws_state st;

	s->now_us = now_us;
	for (int pass = 0; pass < 2; pass++) {
		s->held = !ws_may_read(s);
		if (!s->held) {
			if (ws_read(s) < 0)
				return s->eof && wslay_event_get_close_sent(s->ctx) ? WS_DONE : WS_FAILED;
			if (s->bad_close)
				return ws_protocol_error(s);
		}
		if (ws_write(s, &st) > 1)
			return st;
		/* WHY a second pass: the bytes left unread may have no event to
		 * come for them now that the output moved */
		if (!s->held || s->blocked)
			break;
	}
	/* WHY: still held with the output moving, the unread bytes would wait
	 * for an event that never comes (no new byte, no full buffer) */
	if (s->held && !s->blocked)
		s->io->wake_at(s->u, now_us);
	if (wslay_event_get_close_sent(s->ctx) && wslay_event_get_close_received(s->ctx) &&
	    !wslay_event_want_write(s->ctx))
		return WS_DONE;
	return s->eof ? WS_FAILED : WS_GOING;
}

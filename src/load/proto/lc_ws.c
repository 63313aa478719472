/* hxload's WebSocket client (ws://, wss://): the HTTP/1.1 Upgrade, then each message an exchange: echo (a message of --body bytes of the pattern, its echo timed and checked) or ws=gen (each message the server sends, timed from the one before, checked); framing by wslay. */
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wslay/wslay.h>

#include "body.h"
#include "common.h"
#include "h1_parse.h"
#include "lc_conn.h"
#include "lc_fate.h"
#include "lc_record.h"
#include "wskey.h"

#define WS_DEFAULT_MSG 64 /* echo: a message's bytes without --body */

struct wsl {
	wslay_event_context_ptr ctx;
	struct lc_conn *c;
	int up;                      /* the 101 came and its accept key matched */
	int gen;                     /* the path asks ws=gen: the server sends */
	int failed;                  /* a callback saw the connection lost */
	uint32_t pre_off;            /* bytes of c->in after the 101, for wslay */
	char accept[29];
	uint8_t *msg;                /* echo: the message sent, the pattern */
	size_t msg_len;
};

static struct wsl *wsl_of(struct lc_conn *c)
{
	return c->proto_state;
}

/* ---------- wslay's callbacks ---------- */

static ssize_t recv_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *u)
{
	struct wsl *w = u;
	struct lc_conn *c = w->c;
	int drained = 0;
	long n;

	(void)flags;
	if (w->pre_off < c->in_len) {
		n = (long)MIN(len, (size_t)(c->in_len - w->pre_off));
		memcpy(buf, c->in + w->pre_off, (size_t)n);
		w->pre_off += (uint32_t)n;
		return n;
	}
	if (!(c->nc.flags & NC_RD_READY)) {
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	n = xprt_recv(&c->nc.x, buf, len, &drained);
	if (drained && !(c->nc.flags & NC_RDHUP))
		c->nc.flags &= ~NC_RD_READY;
	if (n > 0) {
		return n;
	}
	if (n == XPRT_AGAIN) {
		c->nc.flags &= ~NC_RD_READY;
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	w->failed = 1;
	wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
	return -1;
}

static ssize_t send_cb(wslay_event_context_ptr ctx, const uint8_t *data, size_t len, int flags, void *u)
{
	struct wsl *w = u;
	struct iovec iov = { (void *)data, len };
	long n;

	(void)flags;
	if (!(w->c->nc.flags & NC_WR_READY)) {
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	n = xprt_writev(&w->c->nc.x, &iov, 1, 0);
	if (n > 0)
		return n;
	if (n == XPRT_AGAIN || n == 0) {
		w->c->nc.flags &= ~NC_WR_READY;
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	w->failed = 1;
	wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
	return -1;
}

static int genmask_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, void *u)
{
	(void)ctx, (void)u;
	return RAND_bytes(buf, (int)len) == 1 ? 0 : -1;
}

/* a message came: the oldest exchange in flight is answered by it */
static void msg_cb(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *a, void *u)
{
	struct wsl *w = u;
	struct lc_conn *c = w->c;
	struct lc_ex *e = LC_EX(c, c->ex_head);

	(void)ctx;
	if ((a->opcode != WSLAY_TEXT_FRAME && a->opcode != WSLAY_BINARY_FRAME) || !c->inflight)
		return;
	/* WHY 200: a message answered counts as a request answered */
	lc_head(c, e, 200);
	e->random = a->opcode == WSLAY_BINARY_FRAME; /* R=1: random bytes, nothing to check */
	if (!w->gen)
		e->announced = (int64_t)w->msg_len;
	lc_verify(e, (const char *)a->msg, a->msg_length);
	lc_record(c, e);
	lc_ex_shift(c);
}

static const struct wslay_event_callbacks cbs = {
	.recv_callback = recv_cb,
	.send_callback = send_cb,
	.genmask_callback = genmask_cb,
	.on_msg_recv_callback = msg_cb,
};

/* ---------- the connection ---------- */

static int ws_io(struct lc_conn *c);

static void ws_free(struct lc_conn *c)
{
	struct wsl *w = wsl_of(c);

	if (!w)
		return;
	if (w->ctx)
		wslay_event_context_free(w->ctx);
	free(w->msg);
	free(w);
	c->proto_state = NULL;
}

/* the handshake: a GET with the Upgrade headers and a fresh key */
static int ws_start(struct lc_conn *c)
{
	struct wsl *w = calloc(1, sizeof(*w));
	unsigned char raw[16];
	char key[25], head[1024];
	const char *path = lc_tg->paths[0].path;
	int n;

	if (!w)
		return -1;
	c->proto_state = w;
	w->c = c;
	w->gen = strstr(path, "ws=gen") != NULL;
	w->msg_len = lc_o->body ? lc_o->body : WS_DEFAULT_MSG;
	if (RAND_bytes(raw, sizeof(raw)) != 1 || !(w->msg = malloc(w->msg_len)) ||
	    wslay_event_context_client_init(&w->ctx, &cbs, w))
		return lc_error(c, E_PROTOCOL), -1;
	for (size_t i = 0; i < w->msg_len; i++)
		w->msg[i] = (uint8_t)body_line[i % BODY_LINE];
	EVP_EncodeBlock((unsigned char *)key, raw, sizeof(raw));
	ws_accept_of(key, strlen(key), w->accept);
	n = snprintf(head, sizeof(head), "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
		     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nUser-Agent: hxload/%s\r\n\r\n", path,
		     lc_tg->authority, key, HX_VERSION);
	if (n <= 0 || (size_t)n >= sizeof(head))
		return lc_error(c, E_PROTOCOL), -1;
	oq_copy(&c->oq, head, (size_t)n);
	c->in_len = 0;
	c->ex_head = 0;
	return ws_io(c);
}

/* the 101: its status and accept key; 0 up, HX_AGAIN, -1 */
static int ws_answer(struct lc_conn *c, struct wsl *w)
{
	struct h1_resp r;
	struct h1_err err;
	char msg[400];
	long n = h1_parse_resp(c->in, c->in_len, &r, &err);
	int ok = 0;

	if (n == HX_AGAIN)
		return HX_AGAIN;
	for (unsigned i = 0; n > 0 && i < r.nhdrs; i++)
		ok |= r.hdrs[i].n.len == 20 && !strncasecmp(r.hdrs[i].n.ptr, "sec-websocket-accept", 20) &&
		      r.hdrs[i].v.len == 28 && !memcmp(r.hdrs[i].v.ptr, w->accept, 28);
	if (n < 0 || r.status != 101 || !ok) {
		snprintf(msg, sizeof(msg), "the server at %s %s the WebSocket handshake%s", lc_tg->where,
			 n < 0 ? "answered something that is not HTTP/1.1 to" : r.status != 101 ? "refused" :
			 "answered a wrong Sec-WebSocket-Accept to", n > 0 && r.status != 101 ? " (not 101)" : "");
		lc_fatal_set(msg);
		lc_error(c, E_PROTOCOL);
		return -1;
	}
	w->pre_off = (uint32_t)n;
	w->up = 1;
	return 0;
}

/* echo: a message for each exchange that may start; ws=gen: one exchange
 * waiting for the next message */
static void ws_fill(struct lc_conn *c, struct wsl *w)
{
	while (c->inflight < (w->gen ? 1u : (uint32_t)lc_o->depth)) {
		struct lc_ex *e = LC_EX(c, (c->ex_head + c->inflight) % (uint32_t)lc_o->depth);
		struct wslay_event_msg m = { WSLAY_TEXT_FRAME, w->msg, w->msg_len };

		if (!lc_take(c, e) || (!w->gen && wslay_event_queue_msg(w->ctx, &m)))
			break;
		c->inflight++;
	}
}

static int ws_io(struct lc_conn *c)
{
	struct wsl *w = wsl_of(c);
	uint64_t sent;

	while (!w->up && (c->nc.flags & NC_RD_READY)) {
		long n = lc_conn_recv(c, c->in + c->in_len, c->in_size - c->in_len);

		if (n == XPRT_AGAIN)
			break;
		if (n == LC_RECV_REFUSED)
			return -1;
		if (n <= 0)
			return lc_error(c, E_RESET), -1;
		c->in_len += (uint32_t)n;
		if ((n = ws_answer(c, w)) < 0)
			return -1;
	}
	if (!w->up) {
		if (oq_pending(&c->oq) && (c->nc.flags & NC_WR_READY) && oq_flush(&c->oq, &c->nc.x, &sent) == -1)
			return lc_error(c, E_RESET), -1;
		return 0;
	}
	/* WHY a loop: wslay stops at a short read (a TLS record's end) */
	for (int turn = 0; turn < 64 && ((c->nc.flags & NC_RD_READY) || w->pre_off < c->in_len); turn++)
		if (wslay_event_recv(w->ctx) || w->failed)
			return lc_error(c, E_RESET), -1;
	if (w->pre_off == c->in_len) /* WHY: wslay read what followed the 101: the buffer may go back */
		c->in_len = w->pre_off = 0;
	ws_fill(c, w);
	/* WHY a loop: wslay returns after a partial write */
	for (int turn = 0; turn < 64 && (c->nc.flags & NC_WR_READY) && wslay_event_want_write(w->ctx); turn++)
		if (wslay_event_send(w->ctx) || w->failed)
			return lc_error(c, E_RESET), -1;
	/* WHY 1: the server closed the WebSocket (ws=gen after n=): a new one */
	if (wslay_event_get_close_received(w->ctx) && !wslay_event_want_write(w->ctx))
		return 1;
	return 0;
}

const struct lc_protocol lc_ws = {
	.name = "ws",
	.fifo = 1,
	.start = ws_start,
	.io = ws_io,
	.free = ws_free,
};

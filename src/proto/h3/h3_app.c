/* HTTP/3's row of the protocol table and the application table it gives the QUIC transport (quic_app): every stream event comes up here, each connection takes its engine here, a worker's HTTP/3 state is made and freed here. */
#include <stdlib.h>

#include "config.h"
#include "h3.h"
#include "h3_eng.h"
#include "qh3.h"
#include "qh3mem.h"
#include "session.h"

static const struct h3_eng *engines[2]; /* ours, nghttp3's: the row's (h3_init); each connection takes one */

_Static_assert(offsetof(struct h3c, q) == 0, "the transport's part first: it allocates and frees the whole");

static int h3_thread_init(struct worker *w)
{
	struct h3w *hw = calloc(1, sizeof(*hw));

	if (!hw)
		return -1;
	list_init(&hw->free_qs[0]);
	list_init(&hw->free_qs[1]);
	if (quic_thread_init(w, hw) < 0) {
		free(hw);
		return -1;
	}
	return 0;
}

/* the worker's free streams and its HTTP/3 state, then the transport's */
static void h3_thread_free(struct worker *w)
{
	struct h3w *hw;

	if (!w->ps[P_H3])
		return;
	hw = h3w(w);
	for (int i = 0; i < 2; i++)
		for (struct list *n; (n = list_pop(&hw->free_qs[i]));)
			free(list_elem(n, struct h3s, node));
	free(hw);
	quic_thread_free(w);
	qh3mem_drain();
	h3tx_drain();
}

/* ---------- the transport's events (quic_app) ---------- */

/* a connection made: it takes the engine --h3-engine names, as h2's shell does */
static void h3_open(struct quic_conn *q)
{
	struct h3c *c = h3c_of(q);

	/* WHY here alone: the option is read where a connection takes its engine */
	c->eng = engines[cfg.h3_engine == H3ENG_HX ? 0 : 1];
	list_init(&c->streams);
	list_init(&c->ready);
	c->max_req = cfg.conn_requests;
	c->ng_max = c->memo_max = -1;
	c->granted = cfg.h3_streams;
}

/* WHY not at the 1-RTT key: a half-open connection held its HTTP/3
 * session (about 47 KB of nghttp3's and ngtcp2's) for nothing */
static int h3_start(struct quic_conn *q)
{
	struct h3c *c = h3c_of(q);

	return !c->h3 && h3_setup(c) < 0 ? -1 : 0;
}

/* a stream whose response we frame (--h3-engine hx) has its h3s as its
 * user data: its acknowledgements and windows are the engine's */
static int h3_acked(struct quic_conn *q, int64_t id, uint64_t len, void *sud)
{
	struct h3c *c = h3c_of(q);

	if (sud) {
		c->eng->acked(sud, len);
		return 0;
	}
	return c->h3 && nghttp3_conn_add_ack_offset(c->h3, id, len) ? -1 : 0;
}

static int h3_unblock(struct quic_conn *q, int64_t id, void *sud)
{
	struct h3c *c = h3c_of(q);

	if (sud) {
		c->eng->unblock(sud);
		return 0;
	}
	return c->h3 && nghttp3_conn_unblock_stream(h3_ng(c), id) ? -1 : 0;
}

/* WHY not nghttp3 for a stream it never saw (answered from the memo): it
 * would cancel the stream on its QPACK decoder stream */
static int h3_reset_in(struct quic_conn *q, int64_t id, uint64_t code, void *sud)
{
	struct h3c *c = h3c_of(q);

	ctr_add(&q->w->st.h3_rst_recv[st_h3e(code)], 1);
	if (sud && ((struct h3s *)sud)->own)
		return 0;
	return c->h3 && nghttp3_conn_shutdown_stream_read(h3_ng(c), id) ? -1 : 0;
}

/* the end of a drain: the final GOAWAY, with the real id (the first
 * request stream not processed; written before the CONNECTION_CLOSE), so a
 * client retries whatever it sent after the notice without a doubt */
static void h3_drain_end(struct h3c *c)
{
	if (c->h3 && !(c->flags & H3C_ENDING))
		h3_goaway(c);
	quic_close_soon(&c->q, SC_DRAIN);
}

/* under h2s=: the credit that lets the peer run <cap> streams at once,
 * beside those open and the credit it holds (granted less the streams
 * seen opened; one in flight unseen makes it less, never more) */
__attribute__((cold, noinline)) static uint32_t h3_capped(const struct h3c *c)
{
	uint64_t opened = (uint64_t)((MAX(c->ng_max, c->memo_max) >> 2) + 1);
	uint64_t held = c->granted > opened ? c->granted - opened : 0;

	return c->nstreams + held < c->cap ? (uint32_t)(c->cap - c->nstreams - held) : 0;
}

/* A request stream of the peer closed: its credit goes back in batches.
 * WHY: one MAX_STREAMS per closed stream was a frame (and often a packet,
 * and an ACK from the peer) a request. The peer's credit is let fall to
 * half of --h3-streams, counting the streams it has open, so a client
 * that keeps fewer than half open sees a grant every half that many
 * requests, and one that keeps more gets its streams back at once. */
static void h3_grant(struct h3c *c)
{
	c->grant++;
	if (unlikely(c->flags & H3C_CAPPED)) {
		if (!(c->grant = h3_capped(c)))
			return;
	} else if (c->nstreams + c->grant < (cfg.h3_streams + 1) / 2)
		return;
	quic_grant(&c->q, c->grant);
	c->granted += c->grant;
	c->grant = 0;
}

/* "Who closes an h3 stream": here alone. nghttp3 frees those it read (its
 * stream_close), the memo's are freed here. */
static int h3_closed(struct quic_conn *q, int64_t id, int has_code, uint64_t code, void *sud)
{
	struct h3c *c = h3c_of(q);
	struct h3s *own = sud && ((struct h3s *)sud)->own ? sud : NULL; /* WHY first: nghttp3 frees the others */
	int rv;

	if (!c->h3)
		return 0;
	rv = nghttp3_conn_close_stream(c->h3, id, has_code ? code : NGHTTP3_H3_NO_ERROR);
	if (rv && rv != NGHTTP3_ERR_STREAM_NOT_FOUND)
		return -1;
	if (!rv) /* WHY not the memo's: nghttp3 never saw them, nothing to say */
		h3_ng(c);
	if (own)
		h3s_free(own);
	if (!(id & 2)) /* a bidi stream of the client: let it open another */
		h3_grant(c);
	/* WHY at once: the last exchange of a drain is done (acknowledged, or
	 * ngtcp2 would not close the stream); waiting for the client to leave
	 * kept the process up for --drain-timeout */
	if (q->w->draining && !c->nstreams)
		h3_drain_end(c);
	else if ((c->flags & H3C_ENDING) && !c->nstreams)
		quic_close_soon(q, SC_SERVER); /* WHY: counted as HTTP/1's Connection: close is */
	return 0;
}

static int h3_max_streams(struct quic_conn *q, uint64_t max)
{
	struct h3c *c = h3c_of(q);

	if (c->h3)
		nghttp3_conn_set_max_client_streams_bidi(c->h3, max);
	return 0;
}

static int h3_busy(struct quic_conn *q)
{
	return h3c_of(q)->nstreams != 0;
}

/* nghttp3's streams first (its control and QPACK streams are small and
 * must not wait behind bodies), then the engine's own, if it frames */
static void h3_sources(struct quic_conn *q, struct qw_srcs *srcs)
{
	struct h3c *c = h3c_of(q);

	srcs->n = 0;
	if (!c->h3)
		return;
	if (!c->ng_quiet)
		qh3_src(&srcs->s[srcs->n++], c->h3);
	if (c->eng->src)
		c->eng->src(c, &srcs->s[srcs->n++]);
}

/* a burst went: nghttp3 had nothing, or it is asked again (with nghttp3's
 * engine its source is the only one, never marked idle: always asked) */
static void h3_wrote(struct quic_conn *q, const struct qw_srcs *srcs)
{
	if (qh3_src_idle(srcs))
		h3c_of(q)->ng_quiet = 1;
	h3_faults(q);
}

static void h3_drain(struct quic_conn *q)
{
	struct h3c *c = h3c_of(q);

	if (!c->nstreams) {
		h3_drain_end(c);
		quic_write(q);
		quic_done(q);
	} else if (c->h3) {
		nghttp3_conn_submit_shutdown_notice(h3_ng(c));
		quic_write(q);
	}
}

static uint32_t h3_gone(struct quic_conn *q)
{
	struct h3c *c = h3c_of(q);

	while (!list_empty(&c->streams))
		h3s_free(list_elem(c->streams.next, struct h3s, node));
	if (c->h3)
		nghttp3_conn_del(c->h3);
	return c->total;
}

/* ---------- the protocol ---------- */

static const struct quic_app h3_app = {
	.conn_size = sizeof(struct h3c),
	.slot = SP_H3,
	.open = h3_open,
	.start = h3_start,
	.recv = h3_recv_stream,
	.acked = h3_acked,
	.unblock = h3_unblock,
	.reset = h3_reset_in,
	.closed = h3_closed,
	.max_streams = h3_max_streams,
	.busy = h3_busy,
	.scan = h3_scan,
	.sources = h3_sources,
	.wrote = h3_wrote,
	.drain = h3_drain,
	.gone = h3_gone,
	.no_error = NGHTTP3_H3_NO_ERROR,
};

static int h3_init(void)
{
	engines[0] = &h3_eng_hx;
	engines[1] = &h3_eng_ng;
	h3_callbacks();
	return quic_setup(&h3_app);
}

const struct proto proto_h3 = {
	.name = "h3",
	.init = h3_init,
	.free = quic_free,
	.thread_init = h3_thread_init,
	.close_all = quic_close_all,
	.thread_free = h3_thread_free,
	.listen = quic_listen,
	.drain = quic_drain,
	.live = quic_live,
};

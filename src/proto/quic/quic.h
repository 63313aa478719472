/* The QUIC transport (ngtcp2 0.12, GnuTLS): what an application on it (HTTP/3, proto/h3) calls, and the one table of events it gives the transport. */
#ifndef HX_QUIC_H
#define HX_QUIC_H

#include "proto.h"
#include "qwrite.h"
#include "quic_conn-t.h"
#include "stats.h"

/* What the transport asks of the application above it, given once by
 * quic_setup(): every stream event goes up through it, never by name, so
 * the transport knows no application (and includes no nghttp3 header).
 * A stream's user data (quic_stream_bind) is the application's, opaque
 * here. The int callbacks return 0, or -1 to fail the connection. */
struct quic_app {
	size_t conn_size;    /* its connection's size: a struct quic_conn first */
	uint8_t slot;        /* its connections' stats slot (enum st_proto): the transport counts them */
	/* a connection made (the rest of it zero), counted: its part set */
	void (*open)(struct quic_conn *q);
	/* the handshake is done: its session (control streams), unless early
	 * stream data made it already */
	int (*start)(struct quic_conn *q);
	/* stream data from the peer, <off> its offset in the stream, <early> in 0-RTT */
	int (*recv)(struct quic_conn *q, int64_t id, uint64_t off, const uint8_t *data, size_t len, int fin,
		    int early);
	/* the peer acknowledged <len> more bytes of stream <id> */
	int (*acked)(struct quic_conn *q, int64_t id, uint64_t len, void *sud);
	/* the peer opened stream <id>'s window */
	int (*unblock)(struct quic_conn *q, int64_t id, void *sud);
	/* the peer reset stream <id> (RESET_STREAM) with <code> */
	int (*reset)(struct quic_conn *q, int64_t id, uint64_t code, void *sud);
	/* stream <id> closed, with the peer's <code> when <has_code> */
	int (*closed)(struct quic_conn *q, int64_t id, int has_code, uint64_t code, void *sud);
	/* the peer may open streams up to <max> now */
	int (*max_streams)(struct quic_conn *q, uint64_t max);
	/* whether streams are open: then scan() every QUIC_SCAN_MS */
	int (*busy)(struct quic_conn *q);
	/* a look at the streams' stalls (it may quic_close_soon) */
	void (*scan)(struct quic_conn *q);
	/* the sources of stream data for a burst of writes (net/qwrite), in
	 * the order asked: it fills <srcs>, its n too (0: none yet) */
	void (*sources)(struct quic_conn *q, struct qw_srcs *srcs);
	/* after each burst of writes, with the sources it asked (idle: one
	 * that had nothing) */
	void (*wrote)(struct quic_conn *q, const struct qw_srcs *srcs);
	/* the worker drains: a notice to the peer, or the end (quic_close_soon) */
	void (*drain)(struct quic_conn *q);
	/* <q> goes: its streams and session freed; the requests it served,
	 * for the transport's count of its close (by q->why), which frees the
	 * memory after */
	uint32_t (*gone)(struct quic_conn *q);
	uint64_t no_error;   /* its code for a close without error (CONNECTION_CLOSE) */
};

#define QUIC_SCAN_MS 1000

/* the transport's set-up, with the application above it; 0 or -1 */
int quic_setup(const struct quic_app *app);
void quic_free(void);
/* the transport's per-thread state, with <app> the application's (quic_app_w) */
int quic_thread_init(struct worker *w, void *app);
void quic_thread_free(struct worker *w);
void quic_close_all(struct worker *w);
int quic_listen(struct worker *w, const struct listen_addr *la, uint16_t port);
void quic_drain(struct worker *w);
uint32_t quic_live(const struct worker *w);

/* flush what can be written now */
void quic_write(struct quic_conn *q);
/* after any work on <q>: closes it if it must, else re-arms its timer;
 * <q> may be freed */
void quic_done(struct quic_conn *q);
/* <q> ends (a drain, a stall, a fault): CONNECTION_CLOSE with the
 * application's no_error at the next quic_done(), counted as <why> unless
 * it has a reason already */
void quic_close_soon(struct quic_conn *q, enum st_close why);

/* the application's per-thread state, as given to quic_thread_init() */
static inline void *quic_app_w(const struct worker *w)
{
	return qw(w)->app;
}

/* ---------- streams, for the application ---------- */

/* <sud> as stream <id>'s user data, handed back with its events; 0 or -1 */
static inline int quic_stream_bind(struct quic_conn *q, int64_t id, void *sud)
{
	return ngtcp2_conn_set_stream_user_data(q->conn, id, sud) ? -1 : 0;
}

/* <n> bytes of stream <id> consumed: the stream's and the connection's windows move */
static inline void quic_consume(struct quic_conn *q, int64_t id, size_t n)
{
	ngtcp2_conn_extend_max_stream_offset(q->conn, id, n);
	ngtcp2_conn_extend_max_offset(q->conn, n);
}

/* both directions of stream <id> reset with <code> (RESET_STREAM, STOP_SENDING) */
static inline void quic_stream_shut(struct quic_conn *q, int64_t id, uint64_t code)
{
	ngtcp2_conn_shutdown_stream(q->conn, id, code);
}

/* its reading side (STOP_SENDING), or its writing side (RESET_STREAM); 0 or -1 */
static inline int quic_stream_stop(struct quic_conn *q, int64_t id, uint64_t code)
{
	return ngtcp2_conn_shutdown_stream_read(q->conn, id, code) ? -1 : 0;
}

static inline int quic_stream_reset(struct quic_conn *q, int64_t id, uint64_t code)
{
	return ngtcp2_conn_shutdown_stream_write(q->conn, id, code) ? -1 : 0;
}

/* a unidirectional stream of ours, its id in <*id>; 0 or -1 */
static inline int quic_open_uni(struct quic_conn *q, int64_t *id)
{
	return ngtcp2_conn_open_uni_stream(q->conn, id, NULL) ? -1 : 0;
}

/* the peer may open <n> more bidirectional streams (MAX_STREAMS) */
static inline void quic_grant(struct quic_conn *q, uint64_t n)
{
	ngtcp2_conn_extend_max_streams_bidi(q->conn, n);
}

/* a PING after every <ms> without a packet sent (ngtcp2's keep-alive) */
static inline void quic_keep_alive(struct quic_conn *q, uint32_t ms)
{
	ngtcp2_conn_set_keep_alive_timeout(q->conn, (ngtcp2_duration)ms * NGTCP2_MILLISECONDS);
}

/* whether the connection's send window is shut, or stream <id>'s */
static inline int quic_window_shut(struct quic_conn *q)
{
	return ngtcp2_conn_get_max_data_left(q->conn) == 0;
}

static inline int quic_stream_window_shut(struct quic_conn *q, int64_t id)
{
	return ngtcp2_conn_get_max_stream_data_left(q->conn, id) == 0;
}

#endif

/* What each worker counts for --stats and SIGUSR1: responses, connections, times as histograms; owned by the worker, read by the stats thread. */
#ifndef HX_STATS_H
#define HX_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "counter.h"
#include "rows.h"

/* the protocols as the metrics label them */
enum st_proto { SP_H1, SP_H1TLS, SP_H2C, SP_H2, SP_H3, SP_WS, SP_MAX };

#define ST_TIME_B 18 /* time buckets: 17 upper bounds and +Inf */
#define ST_RPC_B  14 /* requests per connection: 13 upper bounds and +Inf */
#define ST_BAD_B  8  /* 400 408 413 414 431 501 505, and the rest */
#define ST_H2E_B  7  /* HTTP/2 error codes counted by name, and the rest */
#define ST_H3E_B  10 /* HTTP/3 error codes counted by name, and the rest */
#define ST_LISTEN_B 256 /* UDP listeners counted apart (CFG_MAX_LISTEN) */

/* why a connection ended */
enum st_close { SC_PEER, SC_SERVER, SC_IDLE, SC_TIMEOUT, SC_FAULT, SC_BAD, SC_ERROR, SC_DRAIN, SC_MAX,
		SC_UNSET = 0xff };

/* HTTP/3 streams reset for a stall, by the timeout (h3_scan) */
enum st_h3t { SH3_HEAD, SH3_BODY, SH3_SEND, SH3_MAX };

/* why a connection ended before its protocol took it */
enum st_pre { SPR_PROXY_BAD, SPR_PROXY_TIMEOUT, SPR_TLS_FAILED, SPR_TLS_TIMEOUT, SPR_PEER, SPR_DRAIN, SPR_ERROR,
	      SPR_NOFD, SPR_MAX };

extern const char *const st_proto_names[SP_MAX];
extern const char *const st_pre_names[SPR_MAX];
extern const uint64_t st_time_le_us[ST_TIME_B - 1];
extern const uint64_t st_rpc_le[ST_RPC_B - 1];
extern const uint16_t st_bad_codes[ST_BAD_B - 1];
extern const char *const st_h2e_names[ST_H2E_B];
extern const char *const st_h3e_names[ST_H3E_B];
extern const char *const st_close_names[SC_MAX];

/* a histogram: counts per bucket (not cumulative), the sum */
struct st_hist_time {
	counter b[ST_TIME_B];
	counter sum_us;
};

/* a fine time histogram, for quantiles (the live page's): log-linear, 16
 * buckets an octave (under 6.3 % wide) up to 2^27 us, 0..15 us exact */
#define ST_FINE_SUB 16
#define ST_FINE_B   (ST_FINE_SUB + 23 * ST_FINE_SUB)
struct st_fine {
	counter b[ST_FINE_B];
};

static inline unsigned st_fine_bucket(uint64_t us)
{
	unsigned msb;

	if (us < ST_FINE_SUB)
		return (unsigned)us;
	msb = 63 - (unsigned)__builtin_clzll(us);
	if (msb > 26)
		return ST_FINE_B - 1;
	return ST_FINE_SUB * (msb - 3) + (unsigned)((us >> (msb - 4)) & (ST_FINE_SUB - 1));
}

/* the lower bound (us) of fine bucket <i>, its width in <*w> */
static inline uint64_t st_fine_low(unsigned i, uint64_t *w)
{
	unsigned msb;

	if (i < ST_FINE_SUB)
		return *w = 1, i;
	msb = i / ST_FINE_SUB + 3;
	*w = (uint64_t)1 << (msb - 4);
	return ((uint64_t)1 << msb) + (uint64_t)(i % ST_FINE_SUB) * *w;
}

struct st_hist_rpc {
	counter b[ST_RPC_B];
	counter sum;
};

/* faults carried out; QUIC datagrams that made no connection */
enum st_fault { SF_RESET, SF_CLOSE, SF_MAX };
enum st_dgram { SQD_VN, SQD_RETRY, SQD_RESET, SQD_DROPPED, SQD_MAX };

extern const char *const st_bad_names[ST_BAD_B];
extern const char *const st_fault_names[SF_MAX];
extern const char *const st_dgram_names[SQD_MAX];
extern const char *const st_h3t_names[SH3_MAX];
extern const char *const st_pp_names[2], *const st_pp_keys[2];
extern const char *const st_dir_names[2];
/* the UDP listeners' names, in the order workers open them; NULL past the last */
extern const char *st_udp_names[ST_LISTEN_B];

/* names UDP listener <i> <name> (before the workers start) */
void st_udp_name(unsigned i, const char *name);

/* The counters with at most one label, a row each: its field in struct
 * wstats, how many values (the label's), its name in /metrics (after
 * hxterm_), its key in /stats.json, the label's name, the values' names in
 * /metrics and in /stats.json (NULL: the same), its help. The field, the sum,
 * /metrics, /stats.json and the docs check (20-docs.t) all come from here:
 * a new counter is a row and its increment. A value whose name is NULL is
 * not in use (a listener that is not there): left out of both. */
#define ST_ROWS(X) \
	X(bytes_in, 1, "received_bytes_total", "bytes_in", NULL, NULL, NULL, \
	  "Bytes read from clients (TCP and UDP).") \
	X(bytes_out, 1, "sent_bytes_total", "bytes_out", NULL, NULL, NULL, \
	  "Bytes written to clients over TCP.") \
	X(early_req, SP_MAX, "early_requests_total", "early_requests", "proto", st_proto_names, NULL, \
	  "Requests that came in TLS early data or QUIC 0-RTT (X-rsp's early=1, --early-data), by protocol.") \
	X(ignored, 1, "ignored_keys_total", "ignored_keys", NULL, NULL, NULL, \
	  "Requests that held a key hxterm does not know (a typo, a cache buster), named in X-Hxterm-Ignored.") \
	X(faults, SF_MAX, "faults_total", "faults", "kind", st_fault_names, NULL, \
	  "Faults carried out: x= resets, X= closes.") \
	X(bad, ST_BAD_B, "bad_requests_total", "bad_requests", "code", st_bad_names, NULL, \
	  "HTTP/1 requests refused by the parser, by status.") \
	X(proxy_hdr, 2, "proxy_headers_total", "proxy_headers", "version", st_pp_names, st_pp_keys, \
	  "PROXY protocol headers taken, by version.") \
	X(pre_close, SPR_MAX, "early_closes_total", "early_closes", "reason", st_pre_names, NULL, \
	  "TCP connections closed before a protocol took them, by reason: a PROXY header bad or missing, or " \
	  "not whole in time (--head-timeout); a TLS handshake failed, or not done in time; the peer left; a " \
	  "drain; an error; out of file descriptors (answered 503, or a TLS alert).") \
	X(h2_goaway, ST_H2E_B, "h2_goaways_sent_total", "h2_goaways_sent", "code", st_h2e_names, NULL, \
	  "HTTP/2 GOAWAY frames sent, by error code.") \
	X(h2_rst_sent, ST_H2E_B, "h2_resets_sent_total", "h2_resets_sent", "code", st_h2e_names, NULL, \
	  "HTTP/2 RST_STREAM frames sent, by error code.") \
	X(h2_rst_recv, ST_H2E_B, "h2_resets_received_total", "h2_resets_received", "code", st_h2e_names, NULL, \
	  "HTTP/2 RST_STREAM frames received, by error code.") \
	X(quic_dgram, SQD_MAX, "quic_datagrams_total", "quic_datagrams", "outcome", st_dgram_names, NULL, \
	  "QUIC datagrams that made no connection: answered (version negotiation, Retry, stateless reset) or " \
	  "dropped.") \
	X(quic_udp, 2, "quic_udp_datagrams_total", "quic_udp_datagrams", "direction", st_dir_names, NULL, \
	  "UDP datagrams QUIC read, and its connections sent (a GSO train counts each of its datagrams).") \
	X(udp_drops, ST_LISTEN_B, "udp_receive_drops_total", "udp_receive_drops", "listener", st_udp_names, NULL, \
	  "UDP datagrams the kernel dropped before hxterm read them (its receive buffer full, SO_RXQ_OVFL), by " \
	  "listener; --udp-rcvbuf sets the buffer.") \
	X(quic_send_errors, 1, "quic_send_errors_total", "quic_send_errors", NULL, NULL, NULL, \
	  "QUIC datagrams the kernel refused to send (a full buffer, a route): lost, for QUIC to resend.") \
	X(quic_reclaimed, 1, "quic_reclaimed_blocks_total", "quic_reclaimed_blocks", NULL, NULL, NULL, \
	  "Memory blocks ngtcp2 still held when a QUIC connection ended (its issue 1244, a leak), freed by " \
	  "hxterm.") \
	X(h1_memo, 1, "h1_memo_requests_total", "h1_memo_requests", NULL, NULL, NULL, \
	  "HTTP/1 requests whose head was the same bytes as the last head accepted on that thread, taken " \
	  "without parsing it again.") \
	X(h3_memo, 1, "h3_memo_requests_total", "h3_memo_requests", NULL, NULL, NULL, \
	  "HTTP/3 requests whose stream held the same bytes as the last whole request nghttp3 accepted on " \
	  "that thread, answered from its fields without nghttp3 (--h3-engine hx).") \
	X(h3_timeouts, SH3_MAX, "h3_stream_timeouts_total", "h3_stream_timeouts", "state", st_h3t_names, NULL, \
	  "HTTP/3 streams reset (or connections closed) for a stall, by state: a header section never ended " \
	  "(--head-timeout), a request body stopped (--body-timeout), the peer's flow control shut " \
	  "(--send-timeout).") \
	X(h3_rst_sent, ST_H3E_B, "h3_resets_sent_total", "h3_resets_sent", "code", st_h3e_names, NULL, \
	  "HTTP/3 streams reset by hxterm (RESET_STREAM), by error code: message_error is a malformed request.") \
	X(h3_rst_recv, ST_H3E_B, "h3_resets_received_total", "h3_resets_received", "code", st_h3e_names, NULL, \
	  "HTTP/3 RESET_STREAM frames received, by error code.")

/* per-thread counters, summed when read (by another thread) */
struct wstats {
	counter accepted;
	counter requests;
	counter errors;      /* requests answered 4xx/5xx by the parser */
	counter conns;       /* TCP connections open now (-n counts them) */
	counter resp[SP_MAX][10];          /* responses by protocol and status / 100 */
	counter conn_open[SP_MAX], conn_closed[SP_MAX];
	counter conn_why[SP_MAX][SC_MAX];  /* closes by reason */
	struct st_hist_rpc rpc[SP_MAX];    /* requests per closed connection */
	struct st_hist_time gen[SP_MAX];   /* request head in to response head out */
	struct st_hist_time late;          /* how late t= and d= waits ended */
	struct st_fine gen_fine, late_fine; /* the same two, every protocol's, finely: quantiles */
	counter tls[2][2];                 /* TLS handshakes: [1.3][resumed] */
#define ST_FIELD(f, n, ...) counter f[n];
	ST_ROWS(ST_FIELD)
#undef ST_FIELD
};

/* the rows of ST_ROWS (core/rows.h), for the stats thread: offsets in struct wstats */
extern const struct row st_rows[];
extern const unsigned st_nrows;

/* an HTTP/2 (HTTP/3) error code's slot in the counters above */
unsigned st_h2e(uint32_t code);
unsigned st_h3e(uint64_t code);

static inline unsigned st_time_bucket(uint64_t us)
{
	unsigned i = 0;

	while (i < ST_TIME_B - 1 && us > st_time_le_us[i])
		i++;
	return i;
}

static inline void st_time_add(struct st_hist_time *h, uint64_t us)
{
	ctr_add(&h->b[st_time_bucket(us)], 1);
	ctr_add(&h->sum_us, us);
}

static inline void st_fine_add(struct st_fine *h, uint64_t us)
{
	ctr_add(&h->b[st_fine_bucket(us)], 1);
}

/* a t= or d= wait ended <us> after its time */
static inline void st_late(struct wstats *st, uint64_t us)
{
	st_time_add(&st->late, us);
	st_fine_add(&st->late_fine, us);
}

/* a response head went out: its status, how long it took to make, whether
 * its request came in early data, whether it held an unknown key */
static inline void st_response(struct wstats *st, enum st_proto p, unsigned status, int64_t gen_ns, int early,
			       int ignored)
{
	ctr_add(&st->resp[p][status / 100 % 10], 1);
	if (early)
		ctr_add(&st->early_req[p], 1);
	if (ignored)
		ctr_add(st->ignored, 1);
	st_time_add(&st->gen[p], gen_ns > 0 ? (uint64_t)gen_ns / 1000 : 0);
	st_fine_add(&st->gen_fine, gen_ns > 0 ? (uint64_t)gen_ns / 1000 : 0);
}

static inline void st_conn_open(struct wstats *st, enum st_proto p)
{
	ctr_add(&st->conn_open[p], 1);
}

/* a connection ended after <nreq> requests, for reason <why> (SC_UNSET: the peer) */
void st_conn_close(struct wstats *st, enum st_proto p, uint32_t nreq, unsigned why);
/* a connection opened as <p> went on as another protocol (not a close) */
static inline void st_conn_moved(struct wstats *st, enum st_proto p)
{
	ctr_add(&st->conn_open[p], (uint64_t)-1);
}

void st_bad(struct wstats *st, unsigned status);

#endif

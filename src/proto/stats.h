/* What each worker counts for --stats and SIGUSR1: responses, connections, times as histograms; owned by the worker, read by the stats thread. */
#ifndef HX_STATS_H
#define HX_STATS_H

#include <stdint.h>

#include "counter.h"

/* the protocols as the metrics label them */
enum st_proto { SP_H1, SP_H1TLS, SP_H2C, SP_H2, SP_H3, SP_WS, SP_MAX };

#define ST_TIME_B 18 /* time buckets: 17 upper bounds and +Inf */
#define ST_RPC_B  14 /* requests per connection: 13 upper bounds and +Inf */
#define ST_BAD_B  8  /* 400 408 413 414 431 501 505, and the rest */
#define ST_H2E_B  7  /* HTTP/2 error codes counted by name, and the rest */
#define ST_H3E_B  10 /* HTTP/3 error codes counted by name, and the rest */

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

struct st_hist_rpc {
	counter b[ST_RPC_B];
	counter sum;
};

/* per-thread counters, summed when read (by another thread) */
struct wstats {
	counter accepted;
	counter requests;
	counter errors;      /* requests answered 4xx/5xx by the parser */
	counter bytes_in;
	counter bytes_out;
	counter conns;       /* TCP connections open now (-n counts them) */
	counter resp[SP_MAX][10];          /* responses by protocol and status / 100 */
	counter conn_open[SP_MAX], conn_closed[SP_MAX];
	counter conn_why[SP_MAX][SC_MAX];  /* closes by reason */
	struct st_hist_rpc rpc[SP_MAX];    /* requests per closed connection */
	struct st_hist_time gen[SP_MAX];   /* request head in to response head out */
	struct st_hist_time late;          /* how late t= and d= waits ended */
	counter bad[ST_BAD_B];             /* HTTP/1 requests refused by the parser */
	counter fault_reset, fault_close;  /* x= and X= carried out */
	counter tls[2][2];                 /* TLS handshakes: [1.3][resumed] */
	counter pre_close[SPR_MAX];        /* closed before a protocol, by reason */
	counter proxy_hdr[2];              /* PROXY headers taken, v1 and v2 */
	counter h2_goaway[ST_H2E_B];       /* GOAWAY sent, by error code */
	counter h2_rst_sent[ST_H2E_B], h2_rst_recv[ST_H2E_B];
	counter quic_vn, quic_retry, quic_reset, quic_dropped; /* datagrams answered so, or dropped */
	counter quic_reclaimed;            /* blocks ngtcp2 left at a connection's end, freed */
	counter h3_memo;                   /* h3 requests answered from the memo, unread by nghttp3 */
	counter h3_timeouts[SH3_MAX];      /* streams reset (or the connection closed) for a stall */
	counter h3_rst_sent[ST_H3E_B], h3_rst_recv[ST_H3E_B]; /* RESET_STREAM, by error code */
};

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

/* a response head went out: its status and how long it took to make */
static inline void st_response(struct wstats *st, enum st_proto p, unsigned status, int64_t gen_ns)
{
	ctr_add(&st->resp[p][status / 100 % 10], 1);
	st_time_add(&st->gen[p], gen_ns > 0 ? (uint64_t)gen_ns / 1000 : 0);
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

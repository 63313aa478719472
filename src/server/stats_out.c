/* The stats listener's documents: every worker's counters summed, as Prometheus text (/metrics) and as JSON (/stats.json). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alog.h"
#include "clock.h"
#include "config.h"
#include "stats.h"
#include "stats_out.h"
#include "worker.h"

/* the counters of every worker, added up (plain numbers) */
struct tot {
	uint64_t requests, bytes_in, bytes_out, tcp_conns;
	uint64_t resp[SP_MAX][10], open[SP_MAX], closed[SP_MAX], why[SP_MAX][SC_MAX];
	uint64_t rpc[SP_MAX][ST_RPC_B], rpc_sum[SP_MAX];
	uint64_t gen[SP_MAX][ST_TIME_B], gen_sum[SP_MAX];
	uint64_t late[ST_TIME_B], late_sum;
	uint64_t bad[ST_BAD_B], fault_reset, fault_close, tls[2][2];
	uint64_t goaway[ST_H2E_B], rst_sent[ST_H2E_B], rst_recv[ST_H2E_B];
	uint64_t quic_vn, quic_retry, quic_reset, quic_dropped, quic_reclaimed, h3_memo, h3_timeouts[SH3_MAX];
	uint64_t h3_rst_sent[ST_H3E_B], h3_rst_recv[ST_H3E_B];
	uint64_t pre_close[SPR_MAX], proxy_hdr[2];
};

static int64_t started_ns;
static double started_epoch;

void stats_out_init(void)
{
	struct timespec ts;

	started_ns = clock_ns();
	stats_page(); /* WHY here: made before the stats thread may ask */
	clock_gettime(CLOCK_REALTIME, &ts);
	started_epoch = (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void add_time(uint64_t *b, uint64_t *sum, const struct st_hist_time *h)
{
	for (int i = 0; i < ST_TIME_B; i++)
		b[i] += ctr_get(&h->b[i]);
	*sum += ctr_get(&h->sum_us);
}

static void sum(struct tot *T)
{
	memset(T, 0, sizeof(*T));
	for (int t = 0; t < cfg.threads; t++) {
		const struct wstats *w = worker_stats(t);

		T->requests += ctr_get(&w->requests);
		T->bytes_in += ctr_get(&w->bytes_in);
		T->bytes_out += ctr_get(&w->bytes_out);
		T->tcp_conns += ctr_get(&w->conns);
		for (int p = 0; p < SP_MAX; p++) {
			for (int c = 0; c < 10; c++)
				T->resp[p][c] += ctr_get(&w->resp[p][c]);
			T->open[p] += ctr_get(&w->conn_open[p]);
			T->closed[p] += ctr_get(&w->conn_closed[p]);
			for (int r = 0; r < SC_MAX; r++)
				T->why[p][r] += ctr_get(&w->conn_why[p][r]);
			for (int i = 0; i < ST_RPC_B; i++)
				T->rpc[p][i] += ctr_get(&w->rpc[p].b[i]);
			T->rpc_sum[p] += ctr_get(&w->rpc[p].sum);
			add_time(T->gen[p], &T->gen_sum[p], &w->gen[p]);
		}
		add_time(T->late, &T->late_sum, &w->late);
		for (int i = 0; i < ST_BAD_B; i++)
			T->bad[i] += ctr_get(&w->bad[i]);
		T->fault_reset += ctr_get(&w->fault_reset);
		T->fault_close += ctr_get(&w->fault_close);
		for (int v = 0; v < 2; v++)
			for (int r = 0; r < 2; r++)
				T->tls[v][r] += ctr_get(&w->tls[v][r]);
		for (int r = 0; r < SPR_MAX; r++)
			T->pre_close[r] += ctr_get(&w->pre_close[r]);
		for (int v = 0; v < 2; v++)
			T->proxy_hdr[v] += ctr_get(&w->proxy_hdr[v]);
		for (int i = 0; i < ST_H2E_B; i++) {
			T->goaway[i] += ctr_get(&w->h2_goaway[i]);
			T->rst_sent[i] += ctr_get(&w->h2_rst_sent[i]);
			T->rst_recv[i] += ctr_get(&w->h2_rst_recv[i]);
		}
		T->quic_vn += ctr_get(&w->quic_vn);
		T->quic_retry += ctr_get(&w->quic_retry);
		T->quic_reset += ctr_get(&w->quic_reset);
		T->quic_dropped += ctr_get(&w->quic_dropped);
		T->quic_reclaimed += ctr_get(&w->quic_reclaimed);
		T->h3_memo += ctr_get(&w->h3_memo);
		for (int k = 0; k < SH3_MAX; k++)
			T->h3_timeouts[k] += ctr_get(&w->h3_timeouts[k]);
		for (int i = 0; i < ST_H3E_B; i++) {
			T->h3_rst_sent[i] += ctr_get(&w->h3_rst_sent[i]);
			T->h3_rst_recv[i] += ctr_get(&w->h3_rst_recv[i]);
		}
	}
}

/* ---------- a growing buffer ---------- */

static void put(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = 1;
			return;
		}
		if (b->len + (size_t)n < b->cap)
			break;
		char *np = realloc(b->p, b->cap * 2 + (size_t)n + 1);

		if (!np) {
			b->failed = 1; /* WHY: answered 500 by the caller, never cut */
			return;
		}
		b->p = np;
		b->cap = b->cap * 2 + (size_t)n + 1;
	}
	b->len += (size_t)n;
}

/* ---------- /metrics ---------- */

static void head(struct sbuf *b, const char *name, const char *type, const char *help)
{
	put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static uint64_t count_of(const uint64_t *bk, int n)
{
	uint64_t c = 0;

	for (int i = 0; i < n; i++)
		c += bk[i];
	return c;
}

/* a time histogram in seconds, cumulative buckets */
static void time_hist(struct sbuf *b, const char *name, const char *labels, const uint64_t *bk, uint64_t sum_us)
{
	uint64_t cum = 0;

	for (int i = 0; i < ST_TIME_B; i++) {
		cum += bk[i];
		if (i < ST_TIME_B - 1)
			put(b, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, labels, *labels ? "," : "",
			    st_time_le_us[i] / 1e6, (unsigned long long)cum);
		else
			put(b, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, *labels ? "," : "",
			    (unsigned long long)cum);
	}
	put(b, "%s_sum%s%s%s %.6f\n%s_count%s%s%s %llu\n", name, *labels ? "{" : "", labels, *labels ? "}" : "",
	    sum_us / 1e6, name, *labels ? "{" : "", labels, *labels ? "}" : "", (unsigned long long)cum);
}

static void metrics_requests(struct sbuf *b, const struct tot *T)
{
	head(b, "hxterm_requests_total", "counter", "Responses sent, by protocol and status class.");
	for (int p = 0; p < SP_MAX; p++)
		for (int c = 1; c < 10; c++)
			if (c <= 5 || T->resp[p][c])
				put(b, "hxterm_requests_total{proto=\"%s\",code=\"%dxx\"} %llu\n", st_proto_names[p], c,
				    (unsigned long long)T->resp[p][c]);
	head(b, "hxterm_thread_requests_total", "counter", "Requests read, by worker thread (SO_REUSEPORT balance).");
	for (int t = 0; t < cfg.threads; t++)
		put(b, "hxterm_thread_requests_total{thread=\"%d\"} %llu\n", t,
		    (unsigned long long)ctr_get(&worker_stats(t)->requests));
	head(b, "hxterm_received_bytes_total", "counter", "Bytes read from clients (TCP and UDP).");
	put(b, "hxterm_received_bytes_total %llu\n", (unsigned long long)T->bytes_in);
	head(b, "hxterm_sent_bytes_total", "counter", "Bytes written to clients over TCP.");
	put(b, "hxterm_sent_bytes_total %llu\n", (unsigned long long)T->bytes_out);
	head(b, "hxterm_generation_seconds", "histogram",
	     "From the request head in to the response head out (X-rsp's real time), by protocol.");
	for (int p = 0; p < SP_MAX; p++) {
		char l[32];

		snprintf(l, sizeof(l), "proto=\"%s\"", st_proto_names[p]);
		time_hist(b, "hxterm_generation_seconds", l, T->gen[p], T->gen_sum[p]);
	}
	head(b, "hxterm_timer_lateness_seconds", "histogram", "How late t=, d= and P= waits ended.");
	time_hist(b, "hxterm_timer_lateness_seconds", "", T->late, T->late_sum);
}

static void metrics_conns(struct sbuf *b, const struct tot *T)
{
	head(b, "hxterm_connections_opened_total", "counter", "Connections, by the protocol they served.");
	for (int p = 0; p < SP_MAX; p++)
		put(b, "hxterm_connections_opened_total{proto=\"%s\"} %llu\n", st_proto_names[p],
		    (unsigned long long)T->open[p]);
	head(b, "hxterm_connections_closed_total", "counter", "Connections ended, by protocol.");
	for (int p = 0; p < SP_MAX; p++)
		put(b, "hxterm_connections_closed_total{proto=\"%s\"} %llu\n", st_proto_names[p],
		    (unsigned long long)T->closed[p]);
	head(b, "hxterm_connection_closes_total", "counter",
	     "Connections ended, by protocol and reason: the peer closed, the server did (keep-alive over, C=1), idle, "
	     "a timeout, a fault (x=, X=), a bad request, an error, a drain.");
	for (int p = 0; p < SP_MAX; p++)
		for (int r = 0; r < SC_MAX; r++)
			put(b, "hxterm_connection_closes_total{proto=\"%s\",reason=\"%s\"} %llu\n", st_proto_names[p],
			    st_close_names[r], (unsigned long long)T->why[p][r]);
	head(b, "hxterm_connections_active", "gauge", "Connections open now, by protocol.");
	for (int p = 0; p < SP_MAX; p++)
		put(b, "hxterm_connections_active{proto=\"%s\"} %llu\n", st_proto_names[p],
		    (unsigned long long)(T->open[p] > T->closed[p] ? T->open[p] - T->closed[p] : 0));
	head(b, "hxterm_requests_per_connection", "histogram", "Requests (streams) each ended connection carried.");
	for (int p = 0; p < SP_MAX; p++) {
		uint64_t cum = 0;

		for (int i = 0; i < ST_RPC_B; i++) {
			cum += T->rpc[p][i];
			if (i < ST_RPC_B - 1)
				put(b, "hxterm_requests_per_connection_bucket{proto=\"%s\",le=\"%llu\"} %llu\n",
				    st_proto_names[p], (unsigned long long)st_rpc_le[i], (unsigned long long)cum);
			else
				put(b, "hxterm_requests_per_connection_bucket{proto=\"%s\",le=\"+Inf\"} %llu\n",
				    st_proto_names[p], (unsigned long long)cum);
		}
		put(b, "hxterm_requests_per_connection_sum{proto=\"%s\"} %llu\n"
		    "hxterm_requests_per_connection_count{proto=\"%s\"} %llu\n", st_proto_names[p],
		    (unsigned long long)T->rpc_sum[p], st_proto_names[p], (unsigned long long)cum);
	}
	head(b, "hxterm_tls_handshakes_total", "counter", "TLS handshakes over TCP, by version and resumption.");
	for (int v = 0; v < 2; v++)
		for (int r = 0; r < 2; r++)
			put(b, "hxterm_tls_handshakes_total{version=\"%s\",resumed=\"%s\"} %llu\n", v ? "1.3" : "1.2",
			    r ? "true" : "false", (unsigned long long)T->tls[v][r]);
	head(b, "hxterm_proxy_headers_total", "counter", "PROXY protocol headers taken, by version.");
	for (int v = 0; v < 2; v++)
		put(b, "hxterm_proxy_headers_total{version=\"%d\"} %llu\n", v + 1, (unsigned long long)T->proxy_hdr[v]);
	head(b, "hxterm_early_closes_total", "counter",
	     "TCP connections closed before a protocol took them, by reason: a PROXY header bad or missing, or not "
	     "whole in time (--head-timeout); a TLS handshake failed, or not done in time; the peer left; a drain; "
	     "an error; out of file descriptors (answered 503, or a TLS alert).");
	for (int r = 0; r < SPR_MAX; r++)
		put(b, "hxterm_early_closes_total{reason=\"%s\"} %llu\n", st_pre_names[r],
		    (unsigned long long)T->pre_close[r]);
}

static void metrics_faults(struct sbuf *b, const struct tot *T)
{
	head(b, "hxterm_faults_total", "counter", "Faults carried out: x= resets, X= closes.");
	put(b, "hxterm_faults_total{kind=\"reset\"} %llu\nhxterm_faults_total{kind=\"close\"} %llu\n",
	    (unsigned long long)T->fault_reset, (unsigned long long)T->fault_close);
	head(b, "hxterm_access_log_dropped_total", "counter", "Access-log lines lost (out of memory, a write error).");
	put(b, "hxterm_access_log_dropped_total %llu\n", (unsigned long long)alog_dropped());
	head(b, "hxterm_bad_requests_total", "counter", "HTTP/1 requests refused by the parser, by status.");
	for (int i = 0; i < ST_BAD_B; i++)
		if (i < ST_BAD_B - 1)
			put(b, "hxterm_bad_requests_total{code=\"%u\"} %llu\n", st_bad_codes[i],
			    (unsigned long long)T->bad[i]);
		else
			put(b, "hxterm_bad_requests_total{code=\"other\"} %llu\n", (unsigned long long)T->bad[i]);
}

/* a counter by error code: <n> names, the last one the rest */
static void code_counter(struct sbuf *b, const char *name, const char *help, const uint64_t *v,
			 const char *const *names, int n)
{
	head(b, name, "counter", help);
	for (int i = 0; i < n; i++)
		put(b, "%s{code=\"%s\"} %llu\n", name, names[i], (unsigned long long)v[i]);
}

static void h2e_counter(struct sbuf *b, const char *name, const char *help, const uint64_t *v)
{
	code_counter(b, name, help, v, st_h2e_names, ST_H2E_B);
}

static void metrics_h2_quic(struct sbuf *b, const struct tot *T)
{
	h2e_counter(b, "hxterm_h2_goaways_sent_total", "HTTP/2 GOAWAY frames sent, by error code.", T->goaway);
	h2e_counter(b, "hxterm_h2_resets_sent_total", "HTTP/2 RST_STREAM frames sent, by error code.", T->rst_sent);
	h2e_counter(b, "hxterm_h2_resets_received_total", "HTTP/2 RST_STREAM frames received, by error code.",
		    T->rst_recv);
	head(b, "hxterm_quic_datagrams_total", "counter",
	     "QUIC datagrams that made no connection: answered (version negotiation, Retry, stateless reset) or dropped.");
	put(b, "hxterm_quic_datagrams_total{outcome=\"version_negotiation\"} %llu\n"
	    "hxterm_quic_datagrams_total{outcome=\"retry\"} %llu\n"
	    "hxterm_quic_datagrams_total{outcome=\"stateless_reset\"} %llu\n"
	    "hxterm_quic_datagrams_total{outcome=\"dropped\"} %llu\n", (unsigned long long)T->quic_vn,
	    (unsigned long long)T->quic_retry, (unsigned long long)T->quic_reset, (unsigned long long)T->quic_dropped);
	head(b, "hxterm_quic_reclaimed_blocks_total", "counter",
	     "Memory blocks ngtcp2 still held when a QUIC connection ended (its issue 1244, a leak), freed by hxterm.");
	put(b, "hxterm_quic_reclaimed_blocks_total %llu\n", (unsigned long long)T->quic_reclaimed);
	head(b, "hxterm_h3_memo_requests_total", "counter",
	     "HTTP/3 requests whose stream held the same bytes as the last whole request nghttp3 accepted on that "
	     "thread, answered from its fields without nghttp3 (--h3-engine hx).");
	put(b, "hxterm_h3_memo_requests_total %llu\n", (unsigned long long)T->h3_memo);
	head(b, "hxterm_h3_stream_timeouts_total", "counter",
	     "HTTP/3 streams reset (or connections closed) for a stall, by state: a header section never ended "
	     "(--head-timeout), a request body stopped (--body-timeout), the peer's flow control shut (--send-timeout).");
	for (int k = 0; k < SH3_MAX; k++)
		put(b, "hxterm_h3_stream_timeouts_total{state=\"%s\"} %llu\n", k == SH3_HEAD ? "head" : k == SH3_BODY ? "body" : "send",
		    (unsigned long long)T->h3_timeouts[k]);
	code_counter(b, "hxterm_h3_resets_sent_total",
		     "HTTP/3 streams reset by hxterm (RESET_STREAM), by error code: message_error is a malformed request.",
		     T->h3_rst_sent, st_h3e_names, ST_H3E_B);
	code_counter(b, "hxterm_h3_resets_received_total", "HTTP/3 RESET_STREAM frames received, by error code.",
		     T->h3_rst_recv, st_h3e_names, ST_H3E_B);
}

void stats_metrics(struct sbuf *b)
{
	static struct tot T;

	sum(&T);
	head(b, "hxterm_info", "gauge", "The server: its version and X-rsp name.");
	put(b, "hxterm_info{version=\"%s\",name=\"%.*s\",threads=\"%d\"} 1\n", HX_VERSION, (int)cfg.name_len,
	    cfg.name, cfg.threads);
	head(b, "hxterm_start_time_seconds", "gauge", "When the server started, epoch seconds.");
	put(b, "hxterm_start_time_seconds %.3f\n", started_epoch);
	metrics_requests(b, &T);
	metrics_conns(b, &T);
	metrics_faults(b, &T);
	metrics_h2_quic(b, &T);
}

/* ---------- /stats.json ---------- */

/* the upper bound, in us, under which a share <q> of the bucket counts lie */
static uint64_t time_quantile(const uint64_t *bk, double q)
{
	uint64_t n = count_of(bk, ST_TIME_B), seen = 0, rank = (uint64_t)(q * (double)n + 0.5);

	if (!n)
		return 0;
	if (rank < 1)
		rank = 1;
	for (int i = 0; i < ST_TIME_B - 1; i++)
		if ((seen += bk[i]) >= rank)
			return st_time_le_us[i];
	return UINT64_MAX;
}

static void json_time(struct sbuf *b, const uint64_t *bk, uint64_t sum_us)
{
	uint64_t n = count_of(bk, ST_TIME_B);

	put(b, "{\"count\": %llu, \"sum_us\": %llu, \"buckets\": [", (unsigned long long)n,
	    (unsigned long long)sum_us);
	for (int i = 0; i < ST_TIME_B; i++)
		put(b, "%s%llu", i ? ", " : "", (unsigned long long)bk[i]);
	put(b, "], \"p50_le_us\": %lld, \"p99_le_us\": %lld}", (long long)time_quantile(bk, 0.5),
	    (long long)time_quantile(bk, 0.99));
}

/* , "key": {"name": n, ...}: a counter by name (an error code, a reason) */
static void json_codes(struct sbuf *b, const char *key, const uint64_t *v, const char *const *names, int n)
{
	put(b, ", \"%s\": {", key);
	for (int i = 0; i < n; i++)
		put(b, "%s\"%s\": %llu", i ? ", " : "", names[i], (unsigned long long)v[i]);
	put(b, "}");
}

void stats_json(struct sbuf *b)
{
	static struct tot T;
	uint64_t total = 0;

	sum(&T);
	put(b, "{\"version\": \"%s\", \"name\": \"%.*s\", \"threads\": %d, \"uptime_s\": %.3f, \"start\": %.3f",
	    HX_VERSION, (int)cfg.name_len, cfg.name, cfg.threads, (clock_ns() - started_ns) / 1e9, started_epoch);
	put(b, ", \"bytes_in\": %llu, \"bytes_out\": %llu, \"tcp_connections\": %llu",
	    (unsigned long long)T.bytes_in, (unsigned long long)T.bytes_out, (unsigned long long)T.tcp_conns);
	put(b, ", \"protocols\": {");
	for (int p = 0; p < SP_MAX; p++) {
		uint64_t req = count_of(T.resp[p], 10);

		total += req;
		put(b, "%s\"%s\": {\"requests\": %llu, \"status\": {", p ? ", " : "", st_proto_names[p],
		    (unsigned long long)req);
		for (int c = 1, first = 1; c < 10; c++)
			if (T.resp[p][c]) {
				put(b, "%s\"%dxx\": %llu", first ? "" : ", ", c, (unsigned long long)T.resp[p][c]);
				first = 0;
			}
		put(b, "}, \"closes\": {");
		for (int r = 0, first = 1; r < SC_MAX; r++)
			if (T.why[p][r]) {
				put(b, "%s\"%s\": %llu", first ? "" : ", ", st_close_names[r], (unsigned long long)T.why[p][r]);
				first = 0;
			}
		put(b, "}, \"connections_opened\": %llu, \"connections_closed\": %llu, \"connections_active\": %llu, "
		    "\"requests_per_connection\": {\"count\": %llu, \"sum\": %llu}, \"generation\": ",
		    (unsigned long long)T.open[p], (unsigned long long)T.closed[p],
		    (unsigned long long)(T.open[p] > T.closed[p] ? T.open[p] - T.closed[p] : 0),
		    (unsigned long long)count_of(T.rpc[p], ST_RPC_B), (unsigned long long)T.rpc_sum[p]);
		json_time(b, T.gen[p], T.gen_sum[p]);
		put(b, "}");
	}
	put(b, "}, \"requests\": %llu, \"time_buckets_le_us\": [", (unsigned long long)total);
	for (int i = 0; i < ST_TIME_B - 1; i++)
		put(b, "%s%llu", i ? ", " : "", (unsigned long long)st_time_le_us[i]);
	put(b, "], \"timer_lateness\": ");
	json_time(b, T.late, T.late_sum);
	put(b, ", \"faults\": {\"reset\": %llu, \"close\": %llu}, \"bad_requests\": {",
	    (unsigned long long)T.fault_reset, (unsigned long long)T.fault_close);
	for (int i = 0; i < ST_BAD_B; i++)
		if (i < ST_BAD_B - 1)
			put(b, "\"%u\": %llu, ", st_bad_codes[i], (unsigned long long)T.bad[i]);
		else
			put(b, "\"other\": %llu}", (unsigned long long)T.bad[i]);
	put(b, ", \"tls_handshakes\": {\"1.2\": %llu, \"1.3\": %llu, \"resumed\": %llu}",
	    (unsigned long long)(T.tls[0][0] + T.tls[0][1]), (unsigned long long)(T.tls[1][0] + T.tls[1][1]),
	    (unsigned long long)(T.tls[0][1] + T.tls[1][1]));
	put(b, ", \"proxy_headers\": {\"v1\": %llu, \"v2\": %llu}",
	    (unsigned long long)T.proxy_hdr[0], (unsigned long long)T.proxy_hdr[1]);
	json_codes(b, "early_closes", T.pre_close, st_pre_names, SPR_MAX);
	json_codes(b, "h2_goaways_sent", T.goaway, st_h2e_names, ST_H2E_B);
	json_codes(b, "h2_resets_sent", T.rst_sent, st_h2e_names, ST_H2E_B);
	json_codes(b, "h2_resets_received", T.rst_recv, st_h2e_names, ST_H2E_B);
	json_codes(b, "h3_resets_sent", T.h3_rst_sent, st_h3e_names, ST_H3E_B);
	json_codes(b, "h3_resets_received", T.h3_rst_recv, st_h3e_names, ST_H3E_B);
	put(b, ", \"quic_datagrams\": {\"version_negotiation\": %llu, \"retry\": %llu, \"stateless_reset\": %llu, "
	    "\"dropped\": %llu}", (unsigned long long)T.quic_vn, (unsigned long long)T.quic_retry,
	    (unsigned long long)T.quic_reset, (unsigned long long)T.quic_dropped);
	put(b, ", \"quic_reclaimed_blocks\": %llu", (unsigned long long)T.quic_reclaimed);
	put(b, ", \"h3_memo_requests\": %llu", (unsigned long long)T.h3_memo);
	put(b, ", \"per_thread\": [");
	for (int t = 0; t < cfg.threads; t++)
		put(b, "%s{\"requests\": %llu, \"tcp_connections\": %llu, \"accepted\": %llu}", t ? ", " : "",
		    (unsigned long long)ctr_get(&worker_stats(t)->requests),
		    (unsigned long long)ctr_get(&worker_stats(t)->conns),
		    (unsigned long long)ctr_get(&worker_stats(t)->accepted));
	put(b, "]}\n");
}

/* The stats listener's documents: every worker's counters summed, as Prometheus text (/metrics) and as JSON (/stats.json). */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alog.h"
#include "clock.h"
#include "config.h"
#include "loop.h"
#include "stats.h"
#include "stats_out.h"
#include "worker.h"

/* every worker's counters, added up: struct wstats's layout, plain numbers */
struct tot {
	uint64_t v[sizeof(struct wstats) / sizeof(counter)];
};

_Static_assert(sizeof(struct st_hist_time) == (ST_TIME_B + 1) * sizeof(counter) &&
		       sizeof(struct st_hist_rpc) == (ST_RPC_B + 1) * sizeof(counter),
	       "a histogram is its buckets, then its sum: TOT_P walks them so");

/* the sum of <field> (its first value) */
#define TOT(T, field) ((T)->v + offsetof(struct wstats, field) / sizeof(counter))

static int64_t started_ns;
static double started_epoch;

void stats_out_init(void)
{
	struct timespec ts;

	started_ns = clock_ns();
	/* WHY here: made before the stats thread may ask; and only for it:
	 * 205 KB written, resident for good, without --stats */
	if (cfg.stats.clear_port)
		stats_page();
	clock_gettime(CLOCK_REALTIME, &ts);
	started_epoch = (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* WHY one loop: struct wstats is counters only, so its sum is theirs */
static void sum(struct tot *T)
{
	memset(T, 0, sizeof(*T));
	for (int t = 0; t < cfg.threads; t++) {
		const counter *w = (const counter *)(const void *)worker_stats(t);

		for (size_t i = 0; i < sizeof(T->v) / sizeof(T->v[0]); i++)
			T->v[i] += ctr_get(&w[i]);
	}
}

/* ---------- a growing buffer ---------- */

void stats_vput(struct sbuf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	if (b->failed)
		return;
	for (;;) {
		va_copy(aq, ap);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, aq);
		va_end(aq);
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

void stats_put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stats_vput(b, fmt, ap);
	va_end(ap);
}

/* ---------- /metrics ---------- */

static void head(struct sbuf *b, const char *name, const char *type, const char *help)
{
	stats_put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static uint64_t count_of(const uint64_t *bk, int n)
{
	uint64_t c = 0;

	for (int i = 0; i < n; i++)
		c += bk[i];
	return c;
}

/* a time histogram in seconds, cumulative buckets; its sum in us after them */
static void time_hist(struct sbuf *b, const char *name, const char *labels, const uint64_t *bk)
{
	uint64_t sum_us = bk[ST_TIME_B];
	uint64_t cum = 0;

	for (int i = 0; i < ST_TIME_B; i++) {
		cum += bk[i];
		if (i < ST_TIME_B - 1)
			stats_put(b, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, labels, *labels ? "," : "",
			    st_time_le_us[i] / 1e6, (unsigned long long)cum);
		else
			stats_put(b, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, *labels ? "," : "",
			    (unsigned long long)cum);
	}
	stats_put(b, "%s_sum%s%s%s %.6f\n%s_count%s%s%s %llu\n", name, *labels ? "{" : "", labels, *labels ? "}" : "",
	    sum_us / 1e6, name, *labels ? "{" : "", labels, *labels ? "}" : "", (unsigned long long)cum);
}

/* the sums of a [SP_MAX][n] field */
#define TOT_P(T, field, n) ((const uint64_t(*)[n])(const void *)TOT(T, field))

/* the saturation guard's rows: each worker's time out of its wait, what was ready at its last wake-up */
static void metrics_busy(struct sbuf *b)
{
	head(b, "hxterm_thread_busy_seconds_total", "counter",
	     "Time each worker thread spent in its loop's work, not waiting for events (epoll or io_uring): its rate is "
	     "the busy share, 0 to 1.");
	for (int t = 0; t < cfg.threads; t++)
		stats_put(b, "hxterm_thread_busy_seconds_total{thread=\"%d\"} %.6f\n", t,
		    ctr_get(&worker_loop(t)->busy_us) / 1e6);
	head(b, "hxterm_thread_cpu_seconds_total", "counter",
	     "CPU time of each worker thread, user and system (the kernel's work in its syscalls, which --io-uring "
	     "does in the wait): its rate is a busy share that counts no wait for the CPU.");
	for (int t = 0; t < cfg.threads; t++)
		stats_put(b, "hxterm_thread_cpu_seconds_total{thread=\"%d\"} %.6f\n", t, worker_cpu_s(t));
	head(b, "hxterm_thread_run_queue", "gauge",
	     "Events and timers (due responses: t=, d= waits) ready when each worker thread last woke up: work that "
	     "queued while it was busy.");
	for (int t = 0; t < cfg.threads; t++)
		stats_put(b, "hxterm_thread_run_queue{thread=\"%d\"} %llu\n", t,
		    (unsigned long long)ctr_get(&worker_loop(t)->ready));
}

static void metrics_requests(struct sbuf *b, const struct tot *T)
{
	const uint64_t(*resp)[10] = TOT_P(T, resp, 10), (*gen)[ST_TIME_B + 1] = TOT_P(T, gen, ST_TIME_B + 1);

	head(b, "hxterm_requests_total", "counter", "Responses sent, by protocol and status class.");
	for (int p = 0; p < SP_MAX; p++)
		for (int c = 1; c < 10; c++)
			if (c <= 5 || resp[p][c])
				stats_put(b, "hxterm_requests_total{proto=\"%s\",code=\"%dxx\"} %llu\n", st_proto_names[p], c,
				    (unsigned long long)resp[p][c]);
	head(b, "hxterm_thread_requests_total", "counter", "Requests read, by worker thread (SO_REUSEPORT balance).");
	for (int t = 0; t < cfg.threads; t++)
		stats_put(b, "hxterm_thread_requests_total{thread=\"%d\"} %llu\n", t,
		    (unsigned long long)ctr_get(&worker_stats(t)->requests));
	metrics_busy(b);
	head(b, "hxterm_generation_seconds", "histogram",
	     "From the request head in to the response head out (X-rsp's real time), by protocol.");
	for (int p = 0; p < SP_MAX; p++) {
		char l[32];

		snprintf(l, sizeof(l), "proto=\"%s\"", st_proto_names[p]);
		time_hist(b, "hxterm_generation_seconds", l, gen[p]);
	}
	head(b, "hxterm_timer_lateness_seconds", "histogram", "How late t=, d= and P= waits ended.");
	time_hist(b, "hxterm_timer_lateness_seconds", "", TOT(T, late));
}

static void metrics_conns(struct sbuf *b, const struct tot *T)
{
	const uint64_t *open = TOT(T, conn_open), *closed = TOT(T, conn_closed);
	const uint64_t(*why)[SC_MAX] = TOT_P(T, conn_why, SC_MAX), (*rpc)[ST_RPC_B + 1] = TOT_P(T, rpc, ST_RPC_B + 1);
	const uint64_t(*tls)[2] = TOT_P(T, tls, 2);

	head(b, "hxterm_connections_opened_total", "counter", "Connections, by the protocol they served.");
	for (int p = 0; p < SP_MAX; p++)
		stats_put(b, "hxterm_connections_opened_total{proto=\"%s\"} %llu\n", st_proto_names[p],
		    (unsigned long long)open[p]);
	head(b, "hxterm_connections_closed_total", "counter", "Connections ended, by protocol.");
	for (int p = 0; p < SP_MAX; p++)
		stats_put(b, "hxterm_connections_closed_total{proto=\"%s\"} %llu\n", st_proto_names[p],
		    (unsigned long long)closed[p]);
	head(b, "hxterm_connection_closes_total", "counter",
	     "Connections ended, by protocol and reason: the peer closed, the server did (keep-alive over, C=1), idle, "
	     "a timeout, a fault (x=, X=), a bad request, an error, a drain.");
	for (int p = 0; p < SP_MAX; p++)
		for (int r = 0; r < SC_MAX; r++)
			stats_put(b, "hxterm_connection_closes_total{proto=\"%s\",reason=\"%s\"} %llu\n", st_proto_names[p],
			    st_close_names[r], (unsigned long long)why[p][r]);
	head(b, "hxterm_connections_active", "gauge", "Connections open now, by protocol.");
	for (int p = 0; p < SP_MAX; p++)
		stats_put(b, "hxterm_connections_active{proto=\"%s\"} %llu\n", st_proto_names[p],
		    (unsigned long long)(open[p] > closed[p] ? open[p] - closed[p] : 0));
	head(b, "hxterm_requests_per_connection", "histogram", "Requests (streams) each ended connection carried.");
	for (int p = 0; p < SP_MAX; p++) {
		uint64_t cum = 0;

		for (int i = 0; i < ST_RPC_B; i++) {
			cum += rpc[p][i];
			if (i < ST_RPC_B - 1)
				stats_put(b, "hxterm_requests_per_connection_bucket{proto=\"%s\",le=\"%llu\"} %llu\n",
				    st_proto_names[p], (unsigned long long)st_rpc_le[i], (unsigned long long)cum);
			else
				stats_put(b, "hxterm_requests_per_connection_bucket{proto=\"%s\",le=\"+Inf\"} %llu\n",
				    st_proto_names[p], (unsigned long long)cum);
		}
		stats_put(b, "hxterm_requests_per_connection_sum{proto=\"%s\"} %llu\n"
		    "hxterm_requests_per_connection_count{proto=\"%s\"} %llu\n", st_proto_names[p],
		    (unsigned long long)rpc[p][ST_RPC_B], st_proto_names[p], (unsigned long long)cum);
	}
	head(b, "hxterm_tls_handshakes_total", "counter", "TLS handshakes over TCP, by version and resumption.");
	for (int v = 0; v < 2; v++)
		for (int r = 0; r < 2; r++)
			stats_put(b, "hxterm_tls_handshakes_total{version=\"%s\",resumed=\"%s\"} %llu\n", v ? "1.3" : "1.2",
			    r ? "true" : "false", (unsigned long long)tls[v][r]);
	head(b, "hxterm_access_log_dropped_total", "counter", "Access-log lines lost (out of memory, a write error).");
	stats_put(b, "hxterm_access_log_dropped_total %llu\n", (unsigned long long)alog_dropped());
}

/* the rows' writer into a growing buffer */
static void row_put(void *to, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stats_vput(to, fmt, ap);
	va_end(ap);
}

/* the counters of ST_ROWS, a family each */
static void metrics_rows(struct sbuf *b, const struct tot *T)
{
	const struct row_out o = { row_put, b };

	rows_metrics(&o, "hxterm_", st_rows, st_nrows, T->v);
}

void stats_metrics(struct sbuf *b)
{
	static struct tot T;

	sum(&T);
	head(b, "hxterm_info", "gauge", "The server: its version and X-rsp name.");
	stats_put(b, "hxterm_info{version=\"%s\",name=\"%.*s\",threads=\"%d\"} 1\n", HX_VERSION, (int)cfg.name_len,
	    cfg.name, cfg.threads);
	head(b, "hxterm_start_time_seconds", "gauge", "When the server started, epoch seconds.");
	stats_put(b, "hxterm_start_time_seconds %.3f\n", started_epoch);
	metrics_requests(b, &T);
	metrics_conns(b, &T);
	metrics_rows(b, &T);
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

/* a time histogram: its buckets, then its sum in us */
static void json_time(struct sbuf *b, const uint64_t *bk)
{
	uint64_t n = count_of(bk, ST_TIME_B);

	stats_put(b, "{\"count\": %llu, \"sum_us\": %llu, \"buckets\": [", (unsigned long long)n,
	    (unsigned long long)bk[ST_TIME_B]);
	for (int i = 0; i < ST_TIME_B; i++)
		stats_put(b, "%s%llu", i ? ", " : "", (unsigned long long)bk[i]);
	stats_put(b, "], \"p50_le_us\": %lld, \"p99_le_us\": %lld}", (long long)time_quantile(bk, 0.5),
	    (long long)time_quantile(bk, 0.99));
}

/* , "key": {"name": n, ...}: counts by name, those of zero left out when <sparse> */
static void json_codes(struct sbuf *b, const char *key, const uint64_t *v, const char *const *names, int n,
		       int sparse)
{
	stats_put(b, ", \"%s\": {", key);
	for (int i = 0, first = 1; i < n; i++)
		if (names[i] && (!sparse || v[i])) {
			stats_put(b, "%s\"%s\": %llu", first ? "" : ", ", names[i], (unsigned long long)v[i]);
			first = 0;
		}
	stats_put(b, "}");
}

static void json_protocol(struct sbuf *b, const struct tot *T, int p)
{
	const uint64_t *resp = TOT(T, resp[p]), *why = TOT(T, conn_why[p]), *rpc = TOT(T, rpc[p]);
	uint64_t open = TOT(T, conn_open)[p], closed = TOT(T, conn_closed)[p];
	static const char *const classes[10] = { "0xx", "1xx", "2xx", "3xx", "4xx", "5xx", "6xx", "7xx", "8xx", "9xx" };

	stats_put(b, "%s\"%s\": {\"requests\": %llu", p ? ", " : "", st_proto_names[p],
	    (unsigned long long)count_of(resp, 10));
	json_codes(b, "status", resp + 1, classes + 1, 9, 1);
	json_codes(b, "closes", why, st_close_names, SC_MAX, 1);
	stats_put(b, ", \"connections_opened\": %llu, \"connections_closed\": %llu, \"connections_active\": %llu, "
	    "\"requests_per_connection\": {\"count\": %llu, \"sum\": %llu}, \"generation\": ",
	    (unsigned long long)open, (unsigned long long)closed, (unsigned long long)(open > closed ? open - closed : 0),
	    (unsigned long long)count_of(rpc, ST_RPC_B), (unsigned long long)rpc[ST_RPC_B]);
	json_time(b, TOT(T, gen[p]));
	stats_put(b, "}");
}

/* the counters of ST_ROWS: a number, or an object by label value */
static void json_rows(struct sbuf *b, const struct tot *T)
{
	const struct row_out o = { row_put, b };

	rows_json(&o, st_rows, st_nrows, T->v, NULL);
}

void stats_snapshot(struct st_snap *s)
{
	static struct tot T;
	struct timespec ts;

	sum(&T);
	clock_gettime(CLOCK_REALTIME, &ts);
	s->t = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	s->errors = 0;
	for (int p = 0; p < SP_MAX; p++) {
		const uint64_t *resp = TOT(&T, resp[p]);
		uint64_t open = TOT(&T, conn_open)[p], closed = TOT(&T, conn_closed)[p];

		s->req[p] = count_of(resp, 10);
		s->active[p] = open > closed ? open - closed : 0;
		s->errors += resp[4] + resp[5];
	}
	memcpy(s->gen, TOT(&T, gen_fine), sizeof(s->gen));
	memcpy(s->late, TOT(&T, late_fine), sizeof(s->late));
}

void stats_json(struct sbuf *b)
{
	static struct tot T;
	const uint64_t(*tls)[2];
	uint64_t total = 0;

	sum(&T);
	tls = TOT_P(&T, tls, 2);
	stats_put(b, "{\"version\": \"%s\", \"name\": \"%.*s\", \"threads\": %d, \"uptime_s\": %.3f, \"start\": %.3f",
	    HX_VERSION, (int)cfg.name_len, cfg.name, cfg.threads, (clock_ns() - started_ns) / 1e9, started_epoch);
	stats_put(b, ", \"tcp_connections\": %llu, \"protocols\": {", (unsigned long long)*TOT(&T, conns));
	for (int p = 0; p < SP_MAX; p++) {
		total += count_of(TOT(&T, resp[p]), 10);
		json_protocol(b, &T, p);
	}
	stats_put(b, "}, \"requests\": %llu, \"time_buckets_le_us\": [", (unsigned long long)total);
	for (int i = 0; i < ST_TIME_B - 1; i++)
		stats_put(b, "%s%llu", i ? ", " : "", (unsigned long long)st_time_le_us[i]);
	stats_put(b, "], \"timer_lateness\": ");
	json_time(b, TOT(&T, late));
	stats_put(b, ", \"tls_handshakes\": {\"1.2\": %llu, \"1.3\": %llu, \"resumed\": %llu}",
	    (unsigned long long)(tls[0][0] + tls[0][1]), (unsigned long long)(tls[1][0] + tls[1][1]),
	    (unsigned long long)(tls[0][1] + tls[1][1]));
	json_rows(b, &T);
	stats_put(b, ", \"per_thread\": [");
	for (int t = 0; t < cfg.threads; t++)
		stats_put(b, "%s{\"requests\": %llu, \"tcp_connections\": %llu, \"accepted\": %llu, \"busy_s\": %.6f, "
		    "\"cpu_s\": %.6f, \"run_queue\": %llu}", t ? ", " : "",
		    (unsigned long long)ctr_get(&worker_stats(t)->requests),
		    (unsigned long long)ctr_get(&worker_stats(t)->conns),
		    (unsigned long long)ctr_get(&worker_stats(t)->accepted),
		    ctr_get(&worker_loop(t)->busy_us) / 1e6, worker_cpu_s(t),
		    (unsigned long long)ctr_get(&worker_loop(t)->ready));
	stats_put(b, "]}\n");
}

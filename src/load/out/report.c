/* hxload's report: the counters' rows, merged figures as a text table (report_json.c writes the JSON object). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "lc_idle.h"
#include "lc_reader.h"
#include "lc_report_int.h"
#include "lc_stats.h"

#define G(k, name) name,
const char *const lc_grpc_names[LC_GRPC_CODES + 1] = { LC_GRPC_LIST(G) };
#undef G
const char *const lc_err_names[E_MAX] = { "connect", "tls", "timeout", "reset", "protocol", "body" };
/* the JSON names; the text rows drop "_ms" */
const char *const lc_hist_names[H_MAX] = { "latency", "server", "other", "hit", "queue", "ttfb", "body",
					   "body_paced", "body_other", "connect", "tls", "event", "first_event",
					   "last_event", "gap_sent", "gap_recv", "requests_per_connection",
					   "events_per_second_x1000" };

#define C(g, n, f) LC_ROW(g, n, f)
const char *const lc_iv_names[IV_MAX] = { "latency", "server", "other", "body_other", "queue" };
const int lc_iv_hist[IV_MAX] = { H_LAT, H_SRV, H_OTH, H_BOTH, H_QUEUE };

static const struct row lc_counters[] = {
	C(NULL, "requests", reqs), C(NULL, "bytes", bytes), C(NULL, "non2xx", non2xx),
	C(NULL, "unexpected", unexpected), C(NULL, "interim", interim),
	C("schedule", "scheduled", scheduled), C("schedule", "sent", sent), C("schedule", "late", late),
	C("schedule", "loop_late_us", loop_late_us),
	C("schedule", "failed", failed), C("schedule", "inflight_end", inflight_end),
	C("schedule", "end_answered", end_answered), C("schedule", "end_timeout", end_timeout),
	C("schedule", "retried", retried),
	C("connections", "opened", conns), C("connections", "resumed", resumed),
	C("connections", "hello_retries", hello_retries), C("connections", "early", early),
	C("connections", "early_rejected", early_rejected), C("connections", "goaway", goaways),
	C("connections", "errors", conn_errors), C("connections", "past_goaway", past_goaway),
	C("connections", "pings", pings), C("connections", "stream_limit_changes", limit_changes),
	C("connections", "stream_limit_min", limit_min), C("connections", "stream_limit_last", limit_last),
	C("connections", "h1", by_proto[LC_H1]), C("connections", "h2", by_proto[LC_H2]),
	C("connections", "h3", by_proto[LC_H3]), C("connections", "ws", by_proto[LC_WS]),
	C("server_cpu", "us", srv_cpu_us),
	C("h3", "datagrams_in", h3.dgrams_in), C("h3", "reads", h3.reads), C("h3", "gro_reads", h3.gro_reads),
	C("h3", "datagrams_out", h3.dgrams_out), C("h3", "sends", h3.sends), C("h3", "gso_sends", h3.gso_sends),
	C("h3", "udp_drops", h3.udp_drops), C("h3", "stream_limited", h3.limited),
	C("h3", "stream_limited_us", h3.limited_us), C("h3", "max_streams_raised", h3.raised),
	C("h3", "rcvbuf_capped", h3.rcvbuf_capped),
	C("cache", "hits", hits), C("cache", "misses", misses),
};
#undef C

/* the counter rows: lc_counters, then each body reader's (lc_reader.h) */
const struct row *lc_rows(size_t i, size_t *n)
{
	if (!i) {
		*n = ARRAY_SIZE(lc_counters);
		return lc_counters;
	}
	if (i > lc_nreaders)
		return NULL;
	*n = lc_readers[i - 1]->nrows;
	/* WHY not its NULL: a reader without rows (plain) is an empty table,
	 * not the end of them */
	return lc_readers[i - 1]->rows ? lc_readers[i - 1]->rows : lc_counters;
}

void lc_stats_add(struct lc_stats *T, const struct lc_stats *s)
{
	for (int i = 0; i < H_MAX; i++)
		hist_merge(&T->h[i], &s->h[i]);
	for (int i = 0; i < LC_STATUS_MAX; i++)
		T->status[i] += s->status[i];
	for (int e = 0; e < E_MAX; e++)
		T->errors[e] += s->errors[e];
	uint64_t lmin = T->limit_min, llast = T->limit_last;

	const struct row *t;
	size_t n;

	for (size_t i = 0; (t = lc_rows(i, &n)); i++)
		rows_add(t, n, T, s);
	lc_hs_add(&T->hs, &s->hs);
	/* WHY again: the stream limit's figures are a least and a last, not sums */
	T->limit_min = !(T->limit_changes - s->limit_changes) ? s->limit_min :
		       !s->limit_changes ? lmin : MIN(lmin, s->limit_min);
	T->limit_last = s->limit_changes ? s->limit_last : llast;
}

uint64_t lc_stats_errors(const struct lc_stats *s)
{
	uint64_t n = 0;

	for (int i = 0; i < E_MAX; i++)
		n += s->errors[i];
	return n;
}

const double report_quantiles[REPORT_NQ] = { 0.5, 0.9, 0.99, 0.999, 0.9999 };
const char *const report_qnames[REPORT_NQ] = { "p50", "p90", "p99", "p999", "p9999" };

void lc_why_quote(char *buf, size_t len, const struct lc_why *w)
{
	if (w->body[0])
		snprintf(buf, len, "%s, \"%s\"", w->line[0] ? w->line : "status", w->body);
	else
		snprintf(buf, len, "%s, no body", w->line[0] ? w->line : "status");
}

/* WHY first: a run of 400s has a fast, clean latency table; the reader
 * must learn before it that it measured failures, and why */
/* WHY here, not in check.c: check reads the report's counters, and the
 * report says this first (no two files calling each other) */
int lc_mostly_unexpected(const struct lc_stats *T)
{
	return T->reqs && T->unexpected * 2 > T->reqs;
}

void lc_why_line(FILE *f, const struct lc_stats *T, const struct lc_meta *m)
{
	if (!lc_mostly_unexpected(T))
		return;
	fprintf(f, "FAILED   %llu of %llu answers (%.1f %%) were not of the expected status (%s; --expect sets it)",
		(unsigned long long)T->unexpected, (unsigned long long)T->reqs,
		100.0 * (double)T->unexpected / (double)T->reqs, m->expect[0] ? m->expect : "2xx");
	if (m->first_bad.status) {
		char q[sizeof(m->first_bad.line) + sizeof(m->first_bad.body) + 8];

		lc_why_quote(q, sizeof(q), &m->first_bad);
		fprintf(f, "; the first: %s", q);
	}
	fprintf(f, "\n");
}

/* of the answers told apart (lc_hit), the share a cache gave */
double report_hit_share(const struct lc_stats *T)
{
	return T->hits + T->misses ? (double)T->hits / (double)(T->hits + T->misses) : 0;
}

double report_mean_rpc(const struct lc_stats *T)
{
	return hist_mean(&T->h[H_RPC]);
}

/* grpc://: the calls that came to an end, with a status or without */
uint64_t report_grpc_calls(const struct lc_stats *T)
{
	uint64_t n = 0;

	for (int k = 0; k <= LC_GRPC_CODES; k++)
		n += T->grpc[k];
	return n;
}

/* grpc://: "grpc     OK 98, UNAVAILABLE 2; 400 messages" */
static void grpc_text(FILE *f, const struct lc_stats *T)
{
	const char *sep = " ";

	fprintf(f, "grpc    ");
	for (int k = 0; k <= LC_GRPC_CODES; k++)
		if (T->grpc[k]) {
			fprintf(f, "%s%s %llu", sep, lc_grpc_names[k], (unsigned long long)T->grpc[k]);
			sep = ", ";
		}
	fprintf(f, "; %llu messages\n", (unsigned long long)T->grpc_msgs);
}

/* "h3       1.02 datagrams in, 0.61 out a request; GRO 45 % of reads, ..." */
static void h3_text(FILE *f, const struct lc_stats *T)
{
	const struct lc_h3_stats *h = &T->h3;

	fprintf(f, "h3       %.2f datagrams in, %.2f out a request; GRO %.0f %% of reads, GSO %.0f %% of sends; "
		"%llu UDP drops; %llu waits on MAX_STREAMS (%.1f ms), raised %llu times\n",
		report_per_req(T, h->dgrams_in), report_per_req(T, h->dgrams_out),
		h->reads ? 100.0 * (double)h->gro_reads / (double)h->reads : 0,
		h->sends ? 100.0 * (double)h->gso_sends / (double)h->sends : 0, (unsigned long long)h->udp_drops,
		(unsigned long long)h->limited, (double)h->limited_us / 1000, (unsigned long long)h->raised);
	if (h->rcvbuf_capped)
		fprintf(f, "h3       %llu sockets' receive buffers under the --udp-rcvbuf asked (%d): net.core.rmem_max "
			"caps it (root lifts the cap)\n", (unsigned long long)h->rcvbuf_capped, lc_o->udp_rcvbuf);
}

/* the CPU time of one process per request and per MiB of body */
double report_per_req(const struct lc_stats *T, uint64_t us)
{
	return T->reqs ? (double)us / (double)T->reqs : 0;
}

double report_per_mib(const struct lc_stats *T, uint64_t us)
{
	return T->bytes ? (double)us / ((double)T->bytes / 1048576.0) : 0;
}

static void row(FILE *f, const char *name, const struct hist *h)
{
	fprintf(f, "%-10s %8.3f %8.3f %8.3f", name, h->n ? h->min / 1e3 : 0, hist_mean(h) / 1e3,
		hist_stddev(h) / 1e3);
	for (size_t i = 0; i < ARRAY_SIZE(report_quantiles); i++)
		fprintf(f, " %8.3f", hist_quantile(h, report_quantiles[i]) / 1e3);
	fprintf(f, " %8.3f\n", h->max / 1e3);
}

static void schedule_text(FILE *f, const struct lc_stats *T, const struct lc_meta *m)
{
	if (m->target_rps > 0)
		fprintf(f, "schedule target %.1f req/s: %llu due, %llu sent (%.1f/s), %llu late (over 1 ms), "
			"%llu never sent\n", m->target_rps, (unsigned long long)T->scheduled,
			(unsigned long long)T->sent, T->sent / m->secs, (unsigned long long)T->late,
			(unsigned long long)(T->scheduled > T->sent ? T->scheduled - T->sent : 0));
	if (T->failed || T->inflight_end)
		fprintf(f, "sent     %llu: %llu answered, %llu failed, %llu in flight at the end (%llu answered "
			"after it, %llu unanswered)\n", (unsigned long long)T->sent,
			(unsigned long long)T->reqs, (unsigned long long)T->failed,
			(unsigned long long)T->inflight_end, (unsigned long long)T->end_answered,
			(unsigned long long)T->end_timeout);
}

void lc_report_text(FILE *f, const struct lc_stats *T, const struct lc_meta *m)
{
	static const char *const pn[LC_NPROTO] = { "", "h1", "h2", "h3", "ws" };
	uint64_t errs = lc_stats_errors(T);

	lc_why_line(f, T, m);
	if (m->label[0])
		fprintf(f, "label    %s%s\n", m->label, m->runs > 1 ? " (merged)" : "");
	if (m->runs > 1)
		fprintf(f, "runs     %d merged\n", m->runs);
	fprintf(f, "requests %llu in %.2f s: %.1f req/s, %.2f MB/s, %llu errors, %llu non-2xx\n",
		(unsigned long long)T->reqs, m->secs, T->reqs / m->secs, T->bytes / m->secs / 1e6,
		(unsigned long long)errs, (unsigned long long)T->non2xx);
	schedule_text(f, T, m);
	fprintf(f, "conns    %llu opened", (unsigned long long)T->conns);
	for (int p = LC_H1; p < LC_NPROTO; p++)
		if (T->by_proto[p])
			fprintf(f, ", %s %llu", pn[p], (unsigned long long)T->by_proto[p]);
	fprintf(f, "; %.1f requests each; %llu TLS resumed", report_mean_rpc(T), (unsigned long long)T->resumed);
	if (T->hello_retries)
		fprintf(f, "; %llu retried by the server for its key-share group (HelloRetryRequest)",
			(unsigned long long)T->hello_retries);
	if (T->early || T->early_rejected)
		fprintf(f, "; 0-RTT taken on %llu, refused on %llu (their requests sent again)",
			(unsigned long long)T->early, (unsigned long long)T->early_rejected);
	if (T->goaways)
		fprintf(f, "; %llu ended by the server's graceful GOAWAY (h1: Connection: close)", (unsigned long long)T->goaways);
	fprintf(f, "\n");
	if (T->retried)
		fprintf(f, "retried  %llu requests the server refused unprocessed (REFUSED_STREAM, at or above a "
			"GOAWAY's stream id, TLS early data refused), sent again: no error\n", (unsigned long long)T->retried);
	if (T->pings || T->limit_changes)
		fprintf(f, "h2       %llu PINGs from the server; its stream limit changed %llu times, to %llu at least, "
			"%llu last\n", (unsigned long long)T->pings, (unsigned long long)T->limit_changes,
			(unsigned long long)T->limit_min, (unsigned long long)T->limit_last);
	if (T->past_goaway)
		fprintf(f, "ERROR    %llu frames of streams above the server's own GOAWAY (its last stream id): a server "
			"bug\n", (unsigned long long)T->past_goaway);
	if (T->interim)
		fprintf(f, "interim  %llu 1xx heads before answers (103 Early Hints, 100 Continue), passed over\n",
			(unsigned long long)T->interim);
	if (T->by_proto[LC_H3])
		h3_text(f, T);
	if (T->srv_cpu_us)
		fprintf(f, "server   CPU %.3f s: %.2f us per request, %.1f us per MiB\n", T->srv_cpu_us / 1e6,
			report_per_req(T, T->srv_cpu_us), report_per_mib(T, T->srv_cpu_us));
	else if (lc_o->server_pid)
		fprintf(f, "server   CPU: pid %d used none in the window (is it the server?)\n", lc_o->server_pid);
	for (int i = 0; i < m->npids; i++)
		fprintf(f, "cpu      %s (pid %d): %.3f s, %.2f us per request, %.1f us per MiB\n", m->cpu[i].name,
			m->cpu[i].pid, m->cpu[i].us / 1e6, report_per_req(T, m->cpu[i].us), report_per_mib(T, m->cpu[i].us));
	lc_idle_text(f);
	if (T->verified)
		fprintf(f, "verified %llu bodies, %llu bytes, byte for byte\n", (unsigned long long)T->verified,
			(unsigned long long)T->verified_bytes);
	if (errs) {
		fprintf(f, "errors   %llu: %llu requests failed, %llu unanswered at the end, %llu connections failed "
			"before a request;", (unsigned long long)errs, (unsigned long long)T->failed,
			(unsigned long long)T->end_timeout, (unsigned long long)T->conn_errors);
		for (int i = 0; i < E_MAX; i++)
			if (T->errors[i])
				fprintf(f, " %s %llu", lc_err_names[i], (unsigned long long)T->errors[i]);
		fprintf(f, "\n");
	}
	fprintf(f, "status  ");
	for (int s = 0; s < LC_STATUS_MAX; s++)
		if (T->status[s])
			fprintf(f, " %d: %llu", s, (unsigned long long)T->status[s]);
	fprintf(f, "\n");
	if (report_grpc_calls(T))
		grpc_text(f, T);
	fprintf(f, "%-10s %8s %8s %8s %8s %8s %8s %8s %8s %8s  (ms)\n", "", "min", "mean", "stddev", "p50", "p90",
		"p99", "p99.9", "p99.99", "max");
	for (int i = 0; i < H_RPC; i++)
		if (i == H_LAT || T->h[i].n)
			row(f, lc_hist_names[i], &T->h[i]);
	if (!T->hits && T->misses)
		fprintf(f, "cache    no hits: the %llu answers with X-Hxterm-Made were all fresh\n",
			(unsigned long long)T->misses);
	else if (T->hits)
		fprintf(f, "cache    hits %llu, misses %llu (%.1f %% hits: X-Hxterm-Made and X-rsp repeated); the server "
			"and other rows are the misses', the hit row the hits' latency\n", (unsigned long long)T->hits,
			(unsigned long long)T->misses, 100.0 * report_hit_share(T));
	lc_sse_text(f, T);
	if (m->probe.ok)
		fprintf(f, "probe    %g req/s on its own connection, beside the load: %llu requests, %llu errors; latency "
			"p50 %.3f, p90 %.3f, p99 %.3f, p99.9 %.3f, max %.3f ms\n", m->probe.rate,
			(unsigned long long)m->probe.requests, (unsigned long long)m->probe.errors, m->probe.p50,
			m->probe.p90, m->probe.p99, m->probe.p999, m->probe.max);
	lc_hs_text(f, T, m);
}

/* hxload's report as one JSON object: the run's meta, counters by group, percentiles, the full histograms (so runs merge) and the intervals. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "hist_json.h"
#include "lc_idle.h"
#include "lc_report_int.h"
#include "lc_stats.h"

/* a JSON string: quotes, backslashes, controls and '<' escaped (the HTML
 * report embeds it in a script element) */
void lc_jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&')
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void pct_json(FILE *f, const char *name, const struct hist *h)
{
	fprintf(f, ", \"%s_ms\": {\"n\": %llu, \"min\": %.3f, \"mean\": %.3f, \"stddev\": %.3f", name,
		(unsigned long long)h->n, h->n ? h->min / 1e3 : 0, hist_mean(h) / 1e3, hist_stddev(h) / 1e3);
	for (size_t i = 0; i < ARRAY_SIZE(report_quantiles); i++)
		fprintf(f, ", \"%s\": %.3f", report_qnames[i], hist_quantile(h, report_quantiles[i]) / 1e3);
	fprintf(f, ", \"max\": %.3f}", h->max / 1e3);
}

static void iso_time(char *buf, size_t n, double t)
{
	time_t s = (time_t)t;
	struct tm tm;

	gmtime_r(&s, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + 19, n - 19, ".%03dZ", (int)((t - (double)s) * 1000));
}

static void meta_json(FILE *f, const struct lc_meta *m)
{
	char a[40], b[40];

	iso_time(a, sizeof(a), m->start);
	iso_time(b, sizeof(b), m->end);
	fprintf(f, "{\"hxload\": 1, \"label\": ");
	lc_jstr(f, m->label);
	fprintf(f, ", \"url\": ");
	lc_jstr(f, m->url);
	fprintf(f, ", \"options\": ");
	lc_jstr(f, m->cmdline);
	fprintf(f, ", \"version\": ");
	lc_jstr(f, m->version);
	fprintf(f, ", \"host\": ");
	lc_jstr(f, m->host);
	fprintf(f, ", \"runs\": %d, \"start\": %.6f, \"end\": %.6f, \"start_iso\": \"%s\", \"end_iso\": \"%s\"",
		m->runs, m->start, m->end, a, b);
}

/* the statuses that are right and the first answer of another */
static void why_json(FILE *f, const struct lc_meta *m)
{
	fprintf(f, ", \"expect\": ");
	lc_jstr(f, m->expect[0] ? m->expect : "2xx");
	lc_why_json(f, &m->first_bad);
}

void lc_why_json(FILE *f, const struct lc_why *w)
{
	if (!w->status)
		return;
	fprintf(f, ", \"first_unexpected\": {\"status\": %u, \"line\": ", w->status);
	lc_jstr(f, w->line);
	fprintf(f, ", \"body\": ");
	lc_jstr(f, w->body);
	fprintf(f, "}");
}

/* the counters of <group> (NULL: the top level's), each as ", \"name\": n" */
static void counters_json(FILE *f, const struct lc_stats *T, const char *group)
{
	const struct row_out o = { rows_fput, f };
	const struct row *t;
	size_t n;

	for (size_t i = 0; (t = lc_rows(i, &n)); i++)
		rows_json(&o, t, n, T, group);
}

/* h3: what the client saw of QUIC (zeros when no h3 connection) */
static void h3_json(FILE *f, const struct lc_stats *T)
{
	fprintf(f, ", \"h3\": {\"datagrams_in_per_request\": %.3f, \"datagrams_out_per_request\": %.3f, "
		"\"window_stream\": %u, \"window_connection\": %u", report_per_req(T, T->h3.dgrams_in),
		report_per_req(T, T->h3.dgrams_out), lc_h3_window(), (unsigned)lc_o->h3_conn_window);
	counters_json(f, T, "h3");
	fprintf(f, "}");
}

/* the intervals, each with its latency histogram: hxload compare
 * resamples them */
static void intervals_json(FILE *f, const struct lc_series *s, uint64_t start)
{
	fprintf(f, ", \"intervals\": [");
	for (size_t i = 0; i < s->n; i++) {
		const struct lc_ival *v = &s->v[i];

		fprintf(f, "%s{\"t\": %.3f, \"seconds\": %.6f, \"requests\": %llu, \"errors\": %llu, "
			"\"bytes\": %llu, \"server_cpu_us\": %llu, \"hits\": %llu, \"misses\": %llu", i ? ", " : "",
			(double)(v->to_us - start) / 1e6, (double)(v->to_us - v->from_us) / 1e6,
			(unsigned long long)v->reqs, (unsigned long long)v->errors, (unsigned long long)v->bytes,
			(unsigned long long)v->srv_cpu_us, (unsigned long long)v->hits, (unsigned long long)v->misses);
		for (int k = 0; k < IV_MAX; k++)
			lc_hist_json(f, lc_iv_names[k], &v->h[k], 0);
		fprintf(f, "}");
	}
	fprintf(f, "]");
}

static void server_cpu_json(FILE *f, const struct lc_stats *T)
{
	if (!T->srv_cpu_us)
		return;
	fprintf(f, ", \"server_cpu\": {\"us_per_request\": %.3f, \"us_per_mib\": %.3f",
		report_per_req(T, T->srv_cpu_us), report_per_mib(T, T->srv_cpu_us));
	counters_json(f, T, "server_cpu");
	fprintf(f, "}");
}

/* --pid: each named process's CPU in the window */
static void named_cpu_json(FILE *f, const struct lc_stats *T, const struct lc_meta *m)
{
	if (!m->npids)
		return;
	fprintf(f, ", \"cpu\": {");
	for (int i = 0; i < m->npids; i++)
		fprintf(f, "%s\"%s\": {\"pid\": %d, \"us\": %llu, \"us_per_request\": %.3f, \"us_per_mib\": %.3f}",
			i ? ", " : "", m->cpu[i].name, m->cpu[i].pid, (unsigned long long)m->cpu[i].us,
			report_per_req(T, m->cpu[i].us), report_per_mib(T, m->cpu[i].us));
	fprintf(f, "}");
}

void lc_report_json(FILE *f, const struct lc_stats *T, const struct lc_meta *m, int full, const struct lc_series *ser)
{
	int first = 1;

	meta_json(f, m);
	counters_json(f, T, NULL);
	fprintf(f, ", \"seconds\": %.6f, \"requests_per_second\": %.1f, \"bytes_per_second\": %.1f, "
		"\"errors_total\": %llu, \"errors\": {", m->secs, T->reqs / m->secs, T->bytes / m->secs,
		(unsigned long long)lc_stats_errors(T));
	for (int i = 0; i < E_MAX; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "", lc_err_names[i], (unsigned long long)T->errors[i]);
	fprintf(f, "}, \"status\": {");
	for (int s = 0; s < LC_STATUS_MAX; s++)
		if (T->status[s]) {
			fprintf(f, "%s\"%d\": %llu", first ? "" : ", ", s, (unsigned long long)T->status[s]);
			first = 0;
		}
	fprintf(f, "}, \"schedule\": {\"target_rps\": %.3f, \"sent_per_second\": %.1f, \"unsent\": %llu",
		m->target_rps, T->sent / m->secs,
		(unsigned long long)(T->scheduled > T->sent ? T->scheduled - T->sent : 0));
	counters_json(f, T, "schedule");
	fprintf(f, "}, \"connections\": {\"requests_per_connection\": %.2f", report_mean_rpc(T));
	counters_json(f, T, "connections");
	fprintf(f, "}, \"verify\": {\"share\": %.4f", T->reqs ? (double)T->verified / (double)T->reqs : 0);
	counters_json(f, T, "verify");
	fprintf(f, "}, \"events\": {");
	lc_sse_json(f, T);
	counters_json(f, T, "events");
	fprintf(f, "}, \"grpc\": {\"calls\": %llu", (unsigned long long)report_grpc_calls(T));
	counters_json(f, T, "grpc");
	fprintf(f, "}, \"cache\": {\"report_hit_share\": %.4f", report_hit_share(T));
	counters_json(f, T, "cache");
	fprintf(f, "}");
	h3_json(f, T);
	if (m->probe.ok)
		fprintf(f, ", \"probe\": {\"rate\": %g, \"requests\": %llu, \"errors\": %llu, \"latency_ms\": "
			"{\"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f, \"p999\": %.3f, \"max\": %.3f}}",
			m->probe.rate, (unsigned long long)m->probe.requests, (unsigned long long)m->probe.errors,
			m->probe.p50, m->probe.p90, m->probe.p99, m->probe.p999, m->probe.max);
	if (m->ignored[0]) {
		fprintf(f, ", \"server_ignored_keys\": ");
		lc_jstr(f, m->ignored);
	}
	why_json(f, m);
	server_cpu_json(f, T);
	named_cpu_json(f, T, m);
	lc_hs_json(f, T, m);
	lc_idle_json(f);
	for (int i = 0; i < H_RPC; i++)
		if (i == H_LAT || T->h[i].n)
			pct_json(f, lc_hist_names[i], &T->h[i]);
	if (full) {
		fprintf(f, ", \"histograms\": {");
		for (int i = 0; i < H_MAX; i++)
			lc_hist_json(f, lc_hist_names[i], &T->h[i], !i);
		fprintf(f, "}");
	}
	if (ser && ser->n)
		intervals_json(f, ser, ser->v[0].from_us);
	fprintf(f, "}\n");
}

void lc_ival_json(FILE *f, const struct lc_ival *v, uint64_t start_us, unsigned k)
{
	double secs = (double)(v->to_us - v->from_us) / 1e6;

	if (secs <= 0)
		secs = 1e-6;
	fprintf(f, "{\"interval\": %u, \"t\": %.3f, \"seconds\": %.3f, \"requests\": %llu, "
		"\"requests_per_second\": %.1f, \"errors\": %llu, \"bytes_per_second\": %.1f, \"p50\": %.3f, "
		"\"p90\": %.3f, \"p99\": %.3f, \"max\": %.3f, \"hits\": %llu, \"misses\": %llu}\n", k,
		(double)(v->to_us - start_us) / 1e6, secs, (unsigned long long)v->reqs, v->reqs / secs,
		(unsigned long long)v->errors, v->bytes / secs, hist_quantile(&v->h[IV_LAT], 0.5) / 1e3,
		hist_quantile(&v->h[IV_LAT], 0.9) / 1e3, hist_quantile(&v->h[IV_LAT], 0.99) / 1e3,
		v->h[IV_LAT].max / 1e3, (unsigned long long)v->hits, (unsigned long long)v->misses);
	fflush(f);
}

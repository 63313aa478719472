/* hxload --handshakes' report: handshakes/s and the parts' percentiles by kind, declined tickets, alerts, CPU per handshake. */
#include <stdio.h>

#include "common.h"
#include "lc_hs.h"
#include "lc_stats.h"
#include "lc_tls.h"
#include "hist_json.h"

static const char *const part_names[HSP_MAX] = { "connect", "tls", "first_byte" };
static const char *const kind_words[HS_KINDS] = { "full", "resumed", "0-RTT" };

static uint64_t done(const struct lc_hs_stats *s)
{
	return s->got[HS_FULL] + s->got[HS_RESUMED] + s->got[HS_0RTT];
}

/* --handshakes, or runs of it merged */
static int shown(const struct lc_hs_stats *s)
{
	return lc_o->hs || s->asked[HS_FULL] + s->asked[HS_RESUMED] + s->asked[HS_0RTT];
}

static void alerts_text(FILE *f, const struct lc_hs_stats *s)
{
	fprintf(f, "hs fail  %llu handshakes failed:", (unsigned long long)s->failed);
	for (int a = 0; a < 257; a++)
		if (s->alerts[a])
			fprintf(f, " %s %llu;", a == 256 ? "no alert" : lc_tls_alert_name(a),
				(unsigned long long)s->alerts[a]);
	fprintf(f, "\n");
}

static void cpu_text(FILE *f, const struct lc_stats *T, const struct lc_meta *m, uint64_t n)
{
	double busy = m->runs > 1 ? -1 : lc_hs_busy(), srv = lc_hs_server_busy(T, m);

	if (T->srv_cpu_us && n) {
		fprintf(f, "hs cpu   server %.1f us per handshake", (double)T->srv_cpu_us / (double)n);
		if (srv >= 0)
			fprintf(f, ", %.0f %% of the CPUs it can use%s", 100 * srv,
				srv > 0.9 ? ": the server was the limit, not the client" : "");
		fprintf(f, "\n");
	}
	for (int i = 0; i < m->npids && n; i++)
		fprintf(f, "hs cpu   %s (pid %d) %.1f us per handshake\n", m->cpu[i].name, m->cpu[i].pid,
			(double)m->cpu[i].us / (double)n);
	if (busy >= 0)
		fprintf(f, "hs cpu   hxload %.0f %% of its %d thread(s)%s\n", 100 * busy, lc_o->threads,
			busy > 0.9 ? ": the client was the limit, not the server" : "");
}

void lc_hs_text(FILE *f, const struct lc_stats *T, const struct lc_meta *m)
{
	const struct lc_hs_stats *s = &T->hs;
	uint64_t n = done(s);

	if (!shown(s))
		return;
	fprintf(f, "hs       %llu handshakes, %.1f/s; asked full %llu, resumed %llu, 0-RTT %llu; got", (unsigned long long)n,
		n / m->secs, (unsigned long long)s->asked[HS_FULL], (unsigned long long)s->asked[HS_RESUMED],
		(unsigned long long)s->asked[HS_0RTT]);
	for (int k = 0; k < HS_KINDS; k++)
		fprintf(f, "%s %s %llu (%.1f/s)", k ? "," : "", kind_words[k], (unsigned long long)s->got[k],
			s->got[k] / m->secs);
	fprintf(f, "\n");
	if (s->declined || s->no_early)
		fprintf(f, "hs       asked resumed, got full: %llu (%llu with no ticket yet to offer); asked 0-RTT, got "
			"resumed without early data: %llu\n", (unsigned long long)s->declined,
			(unsigned long long)s->no_ticket, (unsigned long long)s->no_early);
	if (s->failed)
		alerts_text(f, s);
	fprintf(f, "%-18s %8s %8s %8s %8s %8s %8s  (ms; first_byte from connect())\n", "", "min", "mean", "p50", "p90",
		"p99", "max");
	for (int k = 0; k < HS_KINDS; k++)
		for (int p = 0; p < HSP_MAX; p++) {
			const struct hist *h = &s->h[k][p];

			if (!h->n)
				continue;
			fprintf(f, "%-7s %-10s %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f\n", kind_words[k], part_names[p],
				h->min / 1e3, hist_mean(h) / 1e3, hist_quantile(h, 0.5) / 1e3,
				hist_quantile(h, 0.9) / 1e3, hist_quantile(h, 0.99) / 1e3, h->max / 1e3);
		}
	cpu_text(f, T, m, n);
}

static void kind_json(FILE *f, const struct lc_hs_stats *s, int k, double secs)
{
	fprintf(f, "%s\"%s\": {\"asked\": %llu, \"got\": %llu, \"per_second\": %.1f", k ? ", " : "", lc_hs_names[k],
		(unsigned long long)s->asked[k], (unsigned long long)s->got[k], s->got[k] / secs);
	for (int p = 0; p < HSP_MAX; p++) {
		const struct hist *h = &s->h[k][p];

		fprintf(f, ", \"%s_ms\": {\"n\": %llu, \"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f, \"max\": %.3f}",
			part_names[p], (unsigned long long)h->n, hist_quantile(h, 0.5) / 1e3,
			hist_quantile(h, 0.9) / 1e3, hist_quantile(h, 0.99) / 1e3, h->max / 1e3);
	}
	fprintf(f, ", \"raw\": {"); /* WHY: hxload merge adds them up (runs.c) */
	for (int p = 0; p < HSP_MAX; p++)
		lc_hist_json(f, part_names[p], &s->h[k][p], !p);
	fprintf(f, "}}");
}

void lc_hs_json(FILE *f, const struct lc_stats *T, const struct lc_meta *m)
{
	const struct lc_hs_stats *s = &T->hs;
	uint64_t n = done(s);
	int first = 1;

	if (!shown(s))
		return;
	fprintf(f, ", \"handshakes\": {\"n\": %llu, \"per_second\": %.1f, \"asked_resumed_got_full\": %llu, "
		"\"no_ticket\": %llu, \"asked_0rtt_got_resumed\": %llu, \"failed\": %llu, \"client_busy\": %.3f",
		(unsigned long long)n, n / m->secs, (unsigned long long)s->declined, (unsigned long long)s->no_ticket,
		(unsigned long long)s->no_early, (unsigned long long)s->failed, m->runs > 1 ? -1 : lc_hs_busy());
	if (T->srv_cpu_us && n)
		fprintf(f, ", \"server_cpu_us\": %.1f, \"server_busy\": %.3f", (double)T->srv_cpu_us / (double)n,
			lc_hs_server_busy(T, m));
	fprintf(f, ", \"alerts\": {");
	for (int a = 0; a < 257; a++)
		if (s->alerts[a]) {
			/* WHY no lc_jstr: the names are OpenSSL's plain words (and report.c calls here) */
			fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", a == 256 ? "none" : lc_tls_alert_name(a),
				(unsigned long long)s->alerts[a]);
			first = 0;
		}
	fprintf(f, "}, \"cpu_us\": {");
	for (int i = 0; i < m->npids; i++)
		fprintf(f, "%s\"%s\": %.1f", i ? ", " : "", m->cpu[i].name, n ? (double)m->cpu[i].us / (double)n : 0);
	fprintf(f, "}, \"kinds\": {");
	for (int k = 0; k < HS_KINDS; k++)
		kind_json(f, s, k, m->secs);
	fprintf(f, "}}");
}

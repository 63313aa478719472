/* hxload's --html report: one self-contained page (the run's JSON inline, charts drawn by the embedded Chart.js). */
#include <stdio.h>

#include "chart_js.h"
#include "common.h"
#include "lc_stats.h"

/* the quantiles of the spectrum chart: evenly spaced on a log(1/(1-q)) axis */
static const double spectrum_q[] = { 0, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999,
				     0.99999, 1 };

void lc_html_spectrum(FILE *f, const char *name, const struct hist *h, int first)
{
	fprintf(f, "%s\"%s\": [", first ? "" : ", ", name);
	for (size_t i = 0; i < ARRAY_SIZE(spectrum_q) && h->n; i++) {
		double q = spectrum_q[i];
		uint64_t v = q == 0 ? h->min : q == 1 ? h->max : hist_quantile(h, q);

		fprintf(f, "%s[%g, %.3f]", i ? ", " : "", q, v / 1e3);
	}
	fprintf(f, "]");
}

static void series(FILE *f, const struct lc_series *s, uint64_t start)
{
	fprintf(f, "[");
	for (size_t i = 0; s && i < s->n; i++) {
		const struct lc_ival *v = &s->v[i];
		double secs = (double)(v->to_us - v->from_us) / 1e6;

		fprintf(f, "%s{\"t\": %.3f, \"rps\": %.1f, \"errors\": %llu, \"p50\": %.3f, \"p99\": %.3f, "
			"\"max\": %.3f}", i ? ", " : "", (double)(v->to_us - start) / 1e6,
			secs > 0 ? v->reqs / secs : 0, (unsigned long long)v->errors,
			hist_quantile(&v->h[IV_LAT], 0.5) / 1e3, hist_quantile(&v->h[IV_LAT], 0.99) / 1e3,
			v->h[IV_LAT].max / 1e3);
	}
	fprintf(f, "]");
}

void lc_html_scripts(FILE *f)
{
	fputs("</script>\n<script>\n", f);
	fputs(chartjs_lib, f);
	fputs("\n</script>\n<script>\n", f);
	fputs(chart_js, f);
}

void lc_html_open(FILE *f, const char *title)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>%s</title>\n<style>\n",
		title);
	fputs(chart_css, f);
	fputs("</style></head><body>\n", f);
}

static const char page_body[] =
"<h1>hxload report</h1>\n<p class=\"meta\" id=\"meta\"></p>\n"
"<div id=\"warning\" role=\"alert\" hidden style=\"border: 3px solid #c0392b; background: #fdecea; color: #611; "
"padding: 0.6em 1em; margin: 0.6em 0; font-weight: bold\"></div>\n"
"<table id=\"summary\"></table>\n"
"<p class=\"hint\">Hover a chart for its values; drag across a line chart to zoom, double-click to see it "
"whole; click a legend entry to hide its series.</p>\n"
"<h2>Latency over time</h2><canvas id=\"timeline\" width=\"960\" height=\"260\"></canvas>\n"
"<h2>Requests per second</h2><canvas id=\"rate\" width=\"960\" height=\"200\"></canvas>\n"
"<h2>Percentile spectrum</h2><canvas id=\"spectrum\" width=\"960\" height=\"300\"></canvas>\n"
"<h2>Server time, the body's pacing, and the rest</h2><canvas id=\"split\" width=\"960\" height=\"170\"></canvas>\n"
"<h2>Statuses and errors</h2><canvas id=\"counts\" width=\"960\" height=\"200\"></canvas>\n"
"<script id=\"data\" type=\"application/json\">\n";

/* the report's own charts, after chart_js */
static const char page_script[] =
"const D = JSON.parse(document.getElementById('data').textContent), R = D.report;\n"
"document.getElementById('meta').textContent = (R.label ? R.label + ' \\u2014 ' : '') + R.url +\n"
"  ' \\u2014 ' + R.start_iso + ' to ' + R.end_iso + ' \\u2014 ' + R.host + ' \\u2014 hxload ' + R.version +\n"
"  (R.runs > 1 ? ' \\u2014 ' + R.runs + ' runs merged' : '') + ' \\u2014 ' + R.options;\n"
"(function warning() {\n"
"  // WHY first: a run of errors draws fast, healthy charts; the reader must know before them\n"
"  if (!(R.unexpected * 2 > R.requests)) return;\n"
"  const w = document.getElementById('warning'), b = R.first_unexpected;\n"
"  w.textContent = 'This run measured failures: ' + R.unexpected + ' of ' + R.requests + ' answers (' +\n"
"    (100 * R.unexpected / R.requests).toFixed(1) + ' %) were not of the expected status (' + R.expect + ').' +\n"
"    (b ? ' The first: ' + (b.line || 'status ' + b.status) + (b.body ? ', \\u201c' + b.body + '\\u201d.' : ', no body.') : '') + ' Its latency is that of the failures.';\n"
"  w.hidden = false;\n"
"})();\n"
"(function summary() {\n"
"  const t = document.getElementById('summary');\n"
"  const rows = [['requests', R.requests], ['seconds', R.seconds.toFixed(2)],\n"
"    ['requests per second', R.requests_per_second.toFixed(1)], ['errors', R.errors_total],\n"
"    ['non-2xx', R.non2xx], ['unexpected status', R.unexpected + ' (expected: ' + R.expect + ')'],\n"
"    ['connections', R.connections.opened]];\n"
"  if (R.schedule.target_rps > 0) rows.push(['target rate', R.schedule.target_rps.toFixed(1)],\n"
"    ['late', R.schedule.late], ['never sent', R.schedule.unsent]);\n"
"  if (R.verify && R.verify.bodies) rows.push(['verified', R.verify.bodies + ' bodies, ' + R.verify.bytes +\n"
"    ' bytes checked byte by byte (' + (100 * R.verify.share).toFixed(1) + ' % of the answers), ' + (R.errors.body || 0) + ' wrong']);\n"
"  else rows.push(['verified', 'no (--verify checks every body byte)']);\n"
"  if (R.server_cpu) rows.push(['server CPU', R.server_cpu.us_per_request.toFixed(2) + ' us per request, ' +\n"
"    R.server_cpu.us_per_mib.toFixed(1) + ' us per MiB']);\n"
"  for (const n in (R.cpu || {})) rows.push([n + ' CPU', R.cpu[n].us_per_request.toFixed(2) + ' us per request, ' +\n"
"    R.cpu[n].us_per_mib.toFixed(1) + ' us per MiB (pid ' + R.cpu[n].pid + ')']);\n"
"  if (R.probe) rows.push(['probe', R.probe.rate + ' req/s beside the load: p50 ' + R.probe.latency_ms.p50.toFixed(3) +\n"
"    ', p99 ' + R.probe.latency_ms.p99.toFixed(3) + ' ms']);\n"
"  if (R.cache && (R.cache.hits || R.cache.misses)) rows.push(['cache', R.cache.hits + ' hits, ' + R.cache.misses +\n"
"    ' misses (' + (100 * R.cache.hit_share).toFixed(1) + ' % hits); server and other are the misses\\u2019']);\n"
"  if (R.events && R.events.n) rows.push(['events', R.events.n + ', ' + R.events.bunched + ' came bunched']);\n"
"  if (R.first_event_ms && R.gap_sent_ms) rows.push(['streams', R.events.streams + ': first event p50 ' +\n"
"    R.first_event_ms.p50.toFixed(3) + ' ms; gaps p50 ' + R.gap_sent_ms.p50.toFixed(3) + ' sent, ' + R.gap_recv_ms.p50.toFixed(3) +\n"
"    ' received, p99 ' + R.gap_sent_ms.p99.toFixed(3) + ' / ' + R.gap_recv_ms.p99.toFixed(3) + ' ms; ' +\n"
"    R.events.per_second_p50.toFixed(1) + ' events/s']);\n"
"  if (R.grpc && R.grpc.calls) rows.push(['gRPC calls', Object.keys(R.grpc).filter(k => k !== 'calls' && k !== 'messages' &&\n"
"    R.grpc[k]).map(k => k + ' ' + R.grpc[k]).join(', ') + '; ' + R.grpc.messages + ' messages']);\n"
"  const q = R.h3;\n"
"  if (q && R.connections.h3) rows.push(['HTTP/3', q.datagrams_in_per_request.toFixed(2) + ' datagrams in, ' +\n"
"    q.datagrams_out_per_request.toFixed(2) + ' out a request; GRO on ' + q.gro_reads + ' of ' + q.reads + ' reads, GSO on ' +\n"
"    q.gso_sends + ' of ' + q.sends + ' sends; ' + q.udp_drops + ' UDP drops; ' + q.stream_limited + ' waits on MAX_STREAMS (' +\n"
"    (q.stream_limited_us / 1000).toFixed(1) + ' ms), raised ' + q.max_streams_raised + ' times; windows ' +\n"
"    q.window_stream + ' B a stream, ' + q.window_connection + ' B the connection' +\n"
"    (q.rcvbuf_capped ? '; ' + q.rcvbuf_capped + ' sockets with a receive buffer under --udp-rcvbuf (rmem_max)' : '')]);\n"
"  const hs = R.handshakes;\n"
"  if (hs) rows.push(['handshakes', hs.n + ' (' + hs.per_second.toFixed(1) + '/s): ' + ['full', 'resumed', '0rtt'].map(k =>\n"
"    k + ' ' + hs.kinds[k].got + ' (TLS p50 ' + hs.kinds[k].tls_ms.p50.toFixed(3) + ' ms, first byte p50 ' +\n"
"    hs.kinds[k].first_byte_ms.p50.toFixed(3) + ' ms)').join(', ') + '; asked resumed, got full ' + hs.asked_resumed_got_full +\n"
"    '; failed ' + hs.failed]);\n"
"  let h = '';\n"
"  for (const r of rows) h += '<tr><td>' + r[0] + '</td><td id=\"sum-' + r[0].replace(/ /g, '-') + '\"></td></tr>';\n"
"  h += '<tr><th>ms</th><th>min</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr>';\n"
"  for (const n of ['latency', 'queue', 'ttfb', 'server', 'other', 'hit', 'body', 'body_paced', 'body_other', 'connect', 'tls', 'event']) {\n"
"    const s = R[n + '_ms'];\n"
"    if (!s || !s.n) continue;\n"
"    h += '<tr><td>' + n + '</td>' + ['min', 'mean', 'p50', 'p90', 'p99', 'p999', 'max'].map(k =>\n"
"      '<td id=\"' + n + '-' + k + '\">' + s[k].toFixed(3) + '</td>').join('') + '</tr>';\n"
"  }\n"
"  t.innerHTML = h;\n"
"  for (const r of rows) document.getElementById('sum-' + r[0].replace(/ /g, '-')).textContent = r[1];\n"
"})();\n"
"(function timeline() {\n"
"  const s = D.series;\n"
"  lines('timeline', [{name: 'p50', pts: s.map(v => [v.t, v.p50])}, {name: 'p99', pts: s.map(v => [v.t, v.p99])},\n"
"    {name: 'max', pts: s.map(v => [v.t, v.max])}], {x: 'lin', xlabel: 'time', xunit: 's', ylabel: 'ms'});\n"
"  lines('rate', [{name: 'req/s', pts: s.map(v => [v.t, v.rps])}, {name: 'errors', pts: s.map(v => [v.t, v.errors])}],\n"
"    {x: 'lin', xlabel: 'time', xunit: 's', ylabel: 'per second', unit: '/s'});\n"
"  if (!s.length) document.getElementById('timeline').insertAdjacentText('beforebegin', 'No time series (a merged report). ');\n"
"})();\n"
"(function spectrum() {\n"
"  const mk = n => ({name: n, pts: (D.spectrum[n] || []).filter(p => p[0] < 1).map(p => [p[0], p[1], {'data-q': p[0]}])});\n"
"  lines('spectrum', [mk('latency'), mk('server'), mk('other'), mk('hit')], {x: 'pct', xlabel: 'percentile', ylabel: 'ms'});\n"
"})();\n"
"(function split() {\n"
"  const items = [];\n"
"  const col = {server: COL[0], other: COL[1], body_paced: COL[2], body_other: COL[4], queue: COL[3]};\n"
"  for (const n of ['server', 'other', 'body_paced', 'body_other', 'queue']) {\n"
"    const s = R[n + '_ms'];\n"
"    if (s && s.n && s.max > 0) for (const k of ['p50', 'p90', 'p99']) items.push([n + ' ' + k, s[k], col[n]]);\n"
"  }\n"
"  if (!items.length) items.push(['latency p50', R.latency_ms.p50], ['latency p99', R.latency_ms.p99]);\n"
"  bars('split', items, 'ms');\n"
"})();\n"
"(function counts() {\n"
"  const items = [];\n"
"  for (const k in R.status) items.push([k, R.status[k], +k < 300 ? COL[2] : +k < 400 ? COL[0] : COL[1]]);\n"
"  for (const k in R.errors) if (R.errors[k]) items.push(['error ' + k, R.errors[k], COL[1]]);\n"
"  bars('counts', items, '');\n"
"})();\n"
"</script>\n"
"</body></html>\n";

int lc_report_html(const char *file, const struct lc_stats *T, const struct lc_meta *m,
		   const struct lc_series *s)
{
	FILE *f = fopen(file, "w");
	uint64_t start = s && s->n ? s->v[0].from_us : 0;

	if (!f)
		return -1;
	lc_html_open(f, "hxload report");
	fputs(page_body, f);
	fprintf(f, "{\"report\": ");
	lc_report_json(f, T, m, 0, NULL);
	fprintf(f, ", \"spectrum\": {");
	lc_html_spectrum(f, "latency", &T->h[H_LAT], 1);
	lc_html_spectrum(f, "server", &T->h[H_SRV], 0);
	lc_html_spectrum(f, "other", &T->h[H_OTH], 0);
	lc_html_spectrum(f, "hit", &T->h[H_HIT], 0);
	fprintf(f, "}, \"series\": ");
	series(f, s, start);
	fprintf(f, "}\n");
	lc_html_scripts(f);
	fputs(page_script, f);
	return fclose(f);
}

/* The stats listener's live page: the server's last 10 minutes (/history.json) and its totals (/stats.json), read every second and drawn by the embedded Chart.js, no external asset. */
#include <stdlib.h>
#include <string.h>

#include "chart_js.h"
#include "stats_out.h"

static const char head[] =
"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
"<title>hxterm stats</title>\n<style>\n";

static const char body[] =
"</style></head><body>\n<h1>hxterm</h1>\n<p class=\"meta\" id=\"meta\">waiting for /history.json</p>\n"
"<table id=\"summary\"></table>\n"
"<p class=\"hint\">Hover a chart for its values; drag across it to zoom, double-click to see it whole; "
"click a legend entry to hide its series. Each point is one second.</p>\n"
"<h2>Requests per second</h2><canvas id=\"rps\" width=\"960\" height=\"220\"></canvas>\n"
"<h2>Errors per second (4xx and 5xx answers)</h2><canvas id=\"errors\" width=\"960\" height=\"160\"></canvas>\n"
"<h2>Active connections</h2><canvas id=\"conns\" width=\"960\" height=\"200\"></canvas>\n"
"<h2>Generation time, each second's p50 and p99 (ms, from the server's fine histograms: 16 buckets an octave)</h2>"
"<canvas id=\"gen\" width=\"960\" height=\"200\"></canvas>\n"
"<h2>Timer lateness (t= and d= waits), each second's p50 and p99 (ms)</h2>"
"<canvas id=\"late\" width=\"960\" height=\"200\"></canvas>\n<script>\n";

/* after Chart.js and chart_js: the history, then each second what came after it */
static const char script[] =
"const H = {protos: [], samples: [], keep: 600}, ms = v => v === null || v === undefined ? '-' : v.toFixed(3);\n"
"let last = 0, S0 = null, P0 = null, busy = false;\n"
"/* WHY busy: a read slower than a second must not fetch the same samples twice */\n"
"async function load() {\n"
"  if (busy) return;\n"
"  busy = true;\n"
"  try {\n"
"    const h = await (await fetch('/history.json' + (last ? '?since=' + last : ''), {cache: 'no-store'})).json();\n"
"    H.protos = h.protocols; H.keep = h.keep; H.minute = h.last_minute;\n"
"    H.samples.push(...h.samples.filter(x => x.t > last));\n"
"    if (H.samples.length > H.keep) H.samples.splice(0, H.samples.length - H.keep);\n"
"    if (H.samples.length) last = H.samples[H.samples.length - 1].t;\n"
"    P0 = S0; S0 = await (await fetch('/stats.json', {cache: 'no-store'})).json();\n"
"    draw();\n"
"  } catch (e) { document.getElementById('meta').textContent = 'cannot read /history.json or /stats.json: ' + e; }\n"
"  busy = false;\n"
"}\n"
"function draw() {\n"
"  const S = H.samples, s = S0, now = S.length ? S[S.length - 1].t : 0, span = S.length ? now - S[0].t + 1 : 0;\n"
"  const ago = x => +(x.t - now).toFixed(1);\n"
"  const used = H.protos.map((p, i) => i).filter(i => S.some(x => x.rps[i] > 0 || x.active[i] > 0) || s.protocols[H.protos[i]].requests);\n"
"  document.getElementById('meta').textContent = 'hxterm ' + s.version + ' \\u2014 ' + s.name + ' \\u2014 ' + s.threads +\n"
"    ' threads \\u2014 up ' + s.uptime_s.toFixed(0) + ' s \\u2014 charts: the last ' + span.toFixed(0) +\n"
"    ' s, one point a second (the server keeps 10 minutes), updated each second';\n"
"  const minute = S.slice(-60), mean = i => minute.length ? minute.reduce((a, x) => a + x.rps[i], 0) / minute.length : 0;\n"
"  let h = '<tr><th></th><th>requests (since start)</th><th>req/s (last second)</th><th>req/s (last minute)</th>' +\n"
"    '<th>active connections (now)</th></tr>';\n"
"  for (const i of used) {\n"
"    const p = H.protos[i], x = S[S.length - 1];\n"
"    h += '<tr><td>' + p + '</td><td id=\"total-' + p + '\">' + s.protocols[p].requests + '</td><td id=\"rps-' + p + '\">' +\n"
"      (x ? x.rps[i].toFixed(1) : '-') + '</td><td>' + mean(i).toFixed(1) + '</td><td>' + (x ? x.active[i] : '-') + '</td></tr>';\n"
"  }\n"
"  h += '<tr><td>all</td><td id=\"total-requests\">' + s.requests + '</td><td></td><td></td><td></td></tr>';\n"
"  const m = H.minute || {};\n"
"  h += '<tr><td colspan=\"5\" style=\"text-align:left\">generation time, last minute: p50 <span id=\"gen-p50\">' +\n"
"    ms(m.gen && m.gen[0]) + '</span> ms, p99 <span id=\"gen-p99\">' + ms(m.gen && m.gen[1]) +\n"
"    '</span> ms; timer lateness, last minute: p50 ' + ms(m.late && m.late[0]) + ' ms, p99 ' + ms(m.late && m.late[1]) + ' ms</td></tr>';\n"
"  h += '<tr><td colspan=\"5\" style=\"text-align:left\">workers busy (out of their wait, since the last read) and ' +\n"
"    'run queue (ready at the last wake-up): ' + s.per_thread.map((w, i) => 'thread ' + i + ' <span id=\"busy-' + i +\n"
"    '\">' + (P0 && s.uptime_s > P0.uptime_s ? (100 * Math.min(1, (w.busy_s - P0.per_thread[i].busy_s) /\n"
"    (s.uptime_s - P0.uptime_s))).toFixed(0) : '-') + '</span> %, ' + w.run_queue).join('; ') + '</td></tr>';\n"
"  document.getElementById('summary').innerHTML = h;\n"
"  const o = {x: 'lin', xlabel: 'seconds ago', xunit: 's', last: true};\n"
"  lines('rps', used.map(i => ({name: H.protos[i], pts: S.map(x => [ago(x), x.rps[i]])})).concat([{name: 'all',\n"
"    pts: S.map(x => [ago(x), x.rps.reduce((a, v) => a + v, 0)])}]), Object.assign({ylabel: 'req/s', unit: '/s'}, o));\n"
"  lines('errors', [{name: 'errors', pts: S.map(x => [ago(x), x.errors])}], Object.assign({ylabel: 'per second', unit: '/s'}, o));\n"
"  lines('conns', used.map(i => ({name: H.protos[i], pts: S.map(x => [ago(x), x.active[i]])})), Object.assign({ylabel: 'connections', unit: ''}, o));\n"
"  const q = (k, j) => S.filter(x => x[k]).map(x => [ago(x), x[k][j]]);\n"
"  lines('gen', [{name: 'p50', pts: q('gen', 0)}, {name: 'p99', pts: q('gen', 1)}], Object.assign({ylabel: 'ms'}, o));\n"
"  lines('late', [{name: 'p50', pts: q('late', 0)}, {name: 'p99', pts: q('late', 1)}], Object.assign({ylabel: 'ms'}, o));\n"
"}\n"
"load();\n"
"setInterval(load, 1000);\n"
"</script>\n"
"</body></html>\n";

static char *page;

const char *stats_page(void)
{
	static const char mid[] = "\n</script>\n<script>\n";
	size_t n;

	if (page)
		return page;
	n = strlen(head) + strlen(chart_css) + strlen(body) + strlen(chartjs_lib) + strlen(mid) + strlen(chart_js) +
	    strlen(script) + 1;
	if ((page = malloc(n)))
		strcat(strcat(strcat(strcat(strcat(strcat(strcpy(page, head), chart_css), body), chartjs_lib), mid), chart_js),
		       script);
	return page;
}

/* The stats listener's live page: /stats.json read every second, charts of the last minutes drawn as inline SVG, no external asset. */
#include <stdlib.h>
#include <string.h>

#include "chart_js.h"
#include "stats_out.h"

static const char head[] =
"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
"<title>hxterm stats</title>\n<style>\n";

static const char body[] =
"</style></head><body>\n<h1>hxterm</h1>\n<p class=\"meta\" id=\"meta\">waiting for /stats.json</p>\n"
"<table id=\"summary\"></table>\n"
"<h2>Requests per second</h2><svg id=\"rps\" width=\"960\" height=\"220\"></svg>\n"
"<h2>Errors per second (4xx, 5xx, refused)</h2><svg id=\"errors\" width=\"960\" height=\"160\"></svg>\n"
"<h2>Active connections</h2><svg id=\"conns\" width=\"960\" height=\"200\"></svg>\n"
"<h2>Generation time over the last minute (bucket upper bounds, ms)</h2>"
"<svg id=\"gen\" width=\"960\" height=\"200\"></svg>\n<script>\n";

/* after chart_js: the history of /stats.json, redrawn each second */
static const char script[] =
"const KEEP = 300, hist = [];\n"
"/* series: [{name, pts: [[t, y]]}], t in seconds ago (negative) */\n"
"function chart(id, series) {\n"
"  let tmin = -60;\n"
"  for (const s of series) for (const p of s.pts) tmin = Math.min(tmin, p[0]);\n"
"  const ticks = [0, 1, 2, 3, 4].map(i => [tmin * (1 - i / 4), (tmin * (1 - i / 4)).toFixed(0) + ' s']);\n"
"  lines(id, series, {xs: t => (t - tmin) / -tmin, ticks: ticks, xlabel: 'seconds ago', ylabel: '', last: true});\n"
"}\n"
"const errs = s => { let n = 0; for (const p in s.protocols) { const st = s.protocols[p].status; n += (st['4xx'] || 0) + (st['5xx'] || 0); } for (const c in s.bad_requests) n += s.bad_requests[c]; return n; };\n"
"/* the upper bound (ms) under which share q of the bucket counts b lie */\n"
"function quant(b, le, q) {\n"
"  const n = b.reduce((a, c) => a + c, 0);\n"
"  if (!n) return 0;\n"
"  let seen = 0, rank = Math.max(1, Math.round(q * n));\n"
"  for (let i = 0; i < b.length; i++) if ((seen += b[i]) >= rank) return i < le.length ? le[i] / 1000 : le[le.length - 1] / 1000;\n"
"  return 0;\n"
"}\n"
"function draw() {\n"
"  const now = hist[hist.length - 1], s = now.s;\n"
"  const protos = Object.keys(s.protocols);\n"
"  document.getElementById('meta').textContent = 'hxterm ' + s.version + ' \\u2014 ' + s.name + ' \\u2014 ' + s.threads +\n"
"    ' threads \\u2014 up ' + s.uptime_s.toFixed(0) + ' s \\u2014 updated every second from /stats.json';\n"
"  let h = '<tr><th></th><th>requests</th><th>req/s</th><th>active conns</th><th>conns opened</th><th>gen p50 ms</th><th>gen p99 ms</th></tr>';\n"
"  const rate = (p, k) => { if (hist.length < 2) return 0; const a = hist[hist.length - 2]; return (now.s.protocols[p][k] - a.s.protocols[p][k]) / ((now.t - a.t) / 1000); };\n"
"  for (const p of protos) {\n"
"    const x = s.protocols[p];\n"
"    h += '<tr><td>' + p + '</td><td id=\"total-' + p + '\">' + x.requests + '</td><td id=\"rps-' + p + '\">' + rate(p, 'requests').toFixed(1) +\n"
"      '</td><td>' + x.connections_active + '</td><td>' + x.connections_opened + '</td><td>' + (x.generation.p50_le_us / 1000) +\n"
"      '</td><td>' + (x.generation.p99_le_us / 1000) + '</td></tr>';\n"
"  }\n"
"  h += '<tr><td>all</td><td id=\"total-requests\">' + s.requests + '</td><td></td><td></td><td></td><td></td><td></td></tr>';\n"
"  document.getElementById('summary').innerHTML = h;\n"
"  const ago = e => (e.t - now.t) / 1000;\n"
"  const per = f => hist.slice(1).map((e, i) => [ago(e), (f(e.s) - f(hist[i].s)) / ((e.t - hist[i].t) / 1000)]);\n"
"  chart('rps', protos.map(p => ({name: p, pts: per(x => x.protocols[p].requests)})).concat([{name: 'all', pts: per(x => x.requests)}]));\n"
"  chart('errors', [{name: 'errors', pts: per(errs)}]);\n"
"  chart('conns', protos.map(p => ({name: p, pts: hist.map(e => [ago(e), e.s.protocols[p].connections_active])})));\n"
"  /* generation percentiles over a sliding minute, from bucket differences */\n"
"  const gen = q => hist.map((e, i) => {\n"
"    let j = i; while (j > 0 && e.t - hist[j - 1].t <= 60000) j--;\n"
"    const b = new Array(e.s.time_buckets_le_us.length + 1).fill(0);\n"
"    for (const p of protos) e.s.protocols[p].generation.buckets.forEach((c, k) => { b[k] += c - (j < i ? hist[j].s.protocols[p].generation.buckets[k] : 0); });\n"
"    return [ago(e), quant(b, e.s.time_buckets_le_us, q)];\n"
"  });\n"
"  chart('gen', [{name: 'p50', pts: gen(0.5)}, {name: 'p99', pts: gen(0.99)}]);\n"
"}\n"
"async function tick() {\n"
"  try {\n"
"    const r = await fetch('/stats.json', {cache: 'no-store'});\n"
"    hist.push({t: Date.now(), s: await r.json()});\n"
"    if (hist.length > KEEP) hist.shift();\n"
"    draw();\n"
"  } catch (e) { document.getElementById('meta').textContent = 'cannot read /stats.json: ' + e; }\n"
"}\n"
"tick();\nsetInterval(tick, 1000);\n"
"</script>\n</body></html>\n";

static char *page;

const char *stats_page(void)
{
	size_t n;

	if (page)
		return page;
	n = strlen(head) + strlen(chart_css) + strlen(body) + strlen(chart_js) + strlen(script) + 1;
	if ((page = malloc(n)))
		strcat(strcat(strcat(strcat(strcpy(page, head), chart_css), body), chart_js), script);
	return page;
}

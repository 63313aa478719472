/* hxload ab's report: the text table, the JSON object, the --html page */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "lc_ab.h"

/* the rounds that gave no result, named: "B3 (exit 1: connect failed ...)" */
void ab_failed_runs_text(const struct ab *x)
{
	for (int k = 0; k < x->rounds; k++)
		for (int s = 0; s < 2; s++)
			if (x->why[s][k][0])
				printf("round %-3d failed: %c%d gave no result (%s); the round is left out of the pairs\n", k + 1,
				       'A' + s, k + 1, x->why[s][k]);
	for (int k = 0; k < x->rounds; k++)
		for (int s = 0; s < 2; s++)
			if (x->guard[s][k].saturated) {
				char why[160];

				lc_guard_why(&x->guard[s][k], x->bbusy, why, sizeof(why));
				printf("round %-3d backend saturated: void (%s) in %c%d; the round is left out of the pairs\n",
				       k + 1, why, 'A' + s, k + 1);
			}
}

static void failures_text(const struct ab *x)
{
	printf("%-20s %12llu %12llu  %s\n", "answered", (unsigned long long)x->pooled[0].reqs,
	       (unsigned long long)x->pooled[1].reqs, "(latency rows: over these only)");
	printf("%-20s %12llu %12llu  %.1f %% / %.1f %% (errors + unexpected status; over %g %%: failed)\n", "failed",
	       (unsigned long long)ab_side_failed(x, 0), (unsigned long long)ab_side_failed(x, 1), 100 * ab_side_share(x, 0),
	       100 * ab_side_share(x, 1), x->max_failed * 100);
}

void ab_report_text(struct ab *x)
{
	printf("hxload ab: %d rounds ABBA (%d paired), %s; every run's JSON in %s\nA  %s\nB  %s\n", x->rounds, x->nused,
	       x->closed ? "closed loop" : x->rate[0] || x->have_rate ? "open loop, the same -R" : "as the options say",
	       x->keep, x->url[0],
	       x->url[1]);
	if (x->rate[0])
		printf("rate     %s req/s on both sides\n", x->rate);
	ab_failed_runs_text(x);
	printf("%-20s %12s %12s %12s  %-26s %s\n", "figure (ms unless named)", "A (mean)", "B (mean)", "B - A",
	       "95 % interval", "verdict (others: Holm)");
	failures_text(x);
	for (int i = 0; i < x->nfig; i++) {
		const struct fig *f = &x->fig[i];
		char d[32], ci[64];

		if (!f->have)
			continue;
		snprintf(d, sizeof(d), f->pct ? "%+.1f %%" : "%+.3f", f->r.mean);
		snprintf(ci, sizeof(ci), f->pct ? "%+.1f .. %+.1f %%" : "%+.3f .. %+.3f", f->r.lo, f->r.hi);
		printf("%-20s %12.3f %12.3f %12s  %-26s %s%s\n", f->name, f->ma, f->mb, d, ci, ab_fig_verdict(f),
		       ab_is_headline(f) ? " (the verdict's figure)" : "");
	}
	printf("verdict: %s\n", x->verdict);
}

static void side_json(FILE *f, const struct ab *x, int s)
{
	fprintf(f, "{\"url\": ");
	lc_jstr(f, x->url[s]);
	fprintf(f, ", \"answered\": %llu, \"failed\": %llu, \"failed_share\": %.6g, \"verdict_failed\": %s",
		(unsigned long long)x->pooled[s].reqs, (unsigned long long)ab_side_failed(x, s), ab_side_share(x, s),
		x->failed[s] ? "true" : "false");
	lc_why_json(f, &x->first_bad[s]);
	fprintf(f, "}");
}

/* , "backend": {...}: each run's busiest worker, the rounds void */
static void backend_json(FILE *f, const struct ab *x)
{
	if (!x->guarded)
		return;
	fprintf(f, ", \"backend\": {\"stats\": ");
	lc_jstr(f, x->bstats ? x->bstats : "");
	fprintf(f, ", \"busy_limit\": %.6g, \"void_rounds\": %d, \"rounds\": [", x->bbusy, x->nvoid);
	for (int k = 0; k < x->rounds; k++)
		fprintf(f, "%s{\"a_busy\": %.6g, \"a_thread\": %d, \"b_busy\": %.6g, \"b_thread\": %d, \"void\": %s}",
			k ? ", " : "", x->guard[0][k].share, x->guard[0][k].worker, x->guard[1][k].share,
			x->guard[1][k].worker, ab_round_void(x, k) ? "true" : "false");
	fprintf(f, "]}");
}

void ab_report_json(FILE *f, struct ab *x)
{
	fprintf(f, "{\"ab\": 1, \"rounds\": %d, \"rounds_paired\": %d, \"order\": \"ABBA\", \"rate\": %s, \"closed\": %d, "
		"\"max_failed\": %g, \"headline\": \"%s\", \"a\": ", x->rounds, x->nused, x->rate[0] ? x->rate : "0",
		x->closed, x->max_failed, AB_HEADLINE);
	side_json(f, x, 0);
	fprintf(f, ", \"b\": ");
	side_json(f, x, 1);
	fprintf(f, ", \"verdict\": ");
	lc_jstr(f, x->verdict);
	fprintf(f, ", \"keep\": ");
	lc_jstr(f, x->keep);
	fprintf(f, ", \"runs\": {");
	for (int s = 0; s < 2; s++) {
		fprintf(f, "%s\"%c\": [", s ? ", " : "", 'a' + s);
		for (int k = 0; k < x->rounds; k++) {
			fprintf(f, "%s", k ? ", " : "");
			lc_jstr(f, x->file[s][k]);
		}
		fprintf(f, "]");
	}
	fprintf(f, "}, \"failed_runs\": [");
	for (int k = 0, first = 1; k < x->rounds; k++)
		for (int s = 0; s < 2; s++)
			if (x->why[s][k][0]) {
				fprintf(f, "%s{\"run\": \"%c%d\", \"why\": ", first ? "" : ", ", 'A' + s, k + 1);
				lc_jstr(f, x->why[s][k]);
				fprintf(f, "}");
				first = 0;
			}
	fprintf(f, "]");
	backend_json(f, x);
	fprintf(f, ", \"figures\": {");
	for (int i = 0, first = 1; i < x->nfig; i++) {
		const struct fig *g = &x->fig[i];

		if (!g->have)
			continue;
		fprintf(f, "%s\"%s\": {\"unit\": \"%s\", \"rounds\": %d, \"a\": %.6g, \"b\": %.6g, \"diff\": %.6g, "
			"\"ci_lo\": %.6g, \"ci_hi\": %.6g, \"p\": %.6g, \"flat\": %s, \"verdict\": ", first ? "" : ", ",
			g->path, g->pct ? "pct" : "abs", g->r.n, g->ma, g->mb, g->r.mean, g->r.lo, g->r.hi, g->r.p,
			g->r.flat ? "true" : "false");
		lc_jstr(f, ab_fig_verdict(g));
		fprintf(f, "}");
		first = 0;
	}
	fprintf(f, "}}");
}

static const char page_body[] =
"<h1>hxload ab: what B adds to A</h1>\n<p class=\"meta\" id=\"meta\"></p>\n"
"<p id=\"verdict\"></p>\n<table id=\"figures\"></table>\n"
"<h2>Latency: percentile spectrum, A and B</h2><canvas id=\"spectrum\" width=\"960\" height=\"300\"></canvas>\n"
"<h2>Other (time to first byte beyond the server: network and proxy), A and B</h2>"
"<canvas id=\"other\" width=\"960\" height=\"300\"></canvas>\n"
"<h2>CPU per request</h2><canvas id=\"cpu\" width=\"960\" height=\"120\"></canvas>\n"
"<script id=\"data\" type=\"application/json\">\n";

static const char page_charts[] =
"const D = JSON.parse(document.getElementById('data').textContent), X = D.ab;\n"
"document.getElementById('meta').textContent = 'A ' + X.a.url + ' \\u2014 B ' + X.b.url + ' \\u2014 ' +\n"
"  X.rounds + ' rounds ABBA' + (X.rate ? ' at ' + X.rate + ' req/s' : '') + ' \\u2014 runs in ' + X.keep;\n"
"(function table() {\n"
"  let h = '<tr><th>figure</th><th>A</th><th>B</th><th>B - A</th><th>95 % interval</th><th>verdict (others: Holm)</th></tr>';\n"
"  h += '<tr><td>answered (latency rows: over these only)</td><td>' + X.a.answered + '</td><td>' + X.b.answered + '</td></tr>';\n"
"  h += '<tr><td>failed (errors + unexpected status)</td><td id=\"failed-a\">' + (100 * X.a.failed_share).toFixed(1) +\n"
"    ' %</td><td id=\"failed-b\">' + (100 * X.b.failed_share).toFixed(1) + ' %</td></tr>';\n"
"  for (const k in X.figures) {\n"
"    const f = X.figures[k], u = f.unit === 'pct' ? ' %' : '';\n"
"    h += '<tr><td>' + k + '</td><td>' + fmt(f.a) + '</td><td>' + fmt(f.b) + '</td><td id=\"diff-' + k.replace(/[^a-z0-9]/gi, '-') +\n"
"      '\">' + (f.diff >= 0 ? '+' : '') + f.diff.toFixed(3) + u + '</td><td>' + f.ci_lo.toFixed(3) + ' .. ' + f.ci_hi.toFixed(3) + u +\n"
"      '</td><td>' + f.verdict + '</td></tr>';\n"
"  }\n"
"  document.getElementById('figures').innerHTML = h;\n"
"  const v = document.getElementById('verdict');\n"
"  v.textContent = X.verdict.charAt(0).toUpperCase() + X.verdict.slice(1) + '.';\n"
"  // WHY a banner: a failed side's charts look like a fast one's\n"
"  if (X.a.verdict_failed || X.b.verdict_failed) v.className = 'warning', v.setAttribute('role', 'alert'),\n"
"    v.style.cssText = 'border: 3px solid #c0392b; background: #fdecea; color: #611; padding: 0.6em 1em; font-weight: bold';\n"
"  // the saturation guard: rounds where the backend, not the proxy, was the limit\n"
"  if (X.backend && X.backend.void_rounds) v.insertAdjacentHTML('afterend', '<p class=\"warning\" id=\"backend-void\" ' +\n"
"    'style=\"border: 3px solid #d68910; padding: 0.6em 1em\">Backend saturated: void in ' + X.backend.void_rounds +\n"
"    ' of ' + X.rounds + ' rounds (a worker busy over ' + (100 * X.backend.busy_limit).toFixed(0) + ' %: ' +\n"
"    X.backend.rounds.map((r, i) => 'round ' + (i + 1) + ' A ' + (100 * r.a_busy).toFixed(0) + ' %, B ' +\n"
"    (100 * r.b_busy).toFixed(0) + ' %' + (r.void ? ' void' : '')).join('; ') + '), left out of the pairs.</p>');\n"
"})();\n"
"(function spectra() {\n"
"  const mk = n => ({name: n, pts: (D.spectrum[n] || []).filter(p => p[0] < 1).map(p => [p[0], p[1], {'data-q': p[0]}])});\n"
"  lines('spectrum', [mk('A latency'), mk('B latency')], {x: 'pct', xlabel: 'percentile', ylabel: 'ms'});\n"
"  lines('other', [mk('A other'), mk('B other')], {x: 'pct', xlabel: 'percentile', ylabel: 'ms'});\n"
"})();\n"
"(function cpu() {\n"
"  const items = [];\n"
"  for (const k in X.figures) {\n"
"    const m = k.match(/^cpu\\.(.+)\\.us_per_request$/);\n"
"    if (m) items.push(['A ' + m[1], X.figures[k].a, COL[0]], ['B ' + m[1], X.figures[k].b, COL[1]]);\n"
"  }\n"
"  if (!items.length) document.getElementById('cpu').insertAdjacentText('beforebegin', 'No --pid NAME=PID was given. ');\n"
"  else bars('cpu', items, 'us');\n"
"})();\n"
"</script>\n</body></html>\n";

int ab_report_html(struct ab *x)
{
	FILE *f = fopen(x->html, "w");

	if (!f)
		return -1;
	lc_html_open(f, "hxload ab");
	fputs(page_body, f);
	fprintf(f, "{\"ab\": ");
	ab_report_json(f, x);
	fprintf(f, ", \"spectrum\": {");
	lc_html_spectrum(f, "A latency", &x->pooled[0].h[H_LAT], 1);
	lc_html_spectrum(f, "B latency", &x->pooled[1].h[H_LAT], 0);
	lc_html_spectrum(f, "A other", &x->pooled[0].h[H_OTH], 0);
	lc_html_spectrum(f, "B other", &x->pooled[1].h[H_OTH], 0);
	fprintf(f, "}}\n");
	lc_html_scripts(f);
	fputs(page_charts, f);
	return fclose(f);
}

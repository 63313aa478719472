/* hxload find's report: the verdict line, the steps' table, the JSON object, the --html page */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "lc_find_int.h"

/* the runs at <rate>: "2 of 2 runs" */
static void runs_at(const struct find *x, double rate, int held, char *out, size_t len)
{
	int n = 0, k = 0;

	for (int i = 0; i < x->n; i++)
		if (x->st[i].rate == rate) {
			n++;
			k += (x->st[i].v == V_HELD) == held;
		}
	snprintf(out, len, "%d of %d run%s", k, n, n == 1 ? "" : "s");
}

static const char *bound_word(const struct lc_find_search *s)
{
	if (s->done == 5)
		return "backend";
	if (!s->lo)
		return "none";
	if (!s->hi)
		return s->done == 2 ? "max_rate" : "max_steps";
	return s->hi_kind == V_CONNS ? "connections" : s->hi_kind == V_CLIENT ? "client" : "target";
}

/* the verdict's line, the last one: what held, what did not, whose limit,
 * and whether the precision asked was reached */
static void verdict_line(FILE *f, const struct find *x)
{
	const struct lc_find_search *s = &x->s;
	char h[40], m[40];

	runs_at(x, s->lo, 1, h, sizeof(h));
	runs_at(x, s->hi, 0, m, sizeof(m));
	if (s->done < 0 && s->lo && s->hi)
		fprintf(f, "verdict: precision not reached: --max-steps %d ran out with %.1f req/s held (%s) and %.1f "
			"not (%s), %.1f %% apart, --precision %g %%\n", x->max_steps, s->lo, h, s->hi, m,
			100 * (s->hi - s->lo) / s->lo, x->precision * 100);
	else if (s->done < 0 && s->lo)
		fprintf(f, "verdict: precision not reached: --max-steps %d ran out with %.1f req/s held (%s) and no "
			"rate decided missed yet\n", x->max_steps, s->lo, h);
	else if (s->done < 0 && s->hi)
		fprintf(f, "verdict: precision not reached: --max-steps %d ran out with no rate held; %.1f req/s did not "
			"(%s)\n", x->max_steps, s->hi, m);
	else if (s->done < 0)
		fprintf(f, "verdict: precision not reached: --max-steps %d ran out before any rate was decided\n",
			x->max_steps);
	else if (s->done == 5)
		fprintf(f, "verdict: backend saturated at %.1f req/s (a worker of --backend-stats busy over %.0f %%: the "
			"step is void); %.1f req/s held before it: the proxy's limit is not known to be there, a faster "
			"backend would tell\n", s->void_rate, 100 * x->bbusy, s->lo);
	else if (!s->lo && s->hi && s->hi_kind != V_MISSED)
		fprintf(f, "verdict: no rate held: at %.1f req/s %s (%s), never the target's limit: %s\n", s->hi,
			s->hi_kind == V_CONNS ? "every connection was busy" : "hxload was the limit", m,
			s->hi_kind == V_CONNS ? "more -c" : "more -t, or more load machines (--start-at, merge)");
	else if (!s->lo)
		fprintf(f, "verdict: no step held, not even %.1f req/s (--start lower)\n", x->st[0].rate);
	else if (s->done == 3)
		fprintf(f, "verdict: at least %.1f req/s held (%s); at %.1f req/s %s (%s), so the target's limit is not "
			"known to be there: %s\n", s->lo, h, s->hi, s->hi_kind == V_CONNS ? "every connection was busy" :
			"hxload was the limit", m, s->hi_kind == V_CONNS ? "more -c" :
			"more -t, or more load machines (--start-at, merge)");
	else if (s->done == 2)
		fprintf(f, "verdict: %.1f req/s held (%s), the most asked (--max-rate)\n", s->lo, h);
	else
		fprintf(f, "verdict: %.1f req/s held (%s), %.1f did not (%s): the target's limit, within %.1f %%\n",
			s->lo, h, s->hi, m, 100 * (s->hi - s->lo) / s->lo);
}

/* how many rates were run more than once */
static int runs_twice(const struct lc_find_search *s)
{
	int n = 0;

	for (int i = 0; i < s->nr; i++)
		n += s->r[i].held + s->r[i].not_held > 1;
	return n;
}

void find_report_text(const struct find *x)
{
	double miss, held;
	int mixed;

	printf("hxload find: %s under %s, steps of %g s (+%g s warm-up), precision %g %%\n", x->url, x->slo,
	       x->step_s, x->warm_s, x->precision * 100);
	printf("step      rate    sent/s      p50      p99    p99.9 ttfb p99 srv p99 queue p99  late   errors  client CPU  "
	       "verdict\n");
	for (int i = 0; i < x->n; i++) {
		const struct step *s = &x->st[i];

		printf("%4d %9.1f %9.1f %8.3f %8.3f %8.3f %8.3f %7.3f %9.3f %4.0f %% %7.3f %%  %8.0f %%  %s%s%s", i + 1,
		       s->rate, s->sent_ps, s->p50, s->p99, s->p999, s->ttfb99, s->srv99, s->queue99, s->late_pct,
		       s->err_pct, s->client_cpu * 100, lc_find_word(s->v), s->v == V_HELD ? "" : ": ",
		       s->v == V_HELD ? "" : s->why);
		for (int k = 0; k < s->npids; k++)
			printf("; %s %.2f us/req", s->cpu[k].name, s->cpu[k].us_per_req);
		printf("\n");
	}
	lc_find_spread(&x->s, &miss, &held, &mixed);
	if (mixed)
		printf("spread: the runs at %d rate%s disagreed; a run missed at %.1f req/s and one held at %.1f\n", mixed,
		       mixed == 1 ? "" : "s", miss, held);
	else if (runs_twice(&x->s))
		printf("spread: each of the %d rates run more than once gave one verdict every time\n",
		       runs_twice(&x->s));
	else
		printf("spread: no rate was run twice\n");
	verdict_line(stdout, x);
}

void find_report_json(FILE *f, const struct find *x)
{
	double miss, held;
	int mixed;

	lc_find_spread(&x->s, &miss, &held, &mixed);
	fprintf(f, "{\"find\": 1, \"url\": ");
	lc_jstr(f, x->url);
	fprintf(f, ", \"slo\": ");
	lc_jstr(f, x->slo);
	fprintf(f, ", \"step_seconds\": %g, \"warmup_seconds\": %g, \"precision\": %g, \"held_rps\": %.1f, "
	       "\"missed_rps\": %.1f, \"bound\": \"%s\", \"precision_reached\": %s, \"spread\": {\"rates_disagreed\": "
	       "%d, \"lowest_missed_rps\": %.1f, \"highest_held_rps\": %.1f}, \"verdict\": ", x->step_s, x->warm_s,
	       x->precision, x->s.lo, x->s.hi, bound_word(&x->s), x->s.done == 1 ? "true" : "false", mixed, miss, held);
	{
		char line[1024];
		FILE *m = fmemopen(line, sizeof(line), "w");

		if (m) {
			verdict_line(m, x);
			fclose(m);
			line[strcspn(line, "\n")] = 0;
			lc_jstr(f, line);
		} else {
			lc_jstr(f, "");
		}
	}
	fprintf(f, ", \"rates\": [");
	for (int i = 0; i < x->s.nr; i++)
		fprintf(f, "%s{\"rate\": %.1f, \"held\": %d, \"not_held\": %d}", i ? ", " : "", x->s.r[i].rate,
			x->s.r[i].held, x->s.r[i].not_held);
	fprintf(f, "], \"steps\": [");
	for (int i = 0; i < x->n; i++) {
		const struct step *s = &x->st[i];

		fprintf(f, "%s{\"rate\": %.1f, \"sent_per_second\": %.1f, \"requests\": %llu, \"p50_ms\": %.3f, "
		       "\"p99_ms\": %.3f, \"p99.9_ms\": %.3f, \"ttfb_p99_ms\": %.3f, \"server_p99_ms\": %.3f, "
		       "\"queue_p99_ms\": %.3f, \"late_pct\": %.3f, \"unsent_pct\": %.3f, \"errors_pct\": %.4f, "
		       "\"client_cpu\": %.3f, \"backend_busy\": %.3f, \"verdict\": \"%s\", \"why\": ", i ? ", " : "",
		       s->rate, s->sent_ps, (unsigned long long)s->reqs, s->p50, s->p99, s->p999, s->ttfb99, s->srv99,
		       s->queue99, s->late_pct, s->unsent_pct, s->err_pct, s->client_cpu, s->guard.share,
		       lc_find_word(s->v));
		lc_jstr(f, s->why);
		fprintf(f, ", \"file\": ");
		lc_jstr(f, s->file);
		fprintf(f, ", \"cpu_us_per_request\": {");
		for (int k = 0; k < s->npids; k++)
			fprintf(f, "%s\"%s\": %.3f", k ? ", " : "", s->cpu[k].name, s->cpu[k].us_per_req);
		fprintf(f, "}}");
	}
	fprintf(f, "]}\n");
}

/* --html FILE: the steps as a page, rate against p50, p99 and p99.9 with
 * the SLO's lines, and errors; 0 or -1 */
int find_report_html(const struct find *x)
{
	static const char body[] =
		"<h1>hxload find</h1><p class=\"meta\" id=\"meta\"></p>\n"
		"<h2>Latency at each step's rate (ms), the SLO's lines dashed</h2>"
		"<canvas id=\"steps\" width=\"960\" height=\"320\"></canvas>\n"
		"<h2>Errors at each step (%)</h2><canvas id=\"errs\" width=\"960\" height=\"200\"></canvas>\n"
		"<h2>Steps</h2><table id=\"tbl\"></table>\n"
		"<script id=\"data\" type=\"application/json\">\n";
	static const char script[] =
		"const F = JSON.parse(document.getElementById('data').textContent);\n"
		"document.getElementById('meta').textContent = F.url + ' \\u2014 SLO ' + F.slo + ' \\u2014 ' +\n"
		"  (F.held_rps ? F.held_rps.toFixed(1) + ' req/s held' : 'no rate held') + ' (' + F.bound + ' bound)';\n"
		"const S = F.steps.slice().sort((a, b) => a.rate - b.rate), r0 = S.length ? S[0].rate : 0,\n"
		"  r1 = S.length ? S[S.length - 1].rate : 1;\n"
		"const pt = (s, k) => [s.rate, s[k], {'data-rate': s.rate, 'data-verdict': s.verdict}];\n"
		"const series = [['p50', 'p50_ms'], ['p99', 'p99_ms'], ['p99.9', 'p99.9_ms']].map(n =>\n"
		"  ({name: n[0], pts: S.map(s => pt(s, n[1]))}));\n"
		"for (const m of F.slo.matchAll(/(p[\\d.]+)\\s*<\\s*([\\d.]+)\\s*(us|ms|s)?/g)) {\n"
		"  const v = +m[2] * (m[3] === 'us' ? 0.001 : m[3] === 's' ? 1000 : 1);\n"
		"  series.push({name: 'SLO ' + m[1] + ' < ' + v + ' ms', dash: 1, pts: [[r0, v], [r1, v]]});\n"
		"}\n"
		"lines('steps', series, {x: 'lin', xlabel: 'rate', xunit: 'req/s', ylabel: 'ms'});\n"
		"lines('errs', [{name: 'errors', pts: S.map(s => pt(s, 'errors_pct'))}], {x: 'lin', xlabel: 'rate', xunit: 'req/s', ylabel: '%', unit: '%'});\n"
		"let h = '<tr><th>step</th><th>rate</th><th>sent/s</th><th>p50</th><th>p99</th><th>p99.9</th><th>errors %</th><th>verdict</th><th>why</th></tr>';\n"
		"F.steps.forEach((s, i) => { h += '<tr><td>' + (i + 1) + '</td><td>' + s.rate.toFixed(1) + '</td><td>' +\n"
		"  s.sent_per_second.toFixed(1) + '</td><td>' + s.p50_ms.toFixed(3) + '</td><td>' + s.p99_ms.toFixed(3) + '</td><td>' +\n"
		"  s['p99.9_ms'].toFixed(3) + '</td><td>' + s.errors_pct.toFixed(3) + '</td><td>' + s.verdict + '</td><td style=\"text-align:left\"></td></tr>'; });\n"
		"document.getElementById('tbl').innerHTML = h;\n"
		"document.querySelectorAll('#tbl tr').forEach((tr, i) => { if (i) tr.lastChild.textContent = F.steps[i - 1].why; });\n"
		"</script>\n</body></html>\n";
	FILE *f = fopen(x->html, "w");

	if (!f)
		return -1;
	lc_html_open(f, "hxload find");
	fputs(body, f);
	find_report_json(f, x);
	lc_html_scripts(f);
	fputs(script, f);
	return fclose(f);
}

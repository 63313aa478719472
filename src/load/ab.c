/* hxload ab: the same load on A and B (a URL direct and through a proxy, or two proxy settings) in alternating rounds, every round's JSON kept, and B - A with its confidence interval for each figure. */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "lc_cmd.h"
#include "runs.h"

#define AB_MAX_ROUNDS 50
#define AB_MAX_ARGS   200
#define AB_MAX_FIG    48

/* a figure of a run: its JSON path ("other_ms.p50", "cpu.proxy.us_per_request") */
struct fig {
	char path[96], name[64];
	int pct;                     /* B - A in percent (a rate), else in its own unit */
	double a[AB_MAX_ROUNDS], b[AB_MAX_ROUNDS];
	int have;                    /* every run had it */
	double ma, mb, diff, lo, hi;
};

struct ab {
	const char *url[2], *keep, *html;
	const char *pass[AB_MAX_ARGS]; /* the load options both sides run with */
	int npass, rounds, json, closed, have_rate;
	char rate[32];
	char file[2][AB_MAX_ROUNDS][512];
	struct fig fig[AB_MAX_FIG];
	int nfig;
	struct lc_stats pooled[2];
};

/* two-sided 95 % quantiles of Student's t, by degrees of freedom (1..30) */
static const double t95[] = { 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
			      2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
			      2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };

static int usage(FILE *f, int rc)
{
	fprintf(f, "Usage: hxload ab [--rounds N] [--keep DIR] [--closed] [--json] [--html FILE]\n"
		   "                 [load options: -c -m -t -d -w -R --h2 --pid NAME=PID ...] A_URL B_URL\n"
		   "What does B add to A? The same load on A (a URL direct) and B (the same through\n"
		   "the proxy, or another proxy setting), in N rounds (5) ordered ABBA BAAB... so that\n"
		   "drift cancels, every round's --json kept in DIR (hxload-ab-<time>). Reported: B - A\n"
		   "for the rate, the latency percentiles, the server's time, other (the time to first\n"
		   "byte beyond the server: network and proxy), the body beyond the server's pacing,\n"
		   "the client's queue and each --pid process's CPU per request and per MiB, each\n"
		   "with its 95 %% confidence interval over the rounds (paired). Open loop at one -R\n"
		   "for both sides; without -R, half the rate A reaches closed loop in a 2 s probe.\n"
		   "--closed: both closed loop, for capacity.\n");
	return rc;
}

/* one run of side <s> (0: A, 1: B), its JSON to <out>: the exit status */
static int run_side(struct ab *x, int s, const char *label, const char *out, const char *dur)
{
	char *args[AB_MAX_ARGS + 16];
	int n = 0;

	args[n++] = "hxload";
	for (int i = 0; i < x->npass; i++)
		args[n++] = (char *)x->pass[i];
	if (x->rate[0])
		args[n++] = "-R", args[n++] = x->rate;
	if (dur)
		args[n++] = "-d", args[n++] = (char *)dur;
	args[n++] = "--json";
	args[n++] = "-q";
	args[n++] = "--label";
	args[n++] = (char *)label;
	args[n++] = (char *)x->url[s];
	args[n] = NULL;
	return lc_child(args, out, NULL, NULL);
}

/* a number at a dotted path of a run, or NAN-like: returns 0 when absent */
static int at_path(const struct json *r, const char *path, double *v)
{
	char buf[96], *save = NULL, *k, *next;
	const struct json *o = r;

	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); k; k = next) {
		next = strtok_r(NULL, ".", &save);
		if (!next) {
			const struct json *leaf = json_get(o, k);

			if (!leaf || leaf->type != JSON_NUM)
				return 0;
			*v = leaf->num;
			return 1;
		}
		if (!(o = json_get(o, k)))
			return 0;
	}
	return 0;
}

static void fig_add(struct ab *x, const char *path, const char *name, int pct)
{
	struct fig *f;

	if (x->nfig == AB_MAX_FIG)
		return;
	f = &x->fig[x->nfig++];
	snprintf(f->path, sizeof(f->path), "%s", path);
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->pct = pct;
	f->have = 1;
}

/* the figures compared: the fixed ones, then each --pid process's CPU */
static void figs_init(struct ab *x, const struct json *first)
{
	static const struct { const char *path, *name; } ms[] = {
		{ "latency_ms.p50", "latency p50" }, { "latency_ms.p90", "latency p90" },
		{ "latency_ms.p99", "latency p99" }, { "latency_ms.p999", "latency p99.9" },
		{ "ttfb_ms.p50", "ttfb p50" }, { "server_ms.p50", "server p50" }, { "server_ms.p99", "server p99" },
		{ "other_ms.p50", "other p50" }, { "other_ms.p90", "other p90" }, { "other_ms.p99", "other p99" },
		{ "body_other_ms.p50", "body_other p50" }, { "queue_ms.p99", "queue p99" },
	};
	const struct json *cpu = json_get(first, "cpu");
	char p[96], n[64];

	fig_add(x, "requests_per_second", "req/s", 1);
	for (size_t i = 0; i < ARRAY_SIZE(ms); i++)
		fig_add(x, ms[i].path, ms[i].name, 0);
	for (size_t i = 0; cpu && cpu->type == JSON_OBJ && i < cpu->n; i++) {
		snprintf(p, sizeof(p), "cpu.%s.us_per_request", cpu->key[i]);
		snprintf(n, sizeof(n), "%s CPU us/req", cpu->key[i]);
		fig_add(x, p, n, 0);
		snprintf(p, sizeof(p), "cpu.%s.us_per_mib", cpu->key[i]);
		snprintf(n, sizeof(n), "%s CPU us/MiB", cpu->key[i]);
		fig_add(x, p, n, 0);
	}
}

struct read_ctx {
	struct ab *x;
	int side, round;
};

static int read_one(const struct json *r, void *arg)
{
	struct read_ctx *c = arg;
	struct ab *x = c->x;
	static struct lc_stats st;

	if (!x->nfig)
		figs_init(x, r);
	if (lc_run_read(r, &st) < 0)
		return -1;
	lc_stats_add(&x->pooled[c->side], &st);
	for (int i = 0; i < x->nfig; i++) {
		struct fig *f = &x->fig[i];
		double v = 0;

		f->have &= at_path(r, f->path, &v);
		(c->side ? f->b : f->a)[c->round] = v;
	}
	return 0;
}

/* B - A per round (paired: the rounds share their minute of the machine),
 * its mean and a t interval over the rounds */
static void fig_moments(struct fig *f, int n)
{
	double d[AB_MAX_ROUNDS], sum = 0, ss = 0, sa = 0, sb = 0, sd, t;

	for (int k = 0; k < n; k++) {
		sa += f->a[k];
		sb += f->b[k];
	}
	f->ma = sa / n;
	f->mb = sb / n;
	for (int k = 0; k < n; k++) {
		d[k] = f->pct ? (f->a[k] > 0 ? (f->b[k] / f->a[k] - 1) * 100 : 0) : f->b[k] - f->a[k];
		sum += d[k];
	}
	f->diff = sum / n;
	for (int k = 0; k < n; k++)
		ss += (d[k] - f->diff) * (d[k] - f->diff);
	sd = n > 1 ? sqrt(ss / (n - 1)) : 0;
	t = n - 1 <= (int)ARRAY_SIZE(t95) ? t95[n - 2] : 1.96;
	f->lo = f->diff - t * sd / sqrt(n);
	f->hi = f->diff + t * sd / sqrt(n);
}

static void fig_stats(struct fig *f, int n)
{
	int any = 0;

	/* WHY: us per MiB of a run without bodies, a queue never used: no row */
	for (int k = 0; k < n; k++)
		any |= f->a[k] != 0 || f->b[k] != 0;
	f->have &= any;
	fig_moments(f, n);
}

static const char *fig_verdict(const struct fig *f)
{
	if (f->lo <= 0 && f->hi >= 0)
		return "no difference detectable";
	if (f->pct)
		return f->lo > 0 ? "B faster" : "B slower";
	return f->lo > 0 ? "B higher" : "B lower";
}

static struct fig *fig_named(struct ab *x, const char *name)
{
	for (int i = 0; i < x->nfig; i++)
		if (!strcmp(x->fig[i].name, name) && x->fig[i].have)
			return &x->fig[i];
	return NULL;
}

static void report_text(struct ab *x)
{
	const struct fig *o = fig_named(x, "other p50"), *s = fig_named(x, "server p50");

	printf("hxload ab: %d rounds ABBA, %s; every run's JSON in %s\nA  %s\nB  %s\n", x->rounds,
	       x->closed ? "closed loop" : x->rate[0] || x->have_rate ? "open loop, the same -R" : "as the options say",
	       x->keep, x->url[0],
	       x->url[1]);
	if (x->rate[0])
		printf("rate     %s req/s on both sides\n", x->rate);
	printf("%-20s %12s %12s %12s  %-26s %s\n", "figure (ms unless named)", "A (mean)", "B (mean)", "B - A",
	       "95 % interval", "verdict");
	for (int i = 0; i < x->nfig; i++) {
		const struct fig *f = &x->fig[i];
		char d[32], ci[64];

		if (!f->have)
			continue;
		snprintf(d, sizeof(d), f->pct ? "%+.1f %%" : "%+.3f", f->diff);
		snprintf(ci, sizeof(ci), f->pct ? "%+.1f .. %+.1f %%" : "%+.3f .. %+.3f", f->lo, f->hi);
		printf("%-20s %12.3f %12.3f %12s  %-26s %s\n", f->name, f->ma, f->mb, d, ci, fig_verdict(f));
	}
	if (o && (o->lo > 0 || o->hi < 0))
		printf("verdict: B %s %.3f ms (95 %% CI %.3f to %.3f) to the time to first byte beyond the server (other "
		       "p50)", o->diff > 0 ? "adds" : "saves", fabs(o->diff), fabs(o->lo > 0 ? o->lo : o->hi),
		       fabs(o->lo > 0 ? o->hi : o->lo));
	else if (o)
		printf("verdict: no difference in other (p50) detectable (95 %% CI %+.3f to %+.3f ms)", o->lo, o->hi);
	if (s)
		printf("; the server's own time %s\n", s->lo <= 0 && s->hi >= 0 ? "did not change detectably" :
		       "changed: look at the target, not the path");
	else
		printf("\n");
}

static void report_json(FILE *f, struct ab *x)
{
	fprintf(f, "{\"ab\": 1, \"rounds\": %d, \"order\": \"ABBA\", \"rate\": %s, \"closed\": %d, \"a\": {\"url\": ",
		x->rounds, x->rate[0] ? x->rate : "0", x->closed);
	lc_jstr(f, x->url[0]);
	fprintf(f, "}, \"b\": {\"url\": ");
	lc_jstr(f, x->url[1]);
	fprintf(f, "}, \"keep\": ");
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
	fprintf(f, "}, \"figures\": {");
	for (int i = 0, first = 1; i < x->nfig; i++) {
		const struct fig *g = &x->fig[i];

		if (!g->have)
			continue;
		fprintf(f, "%s\"%s\": {\"unit\": \"%s\", \"a\": %.6g, \"b\": %.6g, \"diff\": %.6g, \"ci_lo\": %.6g, "
			"\"ci_hi\": %.6g, \"verdict\": \"%s\"}", first ? "" : ", ", g->path, g->pct ? "pct" : "abs",
			g->ma, g->mb, g->diff, g->lo, g->hi, fig_verdict(g));
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
"  let h = '<tr><th>figure</th><th>A</th><th>B</th><th>B - A</th><th>95 % interval</th><th>verdict</th></tr>';\n"
"  for (const k in X.figures) {\n"
"    const f = X.figures[k], u = f.unit === 'pct' ? ' %' : '';\n"
"    h += '<tr><td>' + k + '</td><td>' + fmt(f.a) + '</td><td>' + fmt(f.b) + '</td><td id=\"diff-' + k.replace(/[^a-z0-9]/gi, '-') +\n"
"      '\">' + (f.diff >= 0 ? '+' : '') + f.diff.toFixed(3) + u + '</td><td>' + f.ci_lo.toFixed(3) + ' .. ' + f.ci_hi.toFixed(3) + u +\n"
"      '</td><td>' + f.verdict + '</td></tr>';\n"
"  }\n"
"  document.getElementById('figures').innerHTML = h;\n"
"  const o = X.figures['other_ms.p50'];\n"
"  if (o) document.getElementById('verdict').textContent = o.verdict === 'no difference detectable' ?\n"
"    'No difference in other (p50) detectable.' : 'B ' + (o.diff > 0 ? 'adds ' : 'saves ') + Math.abs(o.diff).toFixed(3) +\n"
"    ' ms to the time to first byte beyond the server (other p50; 95 % CI ' + o.ci_lo.toFixed(3) + ' to ' + o.ci_hi.toFixed(3) + ').';\n"
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

static int report_html(struct ab *x)
{
	FILE *f = fopen(x->html, "w");

	if (!f)
		return -1;
	lc_html_open(f, "hxload ab");
	fputs(page_body, f);
	fprintf(f, "{\"ab\": ");
	report_json(f, x);
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

/* ab's own options out of <argv>; the rest goes to both sides. 0, or the
 * exit status of a usage error */
static int parse(struct ab *x, int argc, char **argv)
{
	int last;

	if (argc < 3)
		return usage(stderr, 2);
	last = argc - 2; /* WHY: the two URLs end the line, as hxload's one URL does */
	x->url[0] = argv[last];
	x->url[1] = argv[last + 1];
	for (int i = 1; i < last; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return usage(stdout, 0) ? 2 : 1;
		if (!strcmp(a, "--rounds") && i + 1 < last) {
			x->rounds = atoi(argv[++i]);
			if (x->rounds < 2 || x->rounds > AB_MAX_ROUNDS)
				return fprintf(stderr, "hxload ab: --rounds %s: 2 to 50\n", argv[i]), 2;
		} else if (!strcmp(a, "--keep") && i + 1 < last) {
			x->keep = argv[++i];
		} else if (!strcmp(a, "--html") && i + 1 < last) {
			x->html = argv[++i];
		} else if (!strcmp(a, "--json")) {
			x->json = 1;
		} else if (!strcmp(a, "--closed")) {
			x->closed = 1;
		} else if (!strcmp(a, "--label") || !strcmp(a, "--log") || !strcmp(a, "--interval") ||
			   !strcmp(a, "--start-at") || !strcmp(a, "-q")) {
			return fprintf(stderr, "hxload ab: %s is ab's to set (each run is labelled A or B)\n", a), 2;
		} else {
			if (x->npass == AB_MAX_ARGS)
				return fprintf(stderr, "hxload ab: too many options\n"), 2;
			x->have_rate |= !strcmp(a, "-R") || !strcmp(a, "--stages");
			x->pass[x->npass++] = a;
		}
	}
	if (x->closed && x->have_rate)
		return fprintf(stderr, "hxload ab: --closed and -R: one or the other\n"), 2;
	return 0;
}

/* without -R: A closed loop for 2 s, then half its rate on both sides */
static int probe_rate(struct ab *x)
{
	char out[600];
	struct json *j;
	const char *err;
	char *text;
	FILE *f;
	long n;
	int rc;

	snprintf(out, sizeof(out), "%s/probe-a.json", x->keep);
	if ((rc = run_side(x, 0, "probe", out, "2")) != 0)
		return fprintf(stderr, "hxload ab: the probe of A failed (exit %d): %s\n", rc, out), rc > 0 ? rc : 1;
	if (!(f = fopen(out, "r")))
		return 1;
	text = calloc(1, 1 << 20);
	n = text ? (long)fread(text, 1, (1 << 20) - 1, f) : 0;
	fclose(f);
	j = n > 0 ? json_parse(text, &err) : NULL;
	free(text);
	if (!j || json_num(j, "requests_per_second", 0) < 2) {
		json_free(j);
		return fprintf(stderr, "hxload ab: the probe of A answered too little for a rate\n"), 1;
	}
	snprintf(x->rate, sizeof(x->rate), "%.0f", json_num(j, "requests_per_second", 0) / 2);
	json_free(j);
	fprintf(stderr, "hxload ab: open loop at -R %s on both sides (half of A's closed-loop rate); -R sets it, "
		"--closed measures capacity\n", x->rate);
	return 0;
}

int lc_ab_main(int argc, char **argv)
{
	static struct ab x;
	int rc;

	x.rounds = 5;
	if ((rc = parse(&x, argc, argv)))
		return rc == 1 ? 0 : rc;
	if (!(x.keep = lc_keep_dir("ab", x.keep)))
		return 2;
	if (!x.closed && !x.have_rate && (rc = probe_rate(&x)))
		return rc;
	for (int k = 0; k < x.rounds; k++)
		for (int i = 0; i < 2; i++) {
			/* WHY ABBA: A B, B A, A B...: a drift over the rounds weighs on both alike */
			int s = (k & 1) ^ i;
			char label[16];

			snprintf(x.file[s][k], sizeof(x.file[s][k]), "%s/%c%d.json", x.keep, 'a' + s, k + 1);
			snprintf(label, sizeof(label), "%c%d", 'A' + s, k + 1);
			rc = run_side(&x, s, label, x.file[s][k], NULL);
			if (rc == 2 || rc < 0)
				return fprintf(stderr, "hxload ab: run %s failed (exit %d)\n", label, rc), 2;
			if (rc)
				fprintf(stderr, "hxload ab: run %s exit %d (its line above says why); its figures count\n",
					label, rc);
		}
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < x.rounds; k++)
			if (lc_runs_each("ab", x.file[s][k], read_one, &(struct read_ctx){ &x, s, k }) < 0)
				return 1;
	for (int i = 0; i < x.nfig; i++)
		if (x.fig[i].have)
			fig_stats(&x.fig[i], x.rounds);
	if (x.json) {
		report_json(stdout, &x);
		printf("\n");
	} else {
		report_text(&x);
	}
	if (x.html && report_html(&x) < 0)
		return fprintf(stderr, "hxload ab: --html %s: %s\n", x.html, strerror(errno)), 2;
	return 0;
}

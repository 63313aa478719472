/* hxload find: the highest open-loop rate a target holds under a percentile SLO, each step a child run kept and judged (find_step.c), the rates chosen by the search (find_search.c), the result as text, JSON or a page. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common.h"
#include "hist.h"
#include "lc_cmd.h"
#include "lc_find.h"
#include "lc_guard.h"
#include "lc_stats.h"
#include "runs.h"

#define FIND_MAX_ARGS  200

struct step {
	double rate, sent_ps, p50, p99, p999, err_pct, client_cpu;
	double ttfb99, srv99, queue99, late_pct, unsent_pct; /* the evidence: from the send, the client's */
	struct lc_guard_run guard;   /* --backend-stats: the busiest worker of the backend */
	uint64_t reqs;
	enum lc_verdict v;
	char why[480];
	char file[512], err[520];
	int npids;
	struct { char name[32]; double us_per_req; } cpu[LC_MAX_PIDS];
};

struct find {
	const char *url, *slo, *keep, *html, *bstats;
	double bbusy;                /* --backend-busy, a share */
	const char *pass[FIND_MAX_ARGS]; /* the load options every step runs with */
	int npass, json, threads, conns, depth, max_steps;
	double step_s, warm_s, start, precision, max_rate, cpu_max;
	struct step st[LC_FIND_MAX_STEPS];
	int n;
	struct lc_find_search s;
};

static int usage(FILE *f, int rc)
{
	fprintf(f, "Usage: hxload find --slo SPEC [--step-duration T] [--step-warmup T] [--start RATE]\n"
		   "                   [--precision PCT] [--max-rate RATE] [--max-steps N] [--client-cpu PCT]\n"
		   "                   [--keep DIR] [--json] [--html FILE] [--backend-stats URL] [--backend-busy PCT]\n"
		   "                   [load options: -c -m -t --h2 --pid NAME=PID ...] URL\n"
		   "How much can it take? Open-loop steps of --step-duration (15 s, after --step-warmup,\n"
		   "2 s), the rate doubled from --start (a quarter of what a 2 s closed-loop probe\n"
		   "reaches) until a step misses the SLO, then bisected until the rate that held and\n"
		   "the one that did not are within --precision (5 %%), in --max-steps (30). A step\n"
		   "that did not hold is run again before the bound moves (two runs must agree),\n"
		   "and so is the rate found. The SLO is --fail-on's grammar read as what must hold:\n"
		   "'p99<20ms,p99.9<50ms,errors<0.1%%'. The target is judged on the time from each\n"
		   "actual send to the first byte (server + other); a step is the client's limit when\n"
		   "hxload's CPU passed --client-cpu (80 %% of its threads), or when the SLO missed or\n"
		   "over 1 %% went unsent with its sends late and its loop the cause (its CPU: more\n"
		   "-t); the connections' limit when they were the cause (more -c). The search stops\n"
		   "at either and says the rate found is a floor. Every step's --json is kept in DIR\n"
		   "(hxload-find-<time>); --pid NAME=PID adds each process's CPU per request; --html\n"
		   "FILE draws the steps: rate against p50, p99 and p99.9 with the SLO's lines.\n"
		   "--backend-stats URL: the backend is hxterm, URL its --stats /stats.json, read\n"
		   "before and after each step; a step where a worker was busy over --backend-busy\n"
		   "PCT (80) is \"backend saturated: void\": the bounds stay, the search ends there.\n");
	return rc;
}

/* seconds of "15", "15s", "500ms", "2m" */
static double secs_of(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0)
		return -1;
	if (!strcmp(end, "ms"))
		return v / 1e3;
	if (!strcmp(end, "m"))
		return v * 60;
	return !*end || !strcmp(end, "s") ? v : -1;
}

/* find's own option <a> with its value <v>: 1 taken, 0 not find's, -1 bad */
static int own_option(struct find *x, const char *a, const char *v)
{
	double d = v ? atof(v) : 0;

	if (!strcmp(a, "--slo"))
		x->slo = v;
	else if (!strcmp(a, "--step-duration"))
		x->step_s = secs_of(v);
	else if (!strcmp(a, "--step-warmup"))
		x->warm_s = secs_of(v);
	else if (!strcmp(a, "--start"))
		x->start = d;
	else if (!strcmp(a, "--precision"))
		x->precision = d / 100;
	else if (!strcmp(a, "--max-rate"))
		x->max_rate = d;
	else if (!strcmp(a, "--max-steps"))
		x->max_steps = (int)d;
	else if (!strcmp(a, "--client-cpu"))
		x->cpu_max = d / 100;
	else if (!strcmp(a, "--keep"))
		x->keep = v;
	else if (!strcmp(a, "--html"))
		x->html = v;
	else if (!strcmp(a, "--backend-stats"))
		return v && lc_guard_url(x->bstats = v) == 0 ? 1 : -1;
	else if (!strcmp(a, "--backend-busy"))
		return v && lc_guard_pct(v, &x->bbusy) == 0 ? 1 : -1;
	else
		return 0;
	return 1;
}

static int parse(struct find *x, int argc, char **argv)
{
	const char *err;
	int last = argc - 1;

	if (argc < 2)
		return usage(stderr, 2);
	x->url = argv[last];
	if (!strcmp(x->url, "-h") || !strcmp(x->url, "--help"))
		return usage(stdout, 0) ? 2 : 1;
	for (int i = 1; i < last; i++) {
		const char *a = argv[i];
		int r;

		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return usage(stdout, 0) ? 2 : 1;
		if (!strcmp(a, "--json")) {
			x->json = 1;
			continue;
		}
		if ((r = own_option(x, a, i + 1 < last ? argv[i + 1] : NULL)) > 0) {
			i++;
			continue;
		}
		if (r < 0)
			return fprintf(stderr, "hxload find: %s %s: %s\n", a, i + 1 < last ? argv[i + 1] : "",
				       !strcmp(a, "--backend-busy") ? "a percentage, 1 to 100" :
				       "hxterm's --stats address, http://HOST:PORT/stats.json"), 2;
		if (!strcmp(a, "-R") || !strcmp(a, "--stages") || !strcmp(a, "-d") || !strcmp(a, "-n") ||
		    !strcmp(a, "-w") || !strcmp(a, "--label") || !strcmp(a, "--fail-on") || !strcmp(a, "-q") ||
		    !strcmp(a, "--log") || !strcmp(a, "--interval") || !strcmp(a, "--start-at"))
			return fprintf(stderr, "hxload find: %s is find's to set (each step's rate, length and "
					       "label)\n", a), 2;
		if (x->npass + 2 > FIND_MAX_ARGS)
			return fprintf(stderr, "hxload find: too many options\n"), 2;
		/* WHY read here too: the client's CPU share and the connections'
		 * capacity need them; "-c 100" and "-c100" alike, as getopt reads */
		if (a[0] == '-' && a[1] && strchr("tcm", a[1])) {
			const char *v = a[2] ? a + 2 : i + 1 < last ? argv[i + 1] : "0";
			int *to = a[1] == 't' ? &x->threads : a[1] == 'c' ? &x->conns : &x->depth;

			*to = atoi(v) > 0 ? atoi(v) : *to;
		}
		x->pass[x->npass++] = a;
	}
	if (!x->slo)
		return fprintf(stderr, "hxload find: --slo is needed, such as --slo 'p99<20ms,errors<0.1%%'\n"), 2;
	if (lc_check_parse(x->slo, &err) < 0)
		return fprintf(stderr, "hxload find: --slo '%s': %s\n", x->slo, err), 2;
	if (x->step_s < 0.5 || x->warm_s < 0 || x->precision <= 0 || x->precision > 1 || x->max_steps < 2 ||
	    x->max_steps > LC_FIND_MAX_STEPS || x->cpu_max <= 0 || x->cpu_max > 1 || x->start < 0 || x->max_rate < 0)
		return fprintf(stderr, "hxload find: --step-duration 0.5 s or more, --precision 0 to 100, "
				       "--max-steps 2 to %d, --client-cpu 0 to 100\n", LC_FIND_MAX_STEPS), 2;
	return 0;
}

/* one child run at <rate> (0: closed loop) for <secs>, its JSON to <out>:
 * its exit status; <*cpu_us> the client's CPU */
static int run_at(struct find *x, double rate, double secs, const char *label, const char *out, const char *err,
		  uint64_t *cpu_us)
{
	char *args[FIND_MAX_ARGS + 20], r[32], d[32], w[32];
	int n = 0;

	args[n++] = "hxload";
	for (int i = 0; i < x->npass; i++)
		args[n++] = (char *)x->pass[i];
	if (rate > 0) {
		snprintf(r, sizeof(r), "%.1f", rate);
		args[n++] = "-R", args[n++] = r;
	}
	snprintf(d, sizeof(d), "%gs", secs);
	args[n++] = "-d", args[n++] = d;
	if (rate > 0 && x->warm_s > 0) {
		snprintf(w, sizeof(w), "%gs", x->warm_s);
		args[n++] = "-w", args[n++] = w;
	}
	args[n++] = "--json", args[n++] = "-q", args[n++] = "--label", args[n++] = (char *)label;
	args[n++] = (char *)x->url;
	args[n] = NULL;
	return lc_child(args, out, err, cpu_us);
}

struct read_ctx {
	struct lc_stats T;
	struct lc_meta m;
	struct step *s;
	int got;
};

static int read_one(const struct json *r, void *arg)
{
	struct read_ctx *c = arg;
	const struct json *cpu = json_get(r, "cpu");

	if (c->got++ || lc_run_read(r, &c->T) < 0)
		return -1;
	c->m.secs = json_num(r, "seconds", 0);
	lc_why_read(r, &c->m.first_bad);
	c->m.target_rps = json_num(json_get(r, "schedule"), "target_rps", 0);
	for (size_t i = 0; cpu && cpu->type == JSON_OBJ && i < cpu->n && i < LC_MAX_PIDS; i++) {
		snprintf(c->s->cpu[i].name, sizeof(c->s->cpu[i].name), "%s", cpu->key[i]);
		c->s->cpu[i].us_per_req = json_num(&cpu->kid[i], "us_per_request", 0);
		c->s->npids = (int)i + 1;
	}
	return 0;
}

/* the figures a report shows of a step, and the ones it was judged on */
static void figures(struct step *s, const struct lc_stats *T, const struct lc_meta *m)
{
	uint64_t unsent = T->scheduled > T->sent ? T->scheduled - T->sent : 0, errs = lc_stats_errors(T);

	s->reqs = T->reqs;
	s->sent_ps = T->sent / m->secs;
	s->p50 = hist_quantile(&T->h[H_LAT], 0.5) / 1e3;
	s->p99 = hist_quantile(&T->h[H_LAT], 0.99) / 1e3;
	s->p999 = hist_quantile(&T->h[H_LAT], 0.999) / 1e3;
	s->ttfb99 = hist_quantile(&T->h[H_TTFB], 0.99) / 1e3;
	s->srv99 = hist_quantile(&T->h[H_SRV], 0.99) / 1e3;
	s->queue99 = hist_quantile(&T->h[H_QUEUE], 0.99) / 1e3;
	s->err_pct = T->reqs + errs ? 100.0 * (double)errs / (double)(T->reqs + errs) : 0;
	s->late_pct = T->sent ? 100.0 * (double)T->late / (double)T->sent : 0;
	s->unsent_pct = T->scheduled ? 100.0 * (double)unsent / (double)T->scheduled : 0;
}

/* a run whose answers were mostly of a status --expect does not name
 * measured failures, not a rate: said with the first one, 1; else 0 */
static int failing(const struct read_ctx *c, const char *what)
{
	char q[LC_WHY_BODY + 120];

	if (!lc_mostly_unexpected(&c->T))
		return 0;
	lc_why_quote(q, sizeof(q), &c->m.first_bad);
	fprintf(stderr, "hxload find: %s: %llu of %llu answers were not of the expected status (--expect), "
		"so no rate is measured; the first: %s\n", what, (unsigned long long)c->T.unexpected,
		(unsigned long long)c->T.reqs, q);
	return 1;
}

/* a step at <rate>: run, read, judged. 0, 1 when its answers were failures,
 * or 2 when the child could not run */
static int step(struct find *x, double rate)
{
	struct step *s = &x->st[x->n];
	static struct read_ctx c;
	static struct lc_guard g;
	char label[32];
	uint64_t cpu = 0;
	double wall = x->step_s + x->warm_s;
	int rc;

	memset(s, 0, sizeof(*s));
	memset(&c, 0, sizeof(c));
	c.s = s;
	s->rate = rate;
	snprintf(label, sizeof(label), "step%d", x->n + 1);
	snprintf(s->file, sizeof(s->file), "%s/step%02d.json", x->keep, x->n + 1);
	snprintf(s->err, sizeof(s->err), "%s/step%02d.err", x->keep, x->n + 1);
	lc_guard_before(&g, x->bstats);
	rc = run_at(x, rate, x->step_s, label, s->file, s->err, &cpu);
	lc_guard_after(&g, x->bstats, x->bbusy, &s->guard, "find", label);
	if (rc == 2 || rc < 0 || rc == 127)
		return fprintf(stderr, "hxload find: step %d failed to run (exit %d)\n", x->n + 1, rc), 2;
	x->n++;
	if (lc_runs_each("find", s->file, read_one, &c) < 0 || c.m.secs <= 0) {
		char line[300] = "";
		FILE *e = fopen(s->err, "r");

		if (e && fgets(line, sizeof(line), e))
			line[strcspn(line, "\n")] = 0;
		if (e)
			fclose(e);
		s->v = V_MISSED;
		snprintf(s->why, sizeof(s->why), "nothing answered (exit %d%s%s)", rc, line[0] ? ": " : "", line);
	} else {
		struct lc_find_fig f = { &c.T, &c.m, cpu / 1e6 / wall / (x->threads > 0 ? x->threads : 1), x->cpu_max,
					 x->conns, x->depth, x->threads };

		char what[64];

		snprintf(what, sizeof(what), "step %d at %.1f req/s", x->n, rate);
		if (failing(&c, what))
			return 1;
		figures(s, &c.T, &c.m);
		s->client_cpu = f.client_cpu;
		s->v = lc_find_judge(x->slo, &f, s->why, sizeof(s->why));
	}
	if (s->guard.saturated) {
		s->v = V_VOID;
		lc_guard_why(&s->guard, x->bbusy, s->why, sizeof(s->why));
	}
	if (!x->json)
		fprintf(stderr, "hxload find: step %d at %.1f req/s: %s%s%s\n", x->n, rate, lc_find_word(s->v),
			s->v == V_HELD ? "" : ": ", s->why);
	return 0;
}

/* closed loop for 2 s: the rate the search starts from is a quarter of it */
static int probe(struct find *x)
{
	static struct read_ctx c;
	static struct step s;
	char out[600];
	int rc;

	snprintf(out, sizeof(out), "%s/probe.json", x->keep);
	rc = run_at(x, 0, 2, "probe", out, NULL, NULL);
	memset(&c, 0, sizeof(c));
	c.s = &s;
	if (rc == 2 || rc < 0 || lc_runs_each("find", out, read_one, &c) < 0 || c.m.secs <= 0 || c.T.reqs < 8)
		return fprintf(stderr, "hxload find: the closed-loop probe answered too little for a rate (exit %d); "
				       "--start sets one\n", rc), rc > 0 ? rc : 1;
	if (failing(&c, "the closed-loop probe"))
		return 1;
	x->start = MAX(1.0, c.T.reqs / c.m.secs / 4);
	if (!x->json)
		fprintf(stderr, "hxload find: the closed-loop probe reached %.0f req/s; the steps start at %.0f\n",
			c.T.reqs / c.m.secs, x->start);
	return 0;
}

/* the search (find_search.c) fed with the steps run here */
static int search(struct find *x)
{
	double r;
	int rc;

	lc_find_init(&x->s, x->start, x->precision, x->max_rate, x->max_steps);
	while ((r = lc_find_next(&x->s)) > 0) {
		if ((rc = step(x, r)))
			return rc;
		lc_find_add(&x->s, x->st[x->n - 1].v);
	}
	return 0;
}

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

static void report_text(const struct find *x)
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

static void report_json(FILE *f, const struct find *x)
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
static int report_html(const struct find *x)
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
	report_json(f, x);
	lc_html_scripts(f);
	fputs(script, f);
	return fclose(f);
}

int lc_find_main(int argc, char **argv)
{
	static struct find x;
	int rc;

	x.step_s = 15;
	x.warm_s = 2;
	x.precision = 0.05;
	x.max_steps = 30;
	x.cpu_max = 0.8;
	x.bbusy = LC_GUARD_BUSY;
	x.threads = 1;
	x.conns = 10; /* WHY: hxload's defaults, unless -c and -m say */
	x.depth = 1;
	if ((rc = parse(&x, argc, argv)))
		return rc == 1 ? 0 : rc;
	if (!(x.keep = lc_keep_dir("find", x.keep)))
		return 2;
	if (!x.start && (rc = probe(&x)))
		return rc;
	if ((rc = search(&x)))
		return rc;
	if (x.json)
		report_json(stdout, &x);
	else
		report_text(&x);
	if (x.html && report_html(&x) < 0) {
		fprintf(stderr, "hxload find: --html '%s': cannot write it\n", x.html);
		return 2;
	}
	return x.s.lo ? 0 : 1;
}

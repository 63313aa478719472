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
#include "lc_sub.h"
#include "lc_stats.h"
#include "runs.h"
#include "lc_find_int.h"

#define F(f) OPT_F(struct find, f)

static const struct opt find_rows[] = {
	{ "slo", 0, .kind = OPT_FN, .set_at = lc_set_check, F(slo), .arg = "<spec>",
	  .help = "what must hold, --fail-on's grammar: 'p99<20ms,errors<0.1%'" },
	{ "step-duration", 0, .kind = OPT_FN, .set_at = lc_set_secs, F(step_s), .arg = "<t>",
	  .help = "each step's length, 0.5 s or more (15)" },
	{ "step-warmup", 0, .kind = OPT_FN, .set_at = lc_set_secs, F(warm_s), .arg = "<t>",
	  .help = "each step's warm-up before it (2)" },
	{ "start", 0, .kind = OPT_FN, .set_at = lc_set_real, F(start), .arg = "<rate>",
	  .help = "the first step's rate (a quarter of a 2 s closed-loop probe's)" },
	{ "precision", 0, .kind = OPT_FN, .set_at = lc_set_share, F(precision), .arg = "<pct>",
	  .help = "the bounds this close, over 0 (5)" },
	{ "max-rate", 0, .kind = OPT_FN, .set_at = lc_set_real, F(max_rate), .arg = "<rate>",
	  .help = "no step above it" },
	{ "max-steps", 0, .kind = OPT_NUM, F(max_steps), .min = 2, .max = LC_FIND_MAX_STEPS, .dflt = 30,
	  .arg = "<n>", .help = "steps at most (30)" },
	{ "client-cpu", 0, .kind = OPT_FN, .set_at = lc_set_share, F(cpu_max), .arg = "<pct>",
	  .help = "hxload over this share of its threads' CPU: the client's\n"
	  "limit, over 0 (80)" },
	{ "keep", 0, .kind = OPT_STR, F(keep), .arg = "<dir>",
	  .help = "where every step's --json is kept (hxload-find-<time>)" },
	{ "json", 0, .kind = OPT_FLAG, F(json),
	  .help = "one JSON object with every step" },
	{ "html", 0, .kind = OPT_STR, F(html), .arg = "<file>",
	  .help = "a page: each step's rate against p50, p99, p99.9, the SLO" },
	{ "backend-stats", 0, .kind = OPT_FN, .set_at = lc_set_guard_url, F(bstats), .arg = "<url>",
	  .help = "hxterm's --stats /stats.json: a step with a worker busy\n"
	  "over --backend-busy is void, the search ends there" },
	{ "backend-busy", 0, .kind = OPT_FN, .set_at = lc_set_guard_pct, F(bbusy), .arg = "<pct>",
	  .help = "... that share of a step (80)" },
	LC_SUB_END,
};
#undef F

static const struct lc_sub find_cmd = {
	.name = "find", .rows = find_rows, .own = LC_OWN_FIND, .own_why = "each step's rate, length and label",
	.synopsis = "find --slo SPEC [--step-duration T] [--step-warmup T] [--start RATE]\n"
		    "                   [--precision PCT] [--max-rate RATE] [--max-steps N] [--client-cpu PCT]\n"
		    "                   [--keep DIR] [--json] [--html FILE] [--backend-stats URL] [--backend-busy PCT]\n"
		    "                   [load options: -c -m -t --h2 --pid NAME=PID ...] URL",
	.about = "How much can it take? Open-loop steps of --step-duration (after --step-warmup),\n"
		 "the rate doubled from --start until a step misses the SLO, then bisected until\n"
		 "the rate that held and the one that did not are within --precision, in\n"
		 "--max-steps. A step that did not hold is run again before the bound moves (two\n"
		 "runs must agree), and so is the rate found. The target is judged on the time from\n"
		 "each actual send to the first byte (server + other); a step is the client's limit\n"
		 "when hxload's CPU passed --client-cpu, or when the SLO missed or over 1 % went\n"
		 "unsent with its sends late and its loop the cause (its CPU: more -t); the\n"
		 "connections' limit when they were the cause (more -c). The search stops at either\n"
		 "and says the rate found is a floor. --pid NAME=PID adds each process's CPU per\n"
		 "request. A step where a --backend-stats worker was busy over --backend-busy is\n"
		 "\"backend saturated: void\": the bounds stay, the search ends there.",
	.pos_what = "one URL", .npos_min = 1, .npos_max = 1,
};

/* find's own rows into <x>, the load options (checked) into x->pass for
 * every step. -1: go on, else the exit status */
static int parse(struct find *x, int argc, char **argv)
{
	static struct lc_opts load;
	struct lc_sub_args a = { .pass = x->pass, .maxpass = FIND_MAX_ARGS, .load = &load };
	int rc;

	if ((rc = lc_sub_parse(&find_cmd, x, argc, argv, &a)) >= 0)
		return rc;
	x->npass = a.npass;
	x->url = a.pos[0];
	/* WHY read here too: the client's CPU share and the connections'
	 * capacity need them */
	x->threads = load.threads;
	x->conns = load.conns;
	x->depth = load.depth;
	if (!x->slo)
		return fprintf(stderr, "hxload find: --slo is needed, such as --slo 'p99<20ms,errors<0.1%%'\n"), 2;
	if (x->step_s < 0.5 || x->precision <= 0 || x->cpu_max <= 0)
		return fprintf(stderr, "hxload find: --step-duration 0.5 s or more, --precision and --client-cpu "
				       "over 0\n"), 2;
	return -1;
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

int lc_find_main(int argc, char **argv)
{
	static struct find x;
	int rc;

	x.step_s = 15;
	x.warm_s = 2;
	x.precision = 0.05;
	x.cpu_max = 0.8;
	x.bbusy = LC_GUARD_BUSY;
	if ((rc = parse(&x, argc, argv)) >= 0)
		return rc;
	if (!(x.keep = lc_keep_dir("find", x.keep)))
		return 2;
	if (!x.start && (rc = probe(&x)))
		return rc;
	if ((rc = search(&x)))
		return rc;
	if (x.json)
		find_report_json(stdout, &x);
	else
		find_report_text(&x);
	if (x.html && find_report_html(&x) < 0) {
		fprintf(stderr, "hxload find: --html '%s': cannot write it\n", x.html);
		return 2;
	}
	return x.s.lo ? 0 : 1;
}

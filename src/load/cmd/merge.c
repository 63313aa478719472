/* hxload merge: several runs' JSON (from several load machines) read back and reported as one, from the summed histograms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "json.h"
#include "lc_cmd.h"
#include "lc_idle.h"
#include "lc_stats.h"
#include "lc_sub.h"
#include "runs.h"

/* "a" then "a+b": labels and hosts of the merged runs */
static void join(char *dst, size_t n, const char *add)
{
	size_t l = strlen(dst);

	if (!*add || strstr(dst, add))
		return;
	snprintf(dst + l, n - l, "%s%s", l ? "+" : "", add);
}

/* --expect and the first unexpected answer: the first run's that has one */
static void meta_why_read(const struct json *r, struct lc_meta *m)
{
	if (!m->expect[0] || !strcmp(m->expect, "2xx"))
		snprintf(m->expect, sizeof(m->expect), "%s", *json_str(r, "expect") ? json_str(r, "expect") : "2xx");
	lc_why_read(r, &m->first_bad);
}

static void meta_read(const struct json *r, struct lc_meta *m)
{
	double start = json_num(r, "start", 0), end = json_num(r, "end", 0), secs = json_num(r, "seconds", 0);
	const struct json *sc = json_get(r, "schedule");

	if (!m->runs || start < m->start)
		m->start = start;
	if (end > m->end)
		m->end = end;
	if (secs > m->secs)
		m->secs = secs; /* WHY the longest: the runs ran side by side (--start-at) */
	m->target_rps += json_num(sc, "target_rps", 0);
	m->runs += (int)json_num(r, "runs", 1);
	meta_why_read(r, m);
	join(m->label, sizeof(m->label), json_str(r, "label"));
	join(m->host, sizeof(m->host), json_str(r, "host"));
	if (!m->url[0])
		snprintf(m->url, sizeof(m->url), "%s", json_str(r, "url"));
	else if (strcmp(m->url, json_str(r, "url")))
		snprintf(m->url, sizeof(m->url), "several URLs");
}

/* what must match for runs to add up: the URL, the load options, an
 * overlapping window */
struct ref {
	char file[256], url[2048], opts[2048];
	double start, end;
	int set;
};

/* the options of a run's command line without those that change no load
 * (where the report goes, its label, when it starts, which shard it is) nor
 * the URL */
static void load_opts(const char *cmd, const char *url, char *out, size_t n)
{
	static const char *const skip1[] = { "--label", "--html", "--log", "--start-at", "--fail-on", "--interval",
					     "--shard", "--shards", "--hlog", "--metrics" };
	static const char *const skip0[] = { "--json", "-q", "--quiet" };
	char buf[2048], *save = NULL;
	size_t len = 0;
	int drop = 0;

	snprintf(buf, sizeof(buf), "%s", cmd);
	out[0] = 0;
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		int skip = drop || !strcmp(w, url) || (w[0] == '\'' && strstr(w, url));

		drop = 0;
		for (size_t i = 0; i < ARRAY_SIZE(skip1) && !skip; i++)
			drop = skip = !strcmp(w, skip1[i]);
		for (size_t i = 0; i < ARRAY_SIZE(skip0) && !skip; i++)
			skip = !strcmp(w, skip0[i]);
		if (!skip && len < n)
			len += (size_t)snprintf(out + len, n - len, "%s%s", len ? " " : "", w);
	}
}

/* 0 when <j> adds up with the first run read, else -1 after one line */
static int alike(struct ref *r, const struct json *j, const char *file, int force)
{
	char opts[2048];
	const char *url = json_str(j, "url"), *why = NULL;
	double start = json_num(j, "start", 0), end = json_num(j, "end", 0);

	load_opts(json_str(j, "options"), url, opts, sizeof(opts));
	if (!r->set) {
		snprintf(r->file, sizeof(r->file), "%s", file);
		snprintf(r->url, sizeof(r->url), "%s", url);
		snprintf(r->opts, sizeof(r->opts), "%s", opts);
		r->start = start, r->end = end, r->set = 1;
		return 0;
	}
	if (strcmp(url, r->url))
		why = "ran different URLs";
	else if (strcmp(opts, r->opts))
		why = "ran different load options";
	else if (start >= r->end || end <= r->start)
		why = "ran at different times (their windows do not overlap)";
	if (!why)
		return 0;
	fprintf(stderr, "hxload merge: %s and %s %s: a merge adds runs made side by side, --force adds these anyway "
		"(hxload compare tells two settings apart)\n", r->file, file, why);
	return force ? 0 : -1;
}

struct merge_acc {
	struct lc_stats *T;
	struct lc_meta *m;
	struct ref *ref;
	const char *file;
	int force;
};

static int merge_one(const struct json *j, void *arg)
{
	struct merge_acc *acc = arg;
	static struct lc_stats s;

	if (lc_run_read(j, &s) < 0 || lc_idle_read(j) < 0)
		return -1;
	if (alike(acc->ref, j, acc->file, acc->force) < 0)
		exit(2);
	meta_read(j, acc->m);
	lc_stats_add(acc->T, &s);
	return 0;
}

/* merge's options */
struct merge_opts {
	int json, force;
	const char *html, *fail_on, *label;
};

#define F(f) OPT_F(struct merge_opts, f)

static const struct opt merge_rows[] = {
	{ "json", 0, .kind = OPT_FLAG, F(json), .help = "one JSON object, as a run's --json" },
	{ "html", 0, .kind = OPT_STR, F(html), .arg = "<file>", .help = "a self-contained HTML report" },
	{ "fail-on", 0, .kind = OPT_FN, .set_at = lc_set_check, F(fail_on), .arg = "<spec>",
	  .help = "exit 3 when a threshold is crossed (hxload --fail-on)" },
	{ "label", 0, .kind = OPT_STR, F(label), .arg = "<text>", .help = "the merged run's name" },
	{ "force", 0, .kind = OPT_FLAG, F(force),
	  .help = "merge runs of other URLs, load options or windows too" },
	LC_SUB_END,
};
#undef F

static const struct lc_sub merge_cmd = {
	.name = "merge", .rows = merge_rows,
	.synopsis = "merge [--json] [--html FILE] [--fail-on SPEC] [--label L] [--force] RUN.json...",
	.about = "Reports several runs' --json results as one, from their summed histograms:\n"
		 "counts add up, percentiles are those of all the samples together, the rate\n"
		 "is the sum (the runs ran at the same time, see --start-at). Runs of other URLs,\n"
		 "other load options or windows that do not overlap are refused (exit 2)\n"
		 "unless --force.",
	.pos_what = "one or more RUN.json files", .npos_min = 1, .npos_max = 1 << 30,
};

int lc_merge_main(int argc, char **argv)
{
	static struct lc_stats T;
	struct lc_meta m = { .version = HX_VERSION };
	struct merge_opts o = { 0 };
	struct lc_sub_args a = { 0 };
	static struct ref ref;
	int rc;

	if ((rc = lc_sub_parse(&merge_cmd, &o, argc, argv, &a)) >= 0)
		return rc;
	for (int i = 0; i < a.npos; i++)
		if (lc_runs_each("merge", a.pos[i], merge_one, &(struct merge_acc){ &T, &m, &ref, a.pos[i], o.force }) < 0)
			return 2;
	if (o.label)
		snprintf(m.label, sizeof(m.label), "%s", o.label);
	snprintf(m.cmdline, sizeof(m.cmdline), "merge of %d runs", m.runs);
	if (m.secs <= 0)
		m.secs = 1e-6;
	return lc_finish(&T, &m, NULL, o.json, o.html, o.fail_on);
}

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
#include "lc_guard.h"
#include "lc_sub.h"
#include "runs.h"
#include "stats_t.h"
#include "lc_ab.h"

#define F(f) OPT_F(struct ab, f)

static const struct opt ab_rows[] = {
	{ "rounds", 0, .kind = OPT_NUM, F(rounds), .min = 2, .max = AB_MAX_ROUNDS, .dflt = 5, .arg = "<n>",
	  .help = "rounds, ordered ABBA BAAB... so that drift cancels (5)" },
	{ "keep", 0, .kind = OPT_STR, F(keep), .arg = "<dir>",
	  .help = "where every run's --json is kept (hxload-ab-<time>)" },
	{ "closed", 0, .kind = OPT_FLAG, F(closed),
	  .help = "both sides closed loop, for capacity (not with -R)" },
	{ "json", 0, .kind = OPT_FLAG, F(json),
	  .help = "one JSON object" },
	{ "html", 0, .kind = OPT_STR, F(html), .arg = "<file>",
	  .help = "a page: the verdict, the table, A's and B's spectra" },
	{ "max-failed", 0, .kind = OPT_FN, .set_at = lc_set_share, F(max_failed), .arg = "<pct>",
	  .help = "a side with more failed requests than this % failed (1)" },
	{ "from", 0, .kind = OPT_STR, F(from), .arg = "<dir>",
	  .help = "no runs: the a1.json b1.json ... a --keep DIR holds, read again" },
	{ "backend-stats", 0, .kind = OPT_FN, .set_at = lc_set_guard_url, F(bstats), .arg = "<url>",
	  .help = "hxterm's --stats /stats.json: a round with a worker busy\n"
	  "over --backend-busy is void" },
	{ "backend-busy", 0, .kind = OPT_FN, .set_at = lc_set_guard_pct, F(bbusy), .arg = "<pct>",
	  .help = "... that share of a run (80)" },
	LC_SUB_END,
};
#undef F

static const struct lc_sub ab_cmd = {
	.name = "ab", .rows = ab_rows, .own = LC_OWN_AB, .own_why = "each run is labelled A or B",
	.synopsis = "ab [--rounds N] [--keep DIR] [--closed] [--json] [--html FILE]\n"
		    "                 [--max-failed PCT] [--from DIR] [--backend-stats URL] [--backend-busy PCT]\n"
		    "                 [load options: -c -m -t -d -w -R --h2 --pid NAME=PID ...] A_URL B_URL",
	.about = "What does B add to A? The same load on A (a URL direct) and B (the same through\n"
		 "the proxy, or another proxy setting), in N rounds (5) ordered ABBA BAAB... so that\n"
		 "drift cancels, every round's --json kept in DIR (hxload-ab-<time>). Reported: B - A\n"
		 "for the rate, the latency percentiles, the server's time, other (the time to first\n"
		 "byte beyond the server: network and proxy), the body beyond the server's pacing,\n"
		 "the client's queue and each --pid process's CPU per request and per MiB, each\n"
		 "with its 95 % confidence interval over the rounds (paired). Open loop at one -R\n"
		 "for both sides; without -R, half the rate A reaches closed loop in a 2 s probe.\n"
		 "The verdict is on one figure, other p50 (the added latency), at 95 %; the other\n"
		 "rows' verdicts are corrected for their number (Holm). Latency rows are over the\n"
		 "answered requests only. A side whose failed requests (errors, and answers of a\n"
		 "status --expect (2xx) does not name) pass --max-failed PCT of its requests\n"
		 "failed: the verdict says so and the exit status is 1. A run that gave no result\n"
		 "drops its round from the pairs; under 2 rounds left, no table (exit 1).",
	.pos_what = "A_URL B_URL", .npos_min = 2, .npos_max = 2,
};

/* one run of side <s> (0: A, 1: B), its JSON to <out>, its stderr to
 * <err>: the exit status */
static int run_side(struct ab *x, int s, const char *label, const char *out, const char *err, const char *dur)
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
	return lc_child(args, out, err, NULL);
}

/* ab's own rows into <x>, the load options (checked) into x->pass for
 * both sides. -1: go on, else the exit status */
static int parse(struct ab *x, int argc, char **argv)
{
	static struct lc_opts load;
	struct lc_sub_args a = { .pass = x->pass, .maxpass = AB_MAX_ARGS, .load = &load };
	int rc;

	if ((rc = lc_sub_parse(&ab_cmd, x, argc, argv, &a)) >= 0)
		return rc;
	x->npass = a.npass;
	x->url[0] = a.pos[0];
	x->url[1] = a.pos[1];
	x->have_rate = load.rate > 0 || load.have_stages;
	if (x->closed && x->have_rate)
		return fprintf(stderr, "hxload ab: --closed and -R: one or the other\n"), 2;
	return -1;
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
	if ((rc = run_side(x, 0, "probe", out, NULL, "2")) != 0)
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

/* the first line of <file>, or "" */
static void first_line(const char *file, char *buf, size_t len)
{
	FILE *f = fopen(file, "r");

	buf[0] = 0;
	if (f && fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	if (f)
		fclose(f);
}

/* the backend's share of run <s><k> beside its JSON (a1.backend), for --from */
static void guard_keep(const struct ab *x, int s, int k)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%.*s.backend", (int)strlen(x->file[s][k]) - 5, x->file[s][k]);
	if (!(f = fopen(path, "w")) || fprintf(f, "%.6f %d\n", x->guard[s][k].share, x->guard[s][k].worker) < 0)
		fprintf(stderr, "hxload ab: %s: %s (--from will not see this run's backend)\n", path, strerror(errno));
	if (f)
		fclose(f);
}

/* run <s><k>'s kept share, judged against --backend-busy (absent: none) */
static void guard_read(struct ab *x, int s, int k)
{
	char path[600];
	struct lc_guard_run *r = &x->guard[s][k];
	FILE *f;

	snprintf(path, sizeof(path), "%.*s.backend", (int)strlen(x->file[s][k]) - 5, x->file[s][k]);
	*r = (struct lc_guard_run){ .share = -1, .worker = -1 };
	if (!(f = fopen(path, "r")))
		return;
	if (fscanf(f, "%lf %d", &r->share, &r->worker) == 2 && r->share >= 0) {
		r->saturated = r->share > x->bbusy;
		x->guarded = 1;
	} else {
		r->share = -1;
	}
	fclose(f);
}

/* a run between two reads of the backend's busy time (--backend-stats);
 * a read that fails is said, and the run not judged */
static int guarded_side(struct ab *x, int s, int k, const char *label, const char *err)
{
	static struct lc_guard g;
	int rc;

	lc_guard_before(&g, x->bstats);
	rc = run_side(x, s, label, x->file[s][k], err, NULL);
	lc_guard_after(&g, x->bstats, x->bbusy, &x->guard[s][k], "ab", label);
	if (x->guard[s][k].share >= 0)
		guard_keep(x, s, k);
	return rc;
}

/* every round, ABBA; a run's non-zero exit is said (its result, if any,
 * still counts); 2 when a run could not start (ab's own failure) */
static int run_rounds(struct ab *x)
{
	for (int k = 0; k < x->rounds; k++)
		for (int i = 0; i < 2; i++) {
			/* WHY ABBA: A B, B A, A B...: a drift over the rounds weighs on both alike */
			int s = (k & 1) ^ i, rc;
			char label[16], err[600], line[300];

			snprintf(x->file[s][k], sizeof(x->file[s][k]), "%s/%c%d.json", x->keep, 'a' + s, k + 1);
			snprintf(err, sizeof(err), "%s/%c%d.err", x->keep, 'a' + s, k + 1);
			snprintf(label, sizeof(label), "%c%d", 'A' + s, k + 1);
			rc = guarded_side(x, s, k, label, err);
			if (rc == 2 || rc < 0 || rc == 127)
				return fprintf(stderr, "hxload ab: run %s failed (exit %d): %s\n", label, rc, err), 2;
			first_line(err, line, sizeof(line));
			if (rc)
				fprintf(stderr, "hxload ab: run %s exit %d: %s\n", label, rc, line[0] ? line : "(no reason given)");
		}
	return 0;
}

/* --from DIR: the files a --keep DIR holds, as many rounds as a<k>.json
 * and b<k>.json both are there (or --rounds) */
static int from_dir(struct ab *x, int rounds_given)
{
	struct stat st;
	int k;

	x->keep = x->from;
	for (k = 0; k < (rounds_given ? x->rounds : AB_MAX_ROUNDS); k++)
		for (int s = 0; s < 2; s++) {
			snprintf(x->file[s][k], sizeof(x->file[s][k]), "%s/%c%d.json", x->from, 'a' + s, k + 1);
			if (!rounds_given && stat(x->file[s][k], &st) < 0)
				goto done;
		}
done:
	if (k < 2)
		return fprintf(stderr, "hxload ab: --from %s: no a1.json b1.json a2.json b2.json... in it\n", x->from), 2;
	x->rounds = k;
	return 0;
}

/* a run's result read, or why it has none (an empty file: its stderr's
 * first line) */
static int read_run(struct ab *x, int s, int k)
{
	char err[600], line[160];
	struct stat st;

	snprintf(err, sizeof(err), "%.*s.err", (int)strlen(x->file[s][k]) - 5, x->file[s][k]);
	if (stat(x->file[s][k], &st) < 0 || st.st_size == 0) {
		first_line(err, line, sizeof(line));
		snprintf(x->why[s][k], sizeof(x->why[s][k]), "%s", line[0] ? line : "an empty result");
		return -1;
	}
	if (lc_runs_each("ab", x->file[s][k], ab_read_one, &(struct read_ctx){ x, s, k }) < 0) {
		snprintf(x->why[s][k], sizeof(x->why[s][k]), "not an hxload --json result (the line above says why)");
		return -1;
	}
	return 0;
}

/* the rounds both of whose runs gave a result are paired; 0, or 1 when
 * under 2 remain */
static int read_rounds(struct ab *x)
{
	for (int k = 0; k < x->rounds; k++) {
		int a = read_run(x, 0, k), b = read_run(x, 1, k);

		guard_read(x, 0, k);
		guard_read(x, 1, k);

		x->used[k] = !a && !b && !ab_round_void(x, k);
		x->nused += x->used[k];
		x->nvoid += ab_round_void(x, k);
	}
	/* WHY on with void rounds: the report says the backend was the limit */
	if (x->nused >= 2 || x->nvoid)
		return 0;
	ab_failed_runs_text(x);
	fprintf(stderr, "hxload ab: %d of %d rounds gave a result on both sides: under 2, no comparison\n", x->nused,
		x->rounds);
	return 1;
}

int lc_ab_main(int argc, char **argv)
{
	static struct ab x;
	int rc, rounds_given;

	x.max_failed = 0.01;
	x.bbusy = LC_GUARD_BUSY;
	if ((rc = parse(&x, argc, argv)) >= 0)
		return rc;
	rounds_given = x.rounds != 5;
	if (x.from) {
		if ((rc = from_dir(&x, rounds_given)))
			return rc;
	} else {
		if (!(x.keep = lc_keep_dir("ab", x.keep)))
			return 2;
		if (!x.closed && !x.have_rate && (rc = probe_rate(&x)))
			return rc;
		if ((rc = run_rounds(&x)))
			return rc;
	}
	if (read_rounds(&x))
		return 1;
	for (int i = 0; i < x.nfig; i++)
		ab_fig_stats(&x, &x.fig[i]);
	ab_figs_holm(&x);
	ab_make_verdict(&x);
	if (x.json) {
		ab_report_json(stdout, &x);
		printf("\n");
	} else {
		ab_report_text(&x);
	}
	if (x.html && ab_report_html(&x) < 0)
		return fprintf(stderr, "hxload ab: --html %s: %s\n", x.html, strerror(errno)), 2;
	/* WHY 1 for a run without a result too: the table stands on fewer rounds than asked */
	return x.failed[0] || x.failed[1] || x.nused < x.rounds;
}

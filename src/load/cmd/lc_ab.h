/* hxload ab's state shared by its files: ab.c runs the rounds, ab_verdict.c pairs the figures, ab_report.c writes them */
#ifndef HX_LC_AB_H
#define HX_LC_AB_H

#include <stdint.h>
#include <stdio.h>

#include "lc_cmd.h"
#include "lc_guard.h"
#include "runs.h"
#include "stats_t.h"

#define AB_MAX_ROUNDS 50
#define AB_MAX_ARGS   200
#define AB_MAX_FIG    48
#define AB_HEADLINE   "other_ms.p50" /* the added latency: the one figure the verdict is on */

/* a figure of a run: its JSON path ("other_ms.p50", "cpu.proxy.us_per_request") */
struct fig {
	char path[96], name[64];
	int pct;                     /* B - A in percent (a rate), else in its own unit */
	int lat;                     /* a figure of the answers (a histogram's): a round counts where both sides had some */
	double a[AB_MAX_ROUNDS], b[AB_MAX_ROUNDS];
	uint8_t in[2][AB_MAX_ROUNDS]; /* the run of that side and round had it */
	int have;                    /* two rounds or more to pair, not all zero */
	double ma, mb;
	struct lc_paired r;          /* B - A over the rounds paired */
	int holm;                    /* not the headline: Holm's correction over the others rejects "no difference" */
};

struct ab {
	const char *url[2], *keep, *html, *from;
	const char *pass[AB_MAX_ARGS]; /* the load options both sides run with */
	int npass, rounds, json, closed, have_rate;
	double max_failed;           /* a side with more failed requests than this share failed */
	char rate[32];
	char file[2][AB_MAX_ROUNDS][512];
	char why[2][AB_MAX_ROUNDS][200]; /* a run without a result: why, "" when it had one */
	int used[AB_MAX_ROUNDS];     /* both runs of the round gave a result: it is paired */
	int nused;
	uint64_t answered[2][AB_MAX_ROUNDS];
	struct fig fig[AB_MAX_FIG];
	int nfig;
	struct lc_stats pooled[2];
	struct lc_why first_bad[2];  /* each side's first unexpected answer, quoted */
	char verdict[512];           /* the one line the text ends with and the page shows */
	int failed[2];               /* the side failed: its failed share over --max-failed */
	const char *bstats;          /* --backend-stats: hxterm's /stats.json, NULL: no guard */
	double bbusy;                /* --backend-busy, a share */
	struct lc_guard_run guard[2][AB_MAX_ROUNDS];
	int nvoid;                   /* rounds void: the backend saturated in one of their runs */
	int guarded;                 /* a run had its backend's share (now or kept in <keep>) */
};

struct read_ctx {
	struct ab *x;
	int side, round;
};

int ab_round_void(const struct ab *x, int k);
int ab_read_one(const struct json *r, void *arg);
void ab_fig_stats(const struct ab *x, struct fig *f);
void ab_figs_holm(struct ab *x);
void ab_make_verdict(struct ab *x);
const char *ab_fig_verdict(const struct fig *f);
int ab_is_headline(const struct fig *f);
uint64_t ab_side_failed(const struct ab *x, int s);
double ab_side_share(const struct ab *x, int s);
void ab_failed_runs_text(const struct ab *x);
void ab_report_text(struct ab *x);
void ab_report_json(FILE *f, struct ab *x);
int ab_report_html(struct ab *x);

#endif

/* hxload find's state between its files: find.c runs the steps, find_report.c writes them. */
#ifndef HX_LC_FIND_INT_H
#define HX_LC_FIND_INT_H

#include <stdint.h>
#include <stdio.h>

#include "lc_cmd.h"
#include "lc_find.h"
#include "lc_guard.h"

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

void find_report_text(const struct find *x);
void find_report_json(FILE *f, const struct find *x);
int find_report_html(const struct find *x);

#endif

/* hxload compare's state between its files: compare_side.c reads the runs into units and pools them, compare.c tells the difference and reports it. */
#ifndef HX_LC_COMPARE_INT_H
#define HX_LC_COMPARE_INT_H

#include <stddef.h>

#include "json.h"
#include "lc_stats.h"

#define MAX_UNITS 100000 /* intervals (or runs) of one side */

/* what is resampled: an interval of a run, or a whole run */
struct unit {
	double secs, reqs, bytes, cpu_us;
	struct hist h[IV_MAX];
};

#define MAX_RUNS 1024

struct side {
	struct unit *u;
	size_t n, cap, runs, run_units; /* units; runs read; units that are whole runs */
	size_t first[MAX_RUNS + 1];  /* run k's units are [first[k], first[k + 1]) */
	int cpu;                     /* every unit has the server's CPU time */
	int has[IV_MAX];             /* every unit has that histogram */
	char label[256];
};

/* the metrics, each a function of a pooled set of units */
enum { M_RPS, M_P50, M_P90, M_P99, M_P999, M_SRV50, M_SRV99, M_OTH50, M_OTH99, M_BOTH50, M_Q99, M_CPU_REQ,
       M_CPU_MIB, M_MAX };
/* the interval histogram of each metric, -1: none */
extern const int compare_iv[M_MAX];

int compare_split(int m);
double compare_diff(int m, double a, double b);
void compare_pool_add(struct unit *p, const struct unit *u);
double compare_metric(const struct unit *p, int m);
int compare_side_run(const struct json *r, void *arg);
void compare_pool_all(const struct side *s, struct unit *p);

#endif

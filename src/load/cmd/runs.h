/* hxload's --json results read back, for merge and compare. */
#ifndef HX_RUNS_H
#define HX_RUNS_H

#include "hist.h"
#include "json.h"
#include "lc_stats.h"

/* Calls <each>(run, <arg>) for each run (a --json result line) of <file>.
 * Returns 0, or -1 after one line on stderr (<who>: "merge", "compare"):
 * the file unreadable, holding no run, or <each> refusing one. */
int lc_runs_each(const char *who, const char *file, int (*each)(const struct json *run, void *arg), void *arg);

/* a histogram as --json writes it (hist_json.h): 0 or -1 */
int lc_hist_read(struct hist *h, const struct json *o);

/* a run's first unexpected answer into <w>, unless <w> holds one already */
void lc_why_read(const struct json *r, struct lc_why *w);

/* a run's --handshakes object into <s> (zeroed when it has none): 0 or -1 (a histogram malformed) */
int lc_hs_read(struct lc_hs_stats *s, const struct json *r);

/* a run's counters and histograms into <s>: 0 or -1 (fields missing) */
int lc_run_read(const struct json *r, struct lc_stats *s);

#endif

/* hxload find's decisions, pure functions of recorded figures: a step's verdict (whose limit it met) and the search over the steps' verdicts. */
#ifndef HX_LC_FIND_H
#define HX_LC_FIND_H

#include <stddef.h>

#include "lc_stats.h"

/* a step: the SLO held, or not (the target's limit); or the client could
 * not tell: its CPU or its loop (V_CLIENT), or its connections (V_CONNS);
 * or the backend behind the target saturated (V_VOID, --backend-stats) */
enum lc_verdict { V_HELD, V_MISSED, V_CLIENT, V_CONNS, V_VOID };

/* a step's figures, as its child run recorded them */
struct lc_find_fig {
	const struct lc_stats *T;
	const struct lc_meta *m;
	double client_cpu;           /* hxload's CPU time / (wall x threads) */
	double cpu_max;              /* --client-cpu, a share */
	int conns, depth, threads;   /* -c, -m, -t the steps ran with */
};

/* the share of the queue time over which a step's late sends are the
 * loop's (hxload's CPU) rather than its connections'; or the loop late by
 * LC_LATE_US on average */
#define LC_FIND_LOOP_SHARE 0.5

/* <f> judged against <slo>: its verdict, the evidence in <why> */
enum lc_verdict lc_find_judge(const char *slo, const struct lc_find_fig *f, char *why, size_t len);
const char *lc_find_word(enum lc_verdict v);

#define LC_FIND_MAX_STEPS 64

/* what was run at one rate, and what it came to */
struct lc_find_rate {
	double rate;
	int held, not_held;          /* runs that held, runs that did not */
	enum lc_verdict kind;        /* of the runs that did not: V_MISSED unless every one was the client's */
	int resolved;                /* 1 held, -1 did not, 0 open */
};

/* the search, fed each step's verdict: doubled from <start> while the
 * steps hold, then bisected to <precision>; a step that did not hold is run
 * again before the bound moves (two of its runs must agree), and so is the
 * rate found before it is given */
struct lc_find_search {
	double start, precision, max_rate;
	int max_steps;
	int steps;                   /* run so far */
	struct lc_find_rate r[LC_FIND_MAX_STEPS];
	int nr;
	int cur;                     /* the rate being decided in r[], -1: none */
	double lo, hi;               /* the highest rate decided held, the lowest decided not (0: none) */
	double void_rate;            /* the rate of a step void (the backend saturated), 0: none */
	enum lc_verdict hi_kind;     /* why <hi> did not hold */
	int lo_confirmed;            /* <lo> held twice */
	int done;                    /* 1 precision reached, 2 --max-rate held, 3 the client's limit, 4 none held,
				      * 5 the backend's limit (a step void), -1 --max-steps ran out first */
};

void lc_find_init(struct lc_find_search *s, double start, double precision, double max_rate, int max_steps);
/* the rate the next step runs at, 0 when the search is over (s->done) */
double lc_find_next(struct lc_find_search *s);
/* the verdict of the step just run at lc_find_next()'s rate */
void lc_find_add(struct lc_find_search *s, enum lc_verdict v);
/* the spread: the lowest rate any run missed at, the highest any held at,
 * and how many rates had runs that disagreed */
void lc_find_spread(const struct lc_find_search *s, double *lowest_miss, double *highest_held, int *mixed);

#endif

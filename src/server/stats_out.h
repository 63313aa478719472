/* The stats listener's documents: /metrics, /stats.json and the live page. */
#ifndef HX_STATS_OUT_H
#define HX_STATS_OUT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

/* text that grows; <failed> when memory ran out (answered 500, never cut) */
struct sbuf {
	char *p;
	size_t len, cap;
	int failed;
};

/* appends printf's text to <b> (b->failed when memory ran out) */
void stats_put(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void stats_vput(struct sbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* what the history keeps of one moment: cumulative counts, every worker's */
struct st_snap {
	double t;                    /* epoch seconds */
	uint64_t req[SP_MAX], active[SP_MAX];
	uint64_t errors;             /* 4xx and 5xx answers */
	uint64_t gen[ST_FINE_B], late[ST_FINE_B]; /* generation time, timer lateness: fine bucket counts */
};
/* the counters now, summed */
void stats_snapshot(struct st_snap *s);
/* the stats thread, each second: a sample into the history ... */
void stats_hist_tick(void);
/* ... which /history.json serves: per-second rates and quantiles of the
 * samples after <since> (epoch seconds; 0: all, up to 10 minutes) */
void stats_hist_json(struct sbuf *b, double since);

/* notes the start time the documents report */
void stats_out_init(void);
/* the Prometheus text format */
void stats_metrics(struct sbuf *b);
/* the same figures as one JSON object */
void stats_json(struct sbuf *b);
/* the live page: HTML with its script, no external asset; NULL out of
 * memory (made once, by the first caller: stats_out_init) */
const char *stats_page(void);

#endif

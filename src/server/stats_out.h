/* The stats listener's documents: /metrics, /stats.json and the live page. */
#ifndef HX_STATS_OUT_H
#define HX_STATS_OUT_H

#include <stddef.h>

/* text that grows; <failed> when memory ran out (answered 500, never cut) */
struct sbuf {
	char *p;
	size_t len, cap;
	int failed;
};

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

/* Counter rows: a named run of 64-bit counters in a struct of them, with its JSON key, Prometheus family, label and help; one mechanism for hxterm's ST_ROWS and hxload's counters and body readers' rows. */
#ifndef HX_ROWS_H
#define HX_ROWS_H

#include <stddef.h>
#include <stdint.h>

/* One row: <n> counters from <off> in a struct that is 64-bit counters only
 * (hxterm's struct wstats summed, hxload's struct lc_stats' counters). A
 * value whose name is NULL is not in use (a listener that is not there):
 * left out of the JSON and of /metrics. */
struct row {
	const char *group;                 /* the JSON object it sits in (NULL: the caller's) */
	const char *json;                  /* its key in JSON */
	const char *name;                  /* its family in Prometheus, after the prefix (NULL: none) */
	const char *label;                 /* the label of its values (NULL: one value) */
	const char *const *lv, *const *jv; /* the values' names in Prometheus, in JSON (NULL: lv's) */
	const char *help;
	unsigned n;
	size_t off;
};

/* where rows are written: a printf into the caller's output */
struct row_out {
	void (*put)(void *to, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	void *to;
};

/* a row_out's put for a FILE * */
void rows_fput(void *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* counter <i> of row <r> in <base> */
static inline uint64_t *row_at(const struct row *r, const void *base, unsigned i)
{
	return (uint64_t *)(void *)((char *)(uintptr_t)base + r->off) + i;
}

/* the JSON name of value <i> of a labelled row (NULL: not in use) */
static inline const char *row_jv(const struct row *r, unsigned i)
{
	return r->jv ? r->jv[i] : r->lv[i];
}

/* <dst>'s counters of the <n> rows += <src>'s */
void rows_add(const struct row *rows, size_t n, void *dst, const void *src);
/* the rows of <group> (NULL: those of none) as JSON members, each
 * ", \"key\": n", a labelled one ", \"key\": {\"value\": n, ...}" */
void rows_json(const struct row_out *o, const struct row *rows, size_t n, const void *base, const char *group);
/* the rows that have a name as Prometheus counter families <prefix><name>,
 * with their HELP and TYPE lines */
void rows_metrics(const struct row_out *o, const char *prefix, const struct row *rows, size_t n, const void *base);

#endif

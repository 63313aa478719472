/* Command-line options as one table of rows (name, kind, the field it sets, its range and default, its help): getopt's tables, the defaults, the setting, -h and the dump of the effective values all come from it. */
#ifndef HX_OPT_H
#define HX_OPT_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_kind {
	OPT_END,     /* the table's last row */
	OPT_TEXT,    /* no option: a line of -h (<help>) */
	OPT_FLAG,    /* sets its int field to 1 */
	OPT_CLEAR,   /* sets its int field to 0 */
	OPT_NUM,     /* a number into its field, in [min, max]: k/m/g, or its <parse> */
	OPT_CONST,   /* sets its field to <val> (--h1, --h2: one field, several rows) */
	OPT_STR,     /* its value, kept as given, into its const char * field */
	OPT_FN,      /* its own setter */
	OPT_HELP,    /* -h */
	OPT_VERSION, /* -v */
};

struct opt {
	const char *lname;           /* --lname, or NULL */
	char sname;                  /* -s, or 0 */
	uint8_t kind;                /* enum opt_kind */
	uint8_t size;                /* OPT_FLAG, OPT_CLEAR, OPT_NUM: the field's bytes */
	size_t off;                  /* the field, in the table's struct */
	uint64_t min, max, dflt;     /* OPT_NUM: the range; the default (dflt and sdflt: 0
				      * leaves the field to the program) */
	const char *sdflt;           /* OPT_STR: the default */
	uint64_t val;                /* OPT_CONST: what it sets */
	/* OPT_NUM: reads <s> into <*out>: 0, or -1 with the reason in <*err>;
	 * NULL: a number with k/m/g (num_plain) */
	int (*parse)(const char *s, uint64_t *out, const char **err);
	const char *range;           /* OPT_NUM: the range as the user says it ("1ms or more"),
				      * NULL: [min, max] */
	/* OPT_FN: sets from <arg>: 0, or -1 with one line in <why> */
	int (*set)(const char *arg, char *why, size_t len);
	/* OPT_FN, when <set> is NULL: sets the row's field in <base> from <arg>
	 * (no global, no exit): 0, or -1 with one line in <why> */
	int (*set_at)(const struct opt *o, void *base, const char *arg, char *why, size_t len);
	unsigned mark;               /* the program's own marks (hxload: the commands that set it themselves) */
	/* the dump: its own lines (NULL: the field, as the kind says) */
	void (*dump)(FILE *f, const struct opt *o, const void *base);
	int (*hide)(const void *base);  /* the dump leaves it out when this says 1 */
	const char *head;            /* -h's first column, when not its names and <arg> */
	const char *arg;             /* its value's name in -h ("<n>"), NULL: it takes none */
	const char *help;            /* -h: lines after the first go under it; NULL: not shown */
};

/* the rows' field: NUM(field, min, max, default), FLAG(field) ... of <type> */
#define OPT_F(type, f) .off = offsetof(type, f), .size = sizeof(((type *)0)->f)

/* The table's defaults into <base>. */
void opt_defaults(const struct opt *t, void *base);
/* getopt_long's short string (<shorts>, <ns> bytes) and long options (<lo>,
 * <nlo> rows): a row's key is its short name, or 256 + its index. 0, or -1
 * when they do not fit. */
int opt_getopt(const struct opt *t, char *shorts, size_t ns, struct option *lo, size_t nlo);
/* the row of getopt's key <key>, or NULL */
const struct opt *opt_row(const struct opt *t, int key);
/* Sets row <o> from <arg> into <base>: 0, or -1 with one line in <why>
 * ("--h2-window '0': out of range [1, 2147483647]"). */
int opt_set(const struct opt *o, void *base, const char *arg, char *why, size_t len);
/* -h's option lines, from the rows, their help at column <col> */
void opt_usage(FILE *f, const struct opt *t, int col);
/* every row's value in <base> as the option that gives it, a line each */
void opt_dump(FILE *f, const struct opt *t, const void *base);
/* a row's name as the user writes it: --lname, else -s; <buf> */
const char *opt_name(const struct opt *o, char *buf, size_t len);
/* the row of the word <w> of argv ("--x", "--x=v", "-c", "-c10"), or NULL;
 * <*val>: the value joined to it ("v", "10"), NULL when none */
const struct opt *opt_word(const struct opt *t, const char *w, const char **val);
/* the option <w> (a word of argv) takes the next word as its value */
int opt_takes_arg(const struct opt *t, const char *w);

#endif

/* hxload's commands (ab, find, merge, compare, quic-flood) on option rows: their own rows, the main rows by reference, -h generated from both. */
#ifndef HX_LC_SUB_H
#define HX_LC_SUB_H

#include <stddef.h>
#include <stdio.h>

#include "lc_opts.h"
#include "opt.h"

/* the marks of the main rows a command sets itself (refused on its line);
 * LC_OWN_PROBE: those --probe's own run drops (the load's shape and outputs) */
enum { LC_OWN_AB = 1, LC_OWN_FIND = 2, LC_OWN_PROBE = 4 };

struct lc_sub {
	const char *name;            /* "ab": its lines begin "hxload ab: " */
	const char *synopsis;        /* -h's first lines, after "Usage: hxload " */
	const struct opt *rows;      /* its own rows, on the struct it is parsed into */
	unsigned own;                /* LC_OWN_*: it takes the main rows (load options) but those marked
				      * so; 0: no load options */
	const char *own_why;         /* why it sets those itself, for the refusal */
	const char *about;           /* -h's text before the rows */
	const char *pos_what;        /* its words that are no option, as -h names them ("A_URL B_URL") */
	int npos_min, npos_max;      /* ... how many */
};

/* what the line held beside the command's own rows */
struct lc_sub_args {
	const char **pass;           /* the caller's array: the load options' words, in order */
	int maxpass, npass;
	struct lc_opts *load;        /* the load options as set (checked), NULL: not kept */
	char **pos;                  /* the other words, in order (argv's, moved to its front) */
	int npos;
};

/* a command's table's last rows: -h, the end */
#define LC_SUB_END { "help", 'h', .kind = OPT_HELP, .help = "this help" }, { .kind = OPT_END }

/* Reads <argv> (argv[0] the command's name): <s>'s rows into <base>, the
 * main rows into <a>. -1: go on; else the exit status (0 after -h's usage
 * on stdout, 2 after one line on stderr). */
int lc_sub_parse(const struct lc_sub *s, void *base, int argc, char **argv, struct lc_sub_args *a);
/* -h's text, generated from the rows */
void lc_sub_usage(FILE *f, const struct lc_sub *s);

/* setters of the commands' rows (OPT_FN, .set_at), each into the row's
 * field of <base>; 0, or -1 with one line in <why>; no global, no exit */
#define LC_SETTER(name) int name(const struct opt *o, void *base, const char *arg, char *why, size_t len)
LC_SETTER(lc_set_share);        /* a percentage 0..100 into a double share */
LC_SETTER(lc_set_pct);          /* a percentage 0..100 into a double */
LC_SETTER(lc_set_level);        /* a confidence level, 50 to under 100, into a double */
LC_SETTER(lc_set_real);         /* a number >= 0 into a double */
LC_SETTER(lc_set_secs);         /* a duration (15, 15s, 500ms, 2m) into a double of seconds */
LC_SETTER(lc_set_check);        /* --fail-on's grammar (check.c), the text kept */
LC_SETTER(lc_set_guard_url);    /* hxterm's /stats.json URL (guard.c), the text kept */
LC_SETTER(lc_set_guard_pct);    /* --backend-busy: a percentage 1..100 into a double share */

#endif

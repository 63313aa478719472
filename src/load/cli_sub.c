/* hxload's commands' command lines: their own rows, the main rows (load options) by reference but those a command marks as its own, -h generated from both. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "lc_cli_int.h"
#include "lc_sub.h"

#define SUB_COL 26 /* -h's help column */

void lc_sub_usage(FILE *f, const struct lc_sub *s)
{
	char name[64];
	const char *sep = "";

	fprintf(f, "Usage: hxload %s\n%s\nOptions:\n", s->synopsis, s->about);
	opt_usage(f, s->rows, SUB_COL);
	if (!s->own)
		return;
	fprintf(f, "Load options: those of hxload -h, checked, then passed to each run, but\n");
	for (const struct opt *o = cli_rows; o->kind != OPT_END; o++)
		if (o->mark & s->own) {
			fprintf(f, "%s%s", sep, opt_name(o, name, sizeof(name)));
			sep = ", ";
		}
	fprintf(f, ":\n%s sets them (%s).\n", s->name, s->own_why);
}

static int fail(const struct lc_sub *s, const char *what, const char *w)
{
	fprintf(stderr, "hxload %s: %s '%s' (try hxload %s -h)\n", s->name, what, w, s->name);
	return 2;
}

/* the main row <m> of the word <w>, its value <val>: checked into
 * a->load, its words handed on; -1, or the exit status */
static int load_word(const struct lc_sub *s, const struct opt *m, const char *w, const char *val, int joined,
		     struct lc_sub_args *a)
{
	char why[512];

	if ((m->mark & s->own) || m->kind == OPT_HELP || m->kind == OPT_VERSION)
		return fprintf(stderr, "hxload %s: %s is %s's to set (%s)\n", s->name, w, s->name, s->own_why), 2;
	if (a->load && opt_set(m, a->load, val, why, sizeof(why)) < 0)
		return fprintf(stderr, "hxload %s: %s\n", s->name, why), 2;
	if (a->npass + 2 > a->maxpass)
		return fprintf(stderr, "hxload %s: too many options\n", s->name), 2;
	a->pass[a->npass++] = w;
	if (val && !joined)
		a->pass[a->npass++] = val;
	return -1;
}

int lc_sub_parse(const struct lc_sub *s, void *base, int argc, char **argv, struct lc_sub_args *a)
{
	char why[512];
	int rc;

	opt_defaults(s->rows, base);
	if (a->load)
		opt_defaults(cli_rows, a->load);
	a->npass = a->npos = 0;
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i], *val;
		const struct opt *o = opt_word(s->rows, w, &val), *m = NULL;
		int joined = val != NULL;

		if (w[0] != '-' || !w[1]) {
			argv[1 + a->npos++] = argv[i];
			continue;
		}
		if (!o && (!s->own || !(m = opt_word(cli_rows, w, &val))))
			return fail(s, "bad option", w);
		joined = val != NULL;
		if ((o ? o : m)->arg && !val && i + 1 == argc)
			return fail(s, "a value is needed after", w);
		if ((o ? o : m)->arg && !val)
			val = argv[++i];
		if (!(o ? o : m)->arg && val)
			return fail(s, "no value is taken by", w);
		if (m && (rc = load_word(s, m, w, val, joined, a)) >= 0)
			return rc;
		if (o && o->kind == OPT_HELP)
			return lc_sub_usage(stdout, s), 0;
		if (o && opt_set(o, base, val, why, sizeof(why)) < 0)
			return fprintf(stderr, "hxload %s: %s\n", s->name, why), 2;
	}
	a->pos = argv + 1;
	if (a->npos < s->npos_min || a->npos > s->npos_max)
		return fprintf(stderr, "hxload %s: expected %s (try hxload %s -h)\n", s->name, s->pos_what, s->name), 2;
	return -1;
}

/* The option table's engine (core/opt.c): getopt's tables, defaults, setting by kind with ranges, -h's columns, the dump. */
#include <stdlib.h>

#include "opt.h"
#include "tap.h"

struct conf {
	int flag, on;
	uint32_t n32;
	uint64_t n64;
	uint8_t n8;
	const char *s;
	int fn_calls;
};

static struct conf C;

static int set_fn(const char *arg, char *why, size_t len)
{
	C.fn_calls++;
	if (!strcmp(arg, "bad"))
		return snprintf(why, len, "--fn '%s': bad", arg), -1;
	return 0;
}

static int hide_s(const void *base)
{
	return !((const struct conf *)base)->s;
}

#define T struct conf
static const struct opt tab[] = {
	{ NULL, 'f', .kind = OPT_FLAG, OPT_F(T, flag), .help = "a flag" },
	{ "on", 0, .kind = OPT_FLAG, OPT_F(T, on), .help = "on" },
	{ "off", 0, .kind = OPT_CLEAR, OPT_F(T, on) },
	{ .kind = OPT_TEXT, .help = "Numbers:" },
	{ "n32", 'n', .kind = OPT_NUM, OPT_F(T, n32), .min = 1, .max = 1 << 20, .dflt = 100, .arg = "<n>",
	  .help = "a 32-bit number\ntwo lines" },
	{ "a-rather-long-number", 0, .kind = OPT_NUM, OPT_F(T, n64), .min = 0, .max = 1ULL << 40, .arg = "<n>",
	  .help = "a long head" },
	{ "n8", 0, .kind = OPT_NUM, OPT_F(T, n8), .min = 0, .max = 255, .dflt = 7, .arg = "<n>", .help = "a byte",
	  .range = "255 at most" },
	{ "s", 's', .kind = OPT_STR, OPT_F(T, s), .arg = "<text>", .hide = hide_s, .help = "a string" },
	{ "fn", 0, .kind = OPT_FN, .set = set_fn, .arg = "<x>", .help = "its own setter" },
	{ "help", 'h', .kind = OPT_HELP, .help = "this help" },
	{ .kind = OPT_END },
};

static void tables(void)
{
	char shorts[32];
	struct option lo[16];
	const struct opt *o;

	ok(!opt_getopt(tab, shorts, sizeof(shorts), lo, 16), "getopt's tables built");
	is_str(shorts, ":fn:s:h", "the short string: a colon after those that take a value");
	ok(!strcmp(lo[0].name, "on") && lo[0].has_arg == no_argument && lo[0].val == 256 + 1,
	   "a long-only row's key is 256 + its index");
	o = opt_row(tab, 'n');
	ok(o && o->off == offsetof(T, n32), "a short key finds its row");
	o = opt_row(tab, lo[1].val);
	ok(o && !strcmp(o->lname, "off"), "a long key finds its row");
	ok(opt_getopt(tab, shorts, 4, lo, 16) < 0, "a short string too small is refused");
	ok(opt_takes_arg(tab, "-n") && opt_takes_arg(tab, "--fn") && !opt_takes_arg(tab, "-f") &&
	   !opt_takes_arg(tab, "--on") && !opt_takes_arg(tab, "n32"), "which words take the next as a value");
}

static void setting(void)
{
	char why[128] = "";

	memset(&C, 0, sizeof(C));
	opt_defaults(tab, &C);
	ok(C.n32 == 100 && C.n8 == 7 && C.n64 == 0, "the defaults");
	ok(!opt_set(opt_row(tab, 'f'), &C, NULL, why, sizeof(why)) && C.flag == 1, "a flag set");
	ok(!opt_set(&tab[1], &C, NULL, why, sizeof(why)) && C.on == 1, "--on");
	ok(!opt_set(&tab[2], &C, NULL, why, sizeof(why)) && C.on == 0, "--off clears the same field");
	ok(!opt_set(&tab[4], &C, "64k", why, sizeof(why)) && C.n32 == 65536, "a number with k");
	ok(opt_set(&tab[4], &C, "2m", why, sizeof(why)) < 0 && C.n32 == 65536, "out of range: refused, unchanged");
	is_str(why, "--n32 '2m': out of range [1, 1048576]", "... naming the option, the value and the range");
	ok(opt_set(&tab[4], &C, "12x", why, sizeof(why)) < 0 && !strncmp(why, "--n32 '12x': ", 13), "not a number");
	ok(!opt_set(&tab[5], &C, "64g", why, sizeof(why)) && C.n64 == 64ULL << 30, "64 bits: 64g");
	ok(!opt_set(&tab[6], &C, "255", why, sizeof(why)) && C.n8 == 255, "8 bits: 255");
	ok(opt_set(&tab[6], &C, "256", why, sizeof(why)) < 0, "8 bits: 256 refused");
	is_str(why, "--n8 '256': out of range (255 at most)", "... in the row's words");
	ok(!opt_set(&tab[7], &C, "x y", why, sizeof(why)) && !strcmp(C.s, "x y"), "a string kept as given");
	ok(opt_set(&tab[8], &C, "bad", why, sizeof(why)) < 0 && C.fn_calls == 1 && !strcmp(why, "--fn 'bad': bad"),
	   "a row's own setter, its reason passed on");
}

/* what <fn> writes to a FILE, as a string */
static char *captured(void (*fn)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f);
	fclose(f);
	return buf;
}

static void usage(FILE *f)
{
	opt_usage(f, tab, 23);
}

static void dump(FILE *f)
{
	opt_dump(f, tab, &C);
}

static void text(void)
{
	char *u = captured(usage), *d;

	ok(strstr(u, "  -f                   a flag\n") != NULL, "-h: the help at column 23");
	ok(strstr(u, "  -n, --n32 <n>        a 32-bit number\n                       two lines\n") != NULL,
	   "-h: both names, the value, a second line under the first");
	ok(strstr(u, "  --a-rather-long-number <n>  a long head\n") != NULL, "-h: a long head, then two spaces");
	ok(strstr(u, "Numbers:\n") && !strstr(u, "--off"), "-h: a text row; a row without help is not shown");
	free(u);
	C.s = NULL;
	d = captured(dump);
	ok(strstr(d, "-f\n") && strstr(d, "--n32 65536\n") && strstr(d, "--n8 255\n") && !strstr(d, "--on"),
	   "the dump: flags set, every number");
	ok(!strstr(d, "--s"), "... a row its hide() leaves out");
	free(d);
}

int main(void)
{
	tables();
	setting();
	text();
	return done_testing();
}

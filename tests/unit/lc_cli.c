/* hxload's option rows and their setters (cli_set.c, cli_sub.c): each setter writes the row's struct it is given, never the program's options, and refuses bad values with one line; the commands' parser sorts own rows, load options and other words. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lc_cli_int.h"
#include "lc_opts.h"
#include "lc_sub.h"
#include "tap.h"

static char why[512];

/* the main row of <word> set from <arg> into <b>: opt_set's answer */
static int set(struct lc_opts *b, const char *word, const char *arg)
{
	const char *val;
	const struct opt *o = opt_word(cli_rows, word, &val);

	why[0] = 0;
	if (!o)
		return printf("# no row for %s\n", word), -9;
	return opt_set(o, b, arg, why, sizeof(why));
}

/* a bad value: refused with one line that names the option */
static void refused(struct lc_opts *b, const char *word, const char *arg)
{
	int rc = set(b, word, arg);

	ok(rc == -1 && strstr(why, word) && !strchr(why, '\n'), "%s '%s' refused: %s", word, arg, why);
}

static void main_rows(void)
{
	static struct lc_opts b;
	char pid[48];

	opt_defaults(cli_rows, &b);
	ok(!set(&b, "-R", "100:200") && b.rate == 100 && b.rate_to == 200, "-R 100:200: a ramp");
	ok(lc_o->rate == 0, "... into the struct given, not hxload's options");
	refused(&b, "-R", "0");
	refused(&b, "-R", "10:x");
	ok(!set(&b, "--shard", "2/4") && b.shard == 2 && b.shards == 4, "--shard 2/4");
	refused(&b, "--shard", "4/4");
	unsetenv("JOB_COMPLETION_INDEX");
	refused(&b, "--shards", "4");
	setenv("JOB_COMPLETION_INDEX", "3", 1);
	ok(!set(&b, "--shards", "5") && b.shard == 3 && b.shards == 5, "--shards 5 with the index 3");
	ok(!set(&b, "--probe", "50") && b.probe == 50, "--probe 50");
	refused(&b, "--probe", "0.01");
	ok(!set(&b, "--stages", "1s@10,2s@20") && b.have_stages && b.nstages >= 2, "--stages: %d stages", b.nstages);
	refused(&b, "--stages", "1s@");
	ok(!set(&b, "--start-at", "2030-01-01T00:00:00Z") && b.start_at == 1893456000, "--start-at ISO, UTC");
	refused(&b, "--start-at", "yesterday");
	ok(!set(&b, "-H", "Host: example.com") && b.host_hdr && !strcmp(b.host_hdr, "example.com") && !b.nhdrs,
	   "-H Host: kept apart");
	ok(!set(&b, "-H", "Connection: close") && b.have_conn_hdr && b.nhdrs == 1, "-H Connection: noted, sent");
	refused(&b, "-H", "no colon");
	ok(!set(&b, "--h3-fields", "a:b&%3Ax:y") && b.nh3_fields == 2 && b.h3_fields[1].nlen == 2,
	   "--h3-fields: two, percent-decoded");
	refused(&b, "--h3-fields", "a:%zz");
	ok(!set(&b, "--connect-to", "a:1:b:2") && b.route.nconnect_to == 1, "--connect-to");
	ok(!set(&b, "--resolve", "a:1:127.0.0.1") && b.route.nresolve == 1, "--resolve");
	ok(!set(&b, "--proxy-protocol", "v2") && b.proxy_proto == 2, "--proxy-protocol v2");
	refused(&b, "--proxy-protocol", "v3");
	snprintf(pid, sizeof(pid), "me=%d", (int)getpid());
	ok(!set(&b, "--pid", pid) && b.npids == 1 && b.pids[0].pid == getpid(), "--pid %s", pid);
	refused(&b, "--pid", pid); /* the same name twice */
	refused(&b, "--pid", "x=0");
	ok(!set(&b, "--handshakes", "70:25:5") && b.hs && b.close && b.zero_rtt, "--handshakes 70:25:5");
	refused(&b, "--handshakes", "a:b");
	ok(!set(&b, "--fail-on", "p99>5ms") && b.fail_on && !strcmp(b.fail_on, "p99>5ms"), "--fail-on kept");
	refused(&b, "--fail-on", "p98>5ms");
	ok(!set(&b, "--expect", "200,404") && b.expect_set[404] && !b.expect_set[500], "--expect 200,404");
	refused(&b, "--expect", "2xx,99");
	ok(!set(&b, "-c", "7") && b.conns == 7, "-c 7 (a number row)");
	refused(&b, "-c", "0");
}

/* a command's own struct and rows, for the commands' setters */
struct cmd {
	double share, pct, level, real, secs, busy;
	const char *url, *slo, *file;
	int n, flag;
};

#define F(f) OPT_F(struct cmd, f)
static const struct opt rows[] = {
	{ "share", 0, .kind = OPT_FN, .set_at = lc_set_share, F(share), .arg = "<pct>", .help = "x" },
	{ "pct", 0, .kind = OPT_FN, .set_at = lc_set_pct, F(pct), .arg = "<pct>", .help = "x" },
	{ "level", 0, .kind = OPT_FN, .set_at = lc_set_level, F(level), .arg = "<pct>", .help = "x" },
	{ "real", 0, .kind = OPT_FN, .set_at = lc_set_real, F(real), .arg = "<x>", .help = "x" },
	{ "secs", 0, .kind = OPT_FN, .set_at = lc_set_secs, F(secs), .arg = "<t>", .help = "x" },
	{ "url", 0, .kind = OPT_FN, .set_at = lc_set_guard_url, F(url), .arg = "<url>", .help = "x" },
	{ "busy", 0, .kind = OPT_FN, .set_at = lc_set_guard_pct, F(busy), .arg = "<pct>", .help = "x" },
	{ "slo", 0, .kind = OPT_FN, .set_at = lc_set_check, F(slo), .arg = "<spec>", .help = "x" },
	{ "file", 0, .kind = OPT_STR, F(file), .arg = "<f>", .help = "x" },
	{ "n", 0, .kind = OPT_NUM, F(n), .min = 2, .max = 9, .dflt = 5, .arg = "<n>", .help = "x" },
	{ "flag", 0, .kind = OPT_FLAG, F(flag), .help = "x" },
	LC_SUB_END,
};
#undef F

static int cset(struct cmd *c, const char *name, const char *arg)
{
	for (const struct opt *o = rows; o->kind != OPT_END; o++)
		if (o->lname && !strcmp(o->lname, name))
			return opt_set(o, c, arg, why, sizeof(why));
	return -9;
}

static void cmd_setters(void)
{
	struct cmd c = { 0 };

	ok(!cset(&c, "share", "2.5") && c.share == 0.025, "a share: 2.5 %% is 0.025");
	ok(cset(&c, "share", "101") < 0 && strstr(why, "--share '101'"), "... 101 refused: %s", why);
	ok(!cset(&c, "pct", "0") && c.pct == 0, "a percentage: 0");
	ok(cset(&c, "pct", "x") < 0, "... x refused");
	ok(!cset(&c, "level", "99.9") && c.level == 99.9, "a level: 99.9");
	ok(cset(&c, "level", "100") < 0 && cset(&c, "level", "49") < 0, "... 100 and 49 refused");
	ok(!cset(&c, "real", "12.5") && c.real == 12.5, "a number: 12.5");
	ok(cset(&c, "real", "-1") < 0 && cset(&c, "real", "nan") < 0, "... -1 and nan refused");
	ok(!cset(&c, "secs", "500ms") && c.secs == 0.5, "a duration: 500ms is 0.5 s");
	ok(!cset(&c, "secs", "2m") && c.secs == 120, "... 2m is 120 s");
	ok(cset(&c, "secs", "5 parsecs") < 0, "... 5 parsecs refused");
	ok(!cset(&c, "url", "http://127.0.0.1:1/stats.json") && c.url, "--backend-stats' URL");
	ok(cset(&c, "url", "https://x/") < 0 && strstr(why, "http://HOST:PORT"), "... https refused: %s", why);
	ok(!cset(&c, "busy", "80") && c.busy == 0.8, "--backend-busy 80: 0.8");
	ok(cset(&c, "busy", "0") < 0, "... 0 refused");
	ok(!cset(&c, "slo", "p99<20ms,errors<0.1%") && c.slo, "an SLO");
	ok(cset(&c, "slo", "p99<") < 0 && strstr(why, "--slo"), "... a bad one refused: %s", why);
}

static const struct lc_sub sub = {
	.name = "t", .rows = rows, .own = LC_OWN_AB, .own_why = "its own", .synopsis = "t [options] URL",
	.about = "a test", .pos_what = "one URL", .npos_min = 1, .npos_max = 1,
};

/* lc_sub_parse of <words> (NULL-ended): its answer, the struct and args in <c>, <a> */
static int parse(struct cmd *c, struct lc_sub_args *a, const char **pass, const char *const *words)
{
	static char *argv[32];
	static struct lc_opts load;
	int argc = 0;

	argv[argc++] = "t";
	while (*words)
		argv[argc++] = (char *)*words++;
	memset(c, 0, sizeof(*c));
	*a = (struct lc_sub_args){ .pass = pass, .maxpass = 16, .load = &load };
	return lc_sub_parse(&sub, c, argc, argv, a);
}

static void sub_parse(void)
{
	const char *pass[16];
	struct lc_sub_args a;
	struct cmd c;
	FILE *devnull = freopen("/dev/null", "w", stderr);

	ok(devnull != NULL, "stderr to /dev/null (the refusals' lines)");
	is_int(parse(&c, &a, pass, (const char *const[]){ "--flag", "-c", "3", "--n=7", "--h2", "http://x/", NULL }), -1,
	       "own rows, load options, a URL: go on");
	ok(c.flag && c.n == 7, "... the own rows set (--flag, --n=7)");
	ok(a.npass == 3 && !strcmp(pass[0], "-c") && !strcmp(pass[1], "3") && !strcmp(pass[2], "--h2"),
	   "... the load options handed on as given (%d words)", a.npass);
	ok(a.load->conns == 3 && a.load->force == LC_H2, "... and checked into the load options");
	ok(a.npos == 1 && !strcmp(a.pos[0], "http://x/"), "... the URL");
	parse(&c, &a, pass, (const char *const[]){ "http://x/", NULL });
	is_int(c.n, 5, "a row's default");
	is_int(parse(&c, &a, pass, (const char *const[]){ "--label", "x", "http://x/", NULL }), 2,
	       "a load option the command marks its own: exit 2");
	is_int(parse(&c, &a, pass, (const char *const[]){ "--nope", "http://x/", NULL }), 2, "an unknown option: exit 2");
	is_int(parse(&c, &a, pass, (const char *const[]){ "-c", "0", "http://x/", NULL }), 2,
	       "a bad load option: exit 2, before any run");
	is_int(parse(&c, &a, pass, (const char *const[]){ "--n", NULL }), 2, "a value missing: exit 2");
	is_int(parse(&c, &a, pass, (const char *const[]){ "--flag=1", "http://x/", NULL }), 2, "a flag with a value: exit 2");
	is_int(parse(&c, &a, pass, (const char *const[]){ "a", "b", NULL }), 2, "two URLs where one is: exit 2");
}

/* -h: generated from the rows, exit 0 */
static void usage(void)
{
	const char *pass[16];
	struct lc_sub_args a;
	struct cmd c;
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	int out = dup(1), rc;

	lc_sub_usage(f, &sub);
	fclose(f);
	ok(text && strstr(text, "Usage: hxload t [options] URL") && strstr(text, "  --slo <spec>"),
	   "the usage: the synopsis, a line per row");
	ok(text && strstr(text, "--label") && strstr(text, "-q") && !strstr(text, " -R"),
	   "... and the load options it sets itself, from the marks");
	free(text);
	fflush(stdout);
	if (!freopen("/dev/null", "w", stdout))
		return;
	rc = parse(&c, &a, pass, (const char *const[]){ "-h", NULL });
	fflush(stdout);
	dup2(out, 1);
	close(out);
	is_int(rc, 0, "-h: exit 0");
}

/* the main rows a command sets itself, marked on the rows */
static void marks(void)
{
	const char *v;

	is_int(opt_word(cli_rows, "--label", &v)->mark, LC_OWN_AB | LC_OWN_FIND | LC_OWN_PROBE,
	       "--label: ab's, find's and the probe's own");
	is_int(opt_word(cli_rows, "-R", &v)->mark, LC_OWN_FIND | LC_OWN_PROBE, "-R: find's and the probe's, not ab's");
	is_int(opt_word(cli_rows, "-c", &v)->mark, LC_OWN_PROBE, "-c: the probe's alone");
	is_int(opt_word(cli_rows, "--h2", &v)->mark, 0, "--h2: nobody's, handed on to every run");
}

int main(void)
{
	main_rows();
	cmd_setters();
	sub_parse();
	usage();
	marks();
	return done_testing();
}

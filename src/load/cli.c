/* hxload's command line: options, their checks, the HTTP/1 request of each path. */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "common.h"
#include "lc_cli.h"
#include "lc_cmd.h"
#include "lc_reader.h"
#include "lc_stats.h"
#include "lc_source.h"
#include "lc_sub.h"
#include "opt.h"
#include "lc_cli_int.h"

static void build_request(struct lc_path *p)
{
	size_t cap = 1024 + strlen(p->path) + strlen(lc_target.authority) + lc_opts.body, n;
	char *r;

	for (int i = 0; i < lc_opts.nhdrs; i++)
		cap += strlen(lc_opts.hdrs[i]) + 2;
	if (!(r = malloc(cap)))
		lc_die("%s", "out of memory");
	n = (size_t)snprintf(r, cap, "%s %s HTTP/1.1\r\nHost: %s\r\n", lc_opts.method, p->path,
			     lc_target.authority);
	for (int i = 0; i < lc_opts.nhdrs; i++)
		n += (size_t)snprintf(r + n, cap - n, "%s\r\n", lc_opts.hdrs[i]);
	if (lc_opts.close && !lc_opts.have_conn_hdr)
		n += (size_t)snprintf(r + n, cap - n, "Connection: close\r\n");
	if (lc_opts.body)
		n += (size_t)snprintf(r + n, cap - n, "Content-Length: %llu\r\n",
				      (unsigned long long)lc_opts.body);
	n += (size_t)snprintf(r + n, cap - n, "\r\n");
	memset(r + n, 'u', lc_opts.body);
	p->req = r;
	p->reqlen = n + lc_opts.body;
}

static int have_d;                /* -d given */

static void parse_args(int argc, char **argv)
{
	static struct option lo[64];
	char shorts[64], why[512];
	int c;

	if (opt_getopt(cli_rows, shorts, sizeof(shorts), lo, ARRAY_SIZE(lo)) < 0)
		lc_die("%s", "the option table outgrew getopt's (a bug)");
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct opt *o = opt_row(cli_rows, c);

		if (c == ':')
			lc_die("option '%s' needs a value (try -h)", argv[optind - 1]);
		if (!o)
			lc_die("bad option '%s' (try -h)", argv[optind - 1]);
		if (o->kind == OPT_HELP)
			cli_usage(stdout), exit(0);
		if (o->kind == OPT_VERSION)
			printf("hxload %s\n", HX_VERSION), exit(0);
		if (opt_set(o, &lc_opts, optarg, why, sizeof(why)) < 0)
			lc_die("%s", why);
		have_d |= o->sname == 'd';
	}
	if (optind != argc - !lc_opts.urls)
		lc_die("%s", lc_opts.urls ? "a URL and --urls: give one or the other" : "expected one URL (try -h)");
}

/* what the options cannot say together */
static void check_args(void)
{
	if (!*lc_opts.method || strcspn(lc_opts.method, " \t\r\n:/") != strlen(lc_opts.method))
		lc_die("--method '%s': expected a token (GET, POST, ...)", lc_opts.method);
	if (lc_opts.have_stages && (have_d || lc_opts.rate > 0))
		lc_die("%s", "--stages sets the rate and the duration: no -R or -d with it");
	if (lc_opts.shards > 1) {
		int i = lc_opts.shard, n = lc_opts.shards;

		/* WHY each shard its share: together they are the run asked for */
		if (lc_opts.conns < n)
			lc_die("%s", "--shard: fewer connections (-c) than shards");
		lc_opts.conns = lc_opts.conns / n + (i < lc_opts.conns % n);
		if (lc_opts.total && lc_opts.total < (uint64_t)n)
			lc_die("%s", "--shard: fewer requests (-n) than shards");
		if (lc_opts.total)
			lc_opts.total = lc_opts.total / (uint64_t)n + ((uint64_t)i < lc_opts.total % (uint64_t)n);
	}
	if (lc_opts.conns < lc_opts.threads)
		lc_opts.threads = lc_opts.conns;
	if (lc_opts.close)
		lc_opts.depth = 1;
	if (lc_opts.force == LC_H3 && !lc_target.tls)
		lc_die("%s", "--h3 needs an https:// URL");
	if (lc_opts.force == LC_H3 && lc_opts.route.unix_path)
		lc_die("%s", "--h3 runs over UDP: no --unix-socket");
	if (lc_target.proto == LC_WS && lc_opts.force)
		lc_die("%s", "a ws:// or wss:// URL is a WebSocket over HTTP/1.1: no --h1, --h2 or --h3");
	if (lc_opts.force == LC_H3 && lc_opts.proxy_proto)
		lc_die("%s", "--proxy-protocol is for TCP: not with --h3");
	if ((lc_opts.cert || lc_opts.key || lc_opts.cacert) && !lc_target.tls)
		lc_die("%s", "--cert, --key and --cacert need an https:// URL");
	if (lc_opts.hs && !lc_target.tls)
		lc_die("%s", "--handshakes needs an https:// URL (TLS or QUIC)");
	if (lc_opts.hs && lc_opts.hs_mix[HS_0RTT] && (lc_opts.force != LC_H3 && lc_opts.force != LC_H1))
		lc_die("%s", "--handshakes: 0-RTT is built for --h1 and --h3 (not h2): name one, or a 0 share for it");
	if (lc_opts.hs && lc_opts.no_resume && (lc_opts.hs_mix[HS_RESUMED] || lc_opts.hs_mix[HS_0RTT]))
		lc_die("%s", "--handshakes with resumed or 0-RTT shares: no --no-resume");
	if (lc_opts.key && !lc_opts.cert)
		lc_die("%s", "--key needs --cert");
	if (lc_opts.start_at > 0) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		if (lc_opts.start_at < (double)ts.tv_sec - 1)
			lc_die("%s", "--start-at: that time has passed");
		if (lc_opts.start_at > (double)ts.tv_sec + 86400)
			lc_die("%s", "--start-at: more than a day ahead");
	}
}

/* -c connections need as many descriptors, and a few for each thread and
 * for stdio, the log, the TLS context: the soft limit raised to them, or
 * a refusal before anything starts */
static void fd_room(void)
{
	rlim_t need = (rlim_t)lc_opts.conns + 16 + 4 * (rlim_t)lc_opts.threads;
	struct rlimit rl;
	char msg[160];

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need)
		return;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
		snprintf(msg, sizeof(msg), "-c %d needs %llu descriptors; the hard limit is %llu: ulimit -Hn", lc_opts.conns,
			 (unsigned long long)need, (unsigned long long)rl.rlim_max);
		lc_die("%s", msg);
	}
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		lc_die("-c needs more descriptors than the soft limit, and raising it failed: %s", strerror(errno));
}

static void keep_cmdline(int argc, char **argv)
{
	size_t n = 0;

	for (int i = 1; i < argc && n < sizeof(lc_opts.cmdline) - 1; i++)
		n += (size_t)snprintf(lc_opts.cmdline + n, sizeof(lc_opts.cmdline) - n, "%s%s", i > 1 ? " " : "",
				      argv[i]);
	if (n >= sizeof(lc_opts.cmdline))
		n = sizeof(lc_opts.cmdline) - 1;
	lc_opts.cmdline[n] = 0;
}

char **lc_probe_argv(double start_at)
{
	static char num[4][48]; /* WHY static: the args outlive this call */
	char **a = calloc((size_t)lc_opts.argc + 24, sizeof(*a));
	int n = 0;

	if (!a)
		lc_die("%s", "out of memory");
	a[n++] = lc_opts.argv[0];
	for (int i = 1; i < lc_opts.argc; i++) {
		const char *w = lc_opts.argv[i], *val;
		const struct opt *o = opt_word(cli_rows, w, &val);
		/* WHY: "-c 10" takes the next word, "-c10" and "--x=v" do not */
		int joined = o && o->arg && val;

		/* WHY: the probe runs its own shape and writes its own outputs */
		if (o && (o->mark & LC_OWN_PROBE)) {
			i += o->arg && !joined;
			continue;
		}
		a[n++] = lc_opts.argv[i];
		if (o && o->arg && !joined && i + 1 < lc_opts.argc)
			a[n++] = lc_opts.argv[++i];
	}
	snprintf(num[0], sizeof(num[0]), "%g", lc_opts.probe);
	snprintf(num[1], sizeof(num[1]), "%llums", (unsigned long long)(lc_opts.duration_us / 1000));
	snprintf(num[2], sizeof(num[2]), "%llums", (unsigned long long)(lc_opts.warmup_us / 1000));
	snprintf(num[3], sizeof(num[3]), "%.6f", start_at);
	for (const char *const *x = (const char *const[]){ "-q", "--json", "-t", "1", "-c", "1", "-m", "1", "-R", num[0],
							"-d", num[1], "-w", num[2], "--start-at", num[3], NULL }; *x; x++)
		a[n++] = (char *)*x;
	a[n] = NULL;
	return a;
}

void lc_cli(int argc, char **argv)
{
	lc_opts.argc = argc;
	lc_opts.argv = argv;
	keep_cmdline(argc, argv);
	opt_defaults(cli_rows, &lc_opts);
	parse_args(argc, argv);
	if (lc_opts.urls)
		lc_urls_file(lc_opts.urls);
	else
		lc_url_parse(argv[optind], 1), lc_target.paths[0].cum = 1;
	if (lc_opts.host_hdr)
		snprintf(lc_target.authority, sizeof(lc_target.authority), "%s", lc_opts.host_hdr);
	check_args();
	/* WHY a shared start: the probe's run and the load's begin together */
	if (lc_opts.probe && lc_opts.start_at <= 0) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		lc_opts.start_at = (double)ts.tv_sec + ts.tv_nsec / 1e9 + 0.5;
	}
	fd_room();
	if (lc_opts.force && lc_target.tls)
		lc_target.proto = lc_opts.force;
	if (lc_opts.force == LC_H2 && !lc_target.tls)
		lc_target.proto = LC_H2;
	lc_url_route();
	if (lc_opts.source) {
		char why[160];

		if (lc_source_parse(lc_opts.source, why, sizeof(why)) < 0)
			lc_die("%s", why);
		if (lc_opts.route.unix_path)
			lc_die("%s", "--source is for TCP and UDP: not with --unix-socket");
		if (lc_source_check(lc_target.addr.ss_family, why, sizeof(why)) < 0)
			lc_die("%s", why);
	}
	lc_stages_finish(&lc_opts);
	/* WHY with --json: its intervals are what hxload compare resamples */
	lc_opts.series_us = lc_opts.interval_us ? lc_opts.interval_us :
			    lc_opts.html || lc_opts.json || lc_opts.server_pid || lc_opts.metrics || lc_opts.hlog ?
			    1000000 : 0;
	if (lc_target.grpc) { /* WHY: a call is a POST of one message, here an empty one */
		lc_opts.method = "POST";
		lc_opts.body = 5;
	}
	for (int i = 0; i < lc_target.npaths; i++)
		build_request(&lc_target.paths[i]);
	if (lc_opts.verify && (lc_opts.sse || lc_target.grpc))
		lc_die("%s", "--verify checks hxterm's byte pattern: not with --sse or a grpc:// URL (their bodies are events, messages)");
	lc_rd = lc_reader_pick(&lc_opts, &lc_target);
}

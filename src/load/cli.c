/* hxload's command line: options, their checks, the HTTP/1 request of each path. */
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>

#include "common.h"
#include "lc_cli.h"
#include "lc_cmd.h"
#include "lc_stats.h"
#include "num.h"

static const char *host_hdr;     /* -H 'Host: ...' */
static int have_conn_hdr;        /* -H 'Connection: ...' */

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
	if (lc_opts.close && !have_conn_hdr)
		n += (size_t)snprintf(r + n, cap - n, "Connection: close\r\n");
	if (lc_opts.body)
		n += (size_t)snprintf(r + n, cap - n, "Content-Length: %llu\r\n",
				      (unsigned long long)lc_opts.body);
	n += (size_t)snprintf(r + n, cap - n, "\r\n");
	memset(r + n, 'u', lc_opts.body);
	p->req = r;
	p->reqlen = n + lc_opts.body;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: hxload [options] URL\n"
"       hxload [options] --urls FILE\n"
"       hxload ab [--rounds N] [--keep DIR] [--closed] [--json] [--html FILE] [options] A_URL B_URL\n"
"       hxload find --slo SPEC [--step-duration T] [--precision PCT] [--keep DIR] [--json] [options] URL\n"
"       hxload merge [--json] [--html FILE] [--fail-on SPEC] [--label L] [--force] RUN.json...\n"
"       hxload compare [--json] [--resamples N] A.json... [vs B.json...]\n"
"       hxload quic-flood [--count N] [--rate N] [--random] [--json] HOST:PORT\n"
"  URL: http://host:port/path (HTTP/1.1), https://... (ALPN: h2, else\n"
"  HTTP/1.1), h2c://host:port/path (HTTP/2 by prior knowledge),\n"
"  ws://host:port/path, wss://... (WebSocket: each request a message; echo:\n"
"  one of --body bytes (64) sent, its echo timed and checked; a path with\n"
"  ws=gen: each message the server sends, timed from the one before)\n"
"Load:\n"
"  -t <n>          threads, each with its own connections (1)\n"
"  -c <n>          connections in all (10); the open-file soft limit is raised\n"
"                  to them, past the hard one refused\n"
"  -m <n>          in flight per connection: h2/h3 streams, h1 pipeline depth (1)\n"
"  -d <time>       duration: seconds, or 500ms, 2m, 1h (10); with -n, whichever\n"
"                  ends first\n"
"  -n <n>          requests in all\n"
"  -R <rate>       open loop: requests per second, latency measured from each\n"
"                  request's intended send time (no coordinated omission);\n"
"                  -R A:B ramps linearly from A to B over the duration\n"
"  --stages <s>    open loop in stages, 'D@RATE' or 'D@FROM:TO', comma-separated\n"
"                  ('10s@1000,30s@5000,10s@0'); sets the duration\n"
"  -w <time>       warm-up, not counted (at the first rate)\n"
"  --urls <file>   'weight URL' a line (weight 1 when absent): each request\n"
"                  takes one by weight; one scheme, host and port for all\n"
"  --close         a new connection for each request (h1: Connection: close;\n"
"                  h2, h3: one stream per connection); sets -m 1\n"
"  --start-at <t>  start at epoch seconds or ISO time (2026-12-01T10:00:00Z,\n"
"                  no zone: local) so several machines start together\n"
"Requests:\n"
"  -H 'N: V'       extra request header (repeatable); 'Host: x' replaces the\n"
"                  URL's Host and :authority\n"
"  --method <m>    request method (GET)\n"
"  --body <size>   request body bytes (k, m, g: KiB, MiB, GiB)\n"
"  --timeout <t>   a request unanswered this long is an error (10); at the end\n"
"                  of the run, requests in flight are waited for this long\n"
"  --h1 / --h2     force HTTP/1.1 or HTTP/2 on https://\n"
"  --h3            HTTP/3 over QUIC to the https:// URL's host and port\n"
"Names and TLS:\n"
"  --sni <name>    TLS server name (default: the URL's host when it is a name,\n"
"                  none for an IP address; '' for none)\n"
"  --connect-to <H1:P1:H2:P2>  connect to H2:P2 for URLs naming H1:P1 (empty:\n"
"                  any), as curl does (repeatable)\n"
"  --resolve <H:P:ADDR>  the address of H:P (P may be *), as curl (repeatable)\n"
"  --unix-socket <path>  connect to this Unix-domain socket (http://, h2c://,\n"
"                  https://), the URL naming the Host\n"
"  --proxy-protocol v1|v2  start each connection with a PROXY protocol header\n"
"                  carrying its own addresses (as a proxy does; TCP only)\n"
"  --cert <file>   client certificate (PEM) for mutual TLS\n"
"  --key <file>    its key (default: in the certificate file)\n"
"  --cacert <file> verify the server's certificate and name against these CAs\n"
"                  (default: no verification, a test target is self-signed)\n"
"  --no-resume     no TLS session resumption on new connections (default: the\n"
"                  last session of the thread is offered; h3 too)\n"
"  --0rtt          HTTP/3: a resumed connection's first requests go in 0-RTT,\n"
"                  before the handshake ends (the server says early=1 in\n"
"                  X-rsp; refused, they are sent again after it)\n"
"  --h3-no-credit  HTTP/3: stream windows of 1 KiB never extended, a client\n"
"                  that stops reading at the QUIC level (a target's or a\n"
"                  proxy's send timeout should end it)\n"
"  --h3-no-body    HTTP/3: the request head with --body's length, never the\n"
"                  body (a target's or a proxy's body timeout should end it)\n"
"Results:\n"
"  --verify        check every body byte against hxterm's pattern and the\n"
"                  length against X-rsp's size\n"
"  --json          one JSON object with every figure and the full histograms,\n"
"                  and each second's (or --interval's): what compare resamples\n"
"  --server-pid <pid>  the target runs on this machine: its CPU time (from\n"
"                  /proc) per request and per MiB, in the report\n"
"  --pid <name>=<pid>  another process on this machine (a proxy): its CPU time\n"
"                  in the window, per request and per MiB (repeatable, 8)\n"
"  --label <text>  a name for this run in the report and the JSON\n"
"  --interval <t>  one JSON line per interval on stdout while it runs\n"
"  --html <file>   a self-contained HTML report (charts, no external assets)\n"
"  --log <file>    one line per request: send time (epoch us), latency (us),\n"
"                  status, server time (us, - when absent)\n"
"  --fail-on <s>   exit 3 when a threshold is crossed: comma-separated\n"
"                  METRIC OP VALUE, METRIC one of p50 p90 p99 p99.9 p99.99\n"
"                  max mean (latency: us, ms (default), s), errors, non2xx\n"
"                  (a count, or %% of requests), rps, late, unsent; OP one of\n"
"                  > >= < <=  ('p99>5ms,errors>0,non2xx>1%%')\n"
"  -q              no progress line\n"
"  -v, --version   the version\n"
"  -h, --help      this help\n"
"When the server is hxterm, its X-rsp time splits each latency into server\n"
"time, the client's own queueing (open loop) and the rest (network + proxy).\n"
"Exit status: 0, 1 when nothing was answered (one line says why), 2 on a bad\n"
"command line, 3 when a --fail-on threshold was crossed.\n");
}

static double num_arg(const char *opt, const char *arg, double min, double max)
{
	char *end;
	double v = strtod(arg, &end);

	if (*end || end == arg || v < min || v > max) {
		fprintf(stderr, "hxload: %s '%s': expected a number in [%g, %g]\n", opt, arg, min, max);
		exit(2);
	}
	return v;
}

uint64_t lc_size_arg(const char *opt, const char *arg, uint64_t max)
{
	uint64_t v;
	const char *err;

	if (num_plain(arg, strlen(arg), &v, &err) < 0 || v > max) {
		fprintf(stderr, "hxload: %s '%s': expected a size up to %llu (k, m, g suffixes)\n", opt,
			arg, (unsigned long long)max);
		exit(2);
	}
	return v;
}

static uint64_t dur_arg(const char *opt, const char *arg, uint64_t min_us)
{
	uint64_t us;

	if (lc_duration(arg, strlen(arg), &us) < 0 || us < min_us) {
		fprintf(stderr, "hxload: %s '%s': expected a duration (seconds, or 500ms, 2m, 1h)\n", opt, arg);
		exit(2);
	}
	return us;
}

/* --start-at: epoch seconds, or YYYY-MM-DDTHH:MM:SS[.frac][Z] */
static double time_arg(const char *arg)
{
	struct tm tm = { 0 };
	char *end;
	double v = strtod(arg, &end), frac = 0;
	const char *p;

	if (!*end && end != arg && v > 0)
		return v;
	p = strptime(arg, "%Y-%m-%dT%H:%M:%S", &tm);
	if (p && *p == '.')
		frac = strtod(p, &end), p = end;
	if (!p || (*p && strcmp(p, "Z")))
		lc_die("--start-at '%s': expected epoch seconds or 2026-12-01T10:00:00[.5][Z]", arg);
	if (*p == 'Z')
		return (double)timegm(&tm) + frac;
	tm.tm_isdst = -1;
	return (double)mktime(&tm) + frac;
}

static void header_arg(const char *h)
{
	const char *colon = strchr(h, ':');

	if (!colon || colon == h || lc_opts.nhdrs == LC_MAX_HDRS)
		lc_die("-H '%s': expected 'Name: value' (at most 32)", h);
	for (const char *c = h; c < colon; c++)
		if (*c <= ' ' || *c >= 0x7f)
			lc_die("-H '%s': a space or control character in the name", h);
	if (colon - h == 4 && !strncasecmp(h, "host", 4)) {
		host_hdr = colon + 1 + strspn(colon + 1, " \t");
		if (!*host_hdr || strlen(host_hdr) >= sizeof(lc_target.authority))
			lc_die("-H '%s': an empty or too long Host", h);
		return;
	}
	if (colon - h == 10 && !strncasecmp(h, "connection", 10))
		have_conn_hdr = 1;
	lc_opts.hdrs[lc_opts.nhdrs++] = h;
}

static void route_arg(const char **list, int *n, const char *opt, const char *arg)
{
	if (*n == 16)
		lc_die("%s: at most 16", opt);
	list[(*n)++] = arg;
}

static void rate_arg(const char *arg)
{
	const char *colon = strchr(arg, ':');

	if (colon) {
		char a[64];

		snprintf(a, sizeof(a), "%.*s", (int)(colon - arg), arg);
		lc_opts.rate = num_arg("-R", a, 0.001, 1e9);
		lc_opts.rate_to = num_arg("-R", colon + 1, 0.001, 1e9);
	} else {
		lc_opts.rate = lc_opts.rate_to = num_arg("-R", arg, 0.001, 1e9);
	}
}

/* --pid NAME=PID */
static void named_pid(const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct lc_named_pid *p = &lc_opts.pids[lc_opts.npids];
	size_t n = eq ? (size_t)(eq - arg) : 0;

	if (lc_opts.npids == LC_MAX_PIDS)
		lc_die("--pid '%s': at most 8", arg);
	if (!eq || !n || n >= sizeof(p->name) || strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789_-") < n)
		lc_die("--pid '%s': expected NAME=PID, a name of 1 to 31 of a-z 0-9 _ -", arg);
	memcpy(p->name, arg, n);
	p->name[n] = 0;
	p->pid = (int)num_arg("--pid", eq + 1, 1, 1 << 30);
	for (int i = 0; i < lc_opts.npids; i++)
		if (!strcmp(lc_opts.pids[i].name, p->name))
			lc_die("--pid '%s': that name twice", arg);
	if (kill(p->pid, 0) < 0 && !lc_proc_cpu_us(p->pid))
		lc_die("--pid '%s': no such process here", arg);
	lc_opts.npids++;
}

static const char *urls_file;
static int have_d, have_stages;

static void parse_args(int argc, char **argv)
{
	enum { O_METHOD = 256, O_BODY, O_TIMEOUT, O_H1, O_H2, O_H3, O_VERIFY, O_JSON, O_SNI, O_CONNECT_TO,
	       O_RESOLVE, O_UNIX, O_CERT, O_KEY, O_CACERT, O_CLOSE, O_NO_RESUME, O_ZERO_RTT, O_H3_NO_CREDIT, O_H3_NO_BODY, O_LABEL, O_HTML, O_LOG,
	       O_INTERVAL, O_START_AT, O_URLS, O_STAGES, O_FAIL_ON, O_PROXY_PROTO, O_SERVER_PID, O_PID };
	static const struct option lo[] = {
		{ "method", 1, NULL, O_METHOD }, { "body", 1, NULL, O_BODY }, { "timeout", 1, NULL, O_TIMEOUT },
		{ "h1", 0, NULL, O_H1 }, { "h2", 0, NULL, O_H2 }, { "h3", 0, NULL, O_H3 },
		{ "verify", 0, NULL, O_VERIFY }, { "json", 0, NULL, O_JSON }, { "help", 0, NULL, 'h' },
		{ "version", 0, NULL, 'v' }, { "sni", 1, NULL, O_SNI }, { "connect-to", 1, NULL, O_CONNECT_TO },
		{ "resolve", 1, NULL, O_RESOLVE }, { "unix-socket", 1, NULL, O_UNIX },
		{ "cert", 1, NULL, O_CERT }, { "key", 1, NULL, O_KEY }, { "cacert", 1, NULL, O_CACERT },
		{ "close", 0, NULL, O_CLOSE }, { "no-resume", 0, NULL, O_NO_RESUME },
		{ "0rtt", 0, NULL, O_ZERO_RTT },
		{ "h3-no-credit", 0, NULL, O_H3_NO_CREDIT }, { "h3-no-body", 0, NULL, O_H3_NO_BODY },
		{ "label", 1, NULL, O_LABEL }, { "html", 1, NULL, O_HTML }, { "log", 1, NULL, O_LOG },
		{ "interval", 1, NULL, O_INTERVAL }, { "start-at", 1, NULL, O_START_AT },
		{ "urls", 1, NULL, O_URLS }, { "stages", 1, NULL, O_STAGES }, { "fail-on", 1, NULL, O_FAIL_ON },
		{ "proxy-protocol", 1, NULL, O_PROXY_PROTO }, { "server-pid", 1, NULL, O_SERVER_PID },
		{ "pid", 1, NULL, O_PID },
		{ NULL, 0, NULL, 0 },
	};
	const char *err;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:c:m:d:n:R:w:H:qhv", lo, NULL)) != -1) {
		switch (c) {
		case 't': lc_opts.threads = (int)num_arg("-t", optarg, 1, 256); break;
		case 'c': lc_opts.conns = (int)num_arg("-c", optarg, 1, 100000); break;
		case 'm': lc_opts.depth = (int)num_arg("-m", optarg, 1, LC_MAX_DEPTH); break;
		case 'd': lc_opts.duration_us = dur_arg("-d", optarg, 1000); have_d = 1; break;
		case 'n': lc_opts.total = (uint64_t)num_arg("-n", optarg, 1, 1e15); break;
		case 'R': rate_arg(optarg); break;
		case 'w': lc_opts.warmup_us = dur_arg("-w", optarg, 0); break;
		case O_TIMEOUT: lc_opts.timeout_us = dur_arg("--timeout", optarg, 1000); break;
		case O_BODY: lc_opts.body = lc_size_arg("--body", optarg, 1 << 30); break;
		case O_METHOD:
			if (!*optarg || strcspn(optarg, " \t\r\n:/") != strlen(optarg))
				lc_die("--method '%s': expected a token (GET, POST, ...)", optarg);
			lc_opts.method = optarg;
			break;
		case 'H': header_arg(optarg); break;
		case O_H1: lc_opts.force = LC_H1; break;
		case O_H2: lc_opts.force = LC_H2; break;
		case O_H3: lc_opts.force = LC_H3; break;
		case O_VERIFY: lc_opts.verify = 1; break;
		case O_JSON: lc_opts.json = 1; break;
		case O_SNI: lc_route.sni = optarg; break;
		case O_CONNECT_TO: route_arg(lc_route.connect_to, &lc_route.nconnect_to, "--connect-to", optarg); break;
		case O_RESOLVE: route_arg(lc_route.resolve, &lc_route.nresolve, "--resolve", optarg); break;
		case O_UNIX: lc_route.unix_path = optarg; break;
		case O_CERT: lc_opts.cert = optarg; break;
		case O_KEY: lc_opts.key = optarg; break;
		case O_CACERT: lc_opts.cacert = optarg; break;
		case O_CLOSE: lc_opts.close = 1; break;
		case O_NO_RESUME: lc_opts.no_resume = 1; break;
		case O_ZERO_RTT: lc_opts.zero_rtt = 1; break;
		case O_H3_NO_CREDIT: lc_opts.h3_no_credit = 1; break;
		case O_H3_NO_BODY: lc_opts.h3_no_body = 1; break;
		case O_SERVER_PID: lc_opts.server_pid = (int)num_arg("--server-pid", optarg, 1, 1 << 30); break;
		case O_PID: named_pid(optarg); break;
		case O_PROXY_PROTO:
			if (strcmp(optarg, "v1") && strcmp(optarg, "v2"))
				lc_die("--proxy-protocol '%s': expected v1 or v2", optarg);
			lc_opts.proxy_proto = optarg[1] - '0';
			break;
		case O_LABEL: lc_opts.label = optarg; break;
		case O_HTML: lc_opts.html = optarg; break;
		case O_LOG: lc_opts.log = optarg; break;
		case O_INTERVAL: lc_opts.interval_us = dur_arg("--interval", optarg, 10000); break;
		case O_START_AT: lc_opts.start_at = time_arg(optarg); break;
		case O_URLS: urls_file = optarg; break;
		case O_STAGES:
			if (lc_stages_parse(&lc_opts, optarg, &err) < 0)
				lc_die("--stages: %s", err);
			have_stages = 1;
			break;
		case O_FAIL_ON:
			if (lc_check_parse(optarg, &err) < 0) {
				fprintf(stderr, "hxload: --fail-on '%s': %s\n", optarg, err);
				exit(2);
			}
			lc_opts.fail_on = optarg;
			break;
		case 'q': lc_opts.quiet = 1; break;
		case 'h': usage(stdout); exit(0);
		case 'v': printf("hxload %s\n", HX_VERSION); exit(0);
		case ':': lc_die("option '%s' needs a value (try -h)", argv[optind - 1]);
		default: lc_die("bad option '%s' (try -h)", argv[optind - 1]);
		}
	}
	if (optind != argc - !urls_file)
		lc_die("%s", urls_file ? "a URL and --urls: give one or the other" : "expected one URL (try -h)");
}

/* what the options cannot say together */
static void check_args(void)
{
	if (have_stages && (have_d || lc_opts.rate > 0))
		lc_die("%s", "--stages sets the rate and the duration: no -R or -d with it");
	if (lc_opts.conns < lc_opts.threads)
		lc_opts.threads = lc_opts.conns;
	if (lc_opts.close)
		lc_opts.depth = 1;
	if (lc_opts.force == LC_H3 && !lc_target.tls)
		lc_die("%s", "--h3 needs an https:// URL");
	if (lc_opts.force == LC_H3 && lc_route.unix_path)
		lc_die("%s", "--h3 runs over UDP: no --unix-socket");
	if (lc_target.proto == LC_WS && lc_opts.force)
		lc_die("%s", "a ws:// or wss:// URL is a WebSocket over HTTP/1.1: no --h1, --h2 or --h3");
	if (lc_opts.force == LC_H3 && lc_opts.proxy_proto)
		lc_die("%s", "--proxy-protocol is for TCP: not with --h3");
	if ((lc_opts.cert || lc_opts.key || lc_opts.cacert) && !lc_target.tls)
		lc_die("%s", "--cert, --key and --cacert need an https:// URL");
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

void lc_cli(int argc, char **argv)
{
	keep_cmdline(argc, argv);
	parse_args(argc, argv);
	if (urls_file)
		lc_urls_file(urls_file);
	else
		lc_url_parse(argv[optind], 1), lc_target.paths[0].cum = 1;
	if (host_hdr)
		snprintf(lc_target.authority, sizeof(lc_target.authority), "%s", host_hdr);
	check_args();
	fd_room();
	if (lc_opts.force && lc_target.tls)
		lc_target.proto = lc_opts.force;
	if (lc_opts.force == LC_H2 && !lc_target.tls)
		lc_target.proto = LC_H2;
	lc_url_route();
	lc_stages_finish(&lc_opts);
	/* WHY with --json: its intervals are what hxload compare resamples */
	lc_opts.series_us = lc_opts.interval_us ? lc_opts.interval_us :
			    lc_opts.html || lc_opts.json || lc_opts.server_pid ? 1000000 : 0;
	for (int i = 0; i < lc_target.npaths; i++)
		build_request(&lc_target.paths[i]);
}

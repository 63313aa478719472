/* hxload's command line: options, their checks, the HTTP/1 request of each path. */
#include <ctype.h>
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
#include "lc_source.h"
#include "num.h"
#include "opt.h"

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

static void usage(FILE *f);

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

/* a duration: seconds, or 500ms, 2m, 1h (the rows' parse) */
static int dur_parse(const char *s, uint64_t *us, const char **err)
{
	if (lc_duration(s, strlen(s), us) < 0)
		return *err = "expected a duration (seconds, or 500ms, 2m, 1h)", -1;
	return 0;
}

/* ---------- the setters of the rows that are more than a number, a flag or a string ---------- */

static int have_d, have_stages;

static int set_rate(const char *arg, char *why, size_t len)
{
	const char *colon = strchr(arg, ':');

	(void)why, (void)len;
	if (colon) {
		char a[64];

		snprintf(a, sizeof(a), "%.*s", (int)(colon - arg), arg);
		lc_opts.rate = num_arg("-R", a, 0.001, 1e9);
		lc_opts.rate_to = num_arg("-R", colon + 1, 0.001, 1e9);
	} else {
		lc_opts.rate = lc_opts.rate_to = num_arg("-R", arg, 0.001, 1e9);
	}
	return 0;
}

static int shard_of(const char *i, const char *n, const char *what, char *why, size_t len)
{
	char *e1, *e2;
	long a = strtol(i, &e1, 10), b = strtol(n, &e2, 10);

	if (!*i || !*n || (*e1 && *e1 != '/') || *e2 || a < 0 || b < 1 || b > 10000 || a >= b)
		return snprintf(why, len, "%s: expected I/N, 0 <= I < N <= 10000", what), -1;
	lc_opts.shard = (int)a;
	lc_opts.shards = (int)b;
	return 0;
}

static int set_shard(const char *arg, char *why, size_t len)
{
	const char *slash = strchr(arg, '/');
	char w[96];

	snprintf(w, sizeof(w), "--shard '%s'", arg);
	return shard_of(arg, slash ? slash + 1 : "", w, why, len);
}

static int set_shards(const char *arg, char *why, size_t len)
{
	const char *i = getenv("JOB_COMPLETION_INDEX");
	char w[96];

	if (!i)
		return snprintf(why, len, "--shards %s: JOB_COMPLETION_INDEX is not set (or give --shard I/N)", arg), -1;
	snprintf(w, sizeof(w), "--shards %s with JOB_COMPLETION_INDEX=%s", arg, i);
	return shard_of(i, arg, w, why, len);
}

static int set_probe(const char *arg, char *why, size_t len)
{
	(void)why, (void)len;
	lc_opts.probe = num_arg("--probe", arg, 0.1, 100000);
	return 0;
}

static int set_stages(const char *arg, char *why, size_t len)
{
	const char *err;

	if (lc_stages_parse(&lc_opts, arg, &err) < 0)
		return snprintf(why, len, "--stages: %s", err), -1;
	have_stages = 1;
	return 0;
}

/* --start-at: epoch seconds, or YYYY-MM-DDTHH:MM:SS[.frac][Z] */
static int set_start_at(const char *arg, char *why, size_t len)
{
	struct tm tm = { 0 };
	char *end;
	double v = strtod(arg, &end), frac = 0;
	const char *p;

	if (!*end && end != arg && v > 0)
		return lc_opts.start_at = v, 0;
	p = strptime(arg, "%Y-%m-%dT%H:%M:%S", &tm);
	if (p && *p == '.')
		frac = strtod(p, &end), p = end;
	if (!p || (*p && strcmp(p, "Z")))
		return snprintf(why, len, "--start-at '%s': expected epoch seconds or 2026-12-01T10:00:00[.5][Z]", arg), -1;
	if (*p == 'Z') {
		lc_opts.start_at = (double)timegm(&tm) + frac;
		return 0;
	}
	tm.tm_isdst = -1;
	lc_opts.start_at = (double)mktime(&tm) + frac;
	return 0;
}

static int set_header(const char *h, char *why, size_t len)
{
	const char *colon = strchr(h, ':');

	if (!colon || colon == h || lc_opts.nhdrs == LC_MAX_HDRS)
		return snprintf(why, len, "-H '%s': expected 'Name: value' (at most 32)", h), -1;
	for (const char *c = h; c < colon; c++)
		if (*c <= ' ' || *c >= 0x7f)
			return snprintf(why, len, "-H '%s': a space or control character in the name", h), -1;
	if (colon - h == 4 && !strncasecmp(h, "host", 4)) {
		host_hdr = colon + 1 + strspn(colon + 1, " \t");
		if (!*host_hdr || strlen(host_hdr) >= sizeof(lc_target.authority))
			return snprintf(why, len, "-H '%s': an empty or too long Host", h), -1;
		return 0;
	}
	if (colon - h == 10 && !strncasecmp(h, "connection", 10))
		have_conn_hdr = 1;
	lc_opts.hdrs[lc_opts.nhdrs++] = h;
	return 0;
}

/* <s>'s <n> bytes percent-decoded into <o>: its length, or -1 on a bad escape */
static long pct_decode(const char *s, size_t n, char *o)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		char hex[3] = { 0 }, *end;

		if (s[i] != '%') {
			o[k++] = s[i];
			continue;
		}
		if (i + 2 >= n || !isxdigit((unsigned char)s[i + 1]))
			return -1;
		memcpy(hex, s + i + 1, 2);
		o[k++] = (char)strtoul(hex, &end, 16);
		if (*end)
			return -1;
		i += 2;
	}
	return (long)k;
}

/* --h3-fields 'name:value&...': names and values percent-decoded (CR, LF,
 * NUL, upper case, pseudo-headers in any order: a server's checks tested) */
static int set_h3_fields(const char *arg, char *why, size_t len)
{
	char *buf = malloc(strlen(arg) + 1), *o = buf;

	lc_opts.nh3_fields = 0;
	for (const char *p = arg; buf && *p;) {
		size_t n = strcspn(p, "&");
		const char *colon = n > 1 ? memchr(p + 1, ':', n - 1) : NULL;
		struct lc_field *f = &lc_opts.h3_fields[lc_opts.nh3_fields];
		long nl, vl;

		if (!colon || lc_opts.nh3_fields == LC_MAX_HDRS ||
		    (nl = pct_decode(p, (size_t)(colon - p), o)) < 0 ||
		    (vl = pct_decode(colon + 1, (size_t)(p + n - colon - 1), o + nl)) < 0)
			return free(buf), snprintf(why, len, "--h3-fields '%s': expected 'name:value&...' (at most 32, %%XX escapes)", arg), -1;
		*f = (struct lc_field){ o, o + nl, (size_t)nl, (size_t)vl };
		lc_opts.nh3_fields++;
		o += nl + vl;
		p += n + (p[n] == '&');
	}
	return buf ? 0 : (snprintf(why, len, "--h3-fields: out of memory"), -1);
}

/* --connect-to, --resolve: repeatable, at most 16 */
static int route_add(const char **list, int *n, const char *opt, const char *arg, char *why, size_t len)
{
	if (*n == 16)
		return snprintf(why, len, "%s '%s': at most 16", opt, arg), -1;
	list[(*n)++] = arg;
	return 0;
}

static int set_connect_to(const char *arg, char *why, size_t len)
{
	return route_add(lc_opts.route.connect_to, &lc_opts.route.nconnect_to, "--connect-to", arg, why, len);
}

static int set_resolve(const char *arg, char *why, size_t len)
{
	return route_add(lc_opts.route.resolve, &lc_opts.route.nresolve, "--resolve", arg, why, len);
}

static int set_source(const char *arg, char *why, size_t len)
{
	return lc_source_parse(arg, why, len);
}

static int set_proxy_protocol(const char *arg, char *why, size_t len)
{
	if (strcmp(arg, "v1") && strcmp(arg, "v2"))
		return snprintf(why, len, "--proxy-protocol '%s': expected v1 or v2", arg), -1;
	lc_opts.proxy_proto = arg[1] - '0';
	return 0;
}

/* --pid NAME=PID */
static int set_pid(const char *arg, char *why, size_t len)
{
	const char *eq = strchr(arg, '=');
	struct lc_named_pid *p = &lc_opts.pids[lc_opts.npids];
	size_t n = eq ? (size_t)(eq - arg) : 0;

	if (lc_opts.npids == LC_MAX_PIDS)
		return snprintf(why, len, "--pid '%s': at most 8", arg), -1;
	if (!eq || !n || n >= sizeof(p->name) || strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789_-") < n)
		return snprintf(why, len, "--pid '%s': expected NAME=PID, a name of 1 to 31 of a-z 0-9 _ -", arg), -1;
	memcpy(p->name, arg, n);
	p->name[n] = 0;
	p->pid = (int)num_arg("--pid", eq + 1, 1, 1 << 30);
	for (int i = 0; i < lc_opts.npids; i++)
		if (!strcmp(lc_opts.pids[i].name, p->name))
			return snprintf(why, len, "--pid '%s': that name twice", arg), -1;
	if (kill(p->pid, 0) < 0 && !lc_proc_cpu_us(p->pid))
		return snprintf(why, len, "--pid '%s': no such process here", arg), -1;
	lc_opts.npids++;
	return 0;
}

/* --handshakes F:R:Z: one request per connection, the kinds in turn */
static int set_handshakes(const char *arg, char *why, size_t len)
{
	if (lc_hs_parse(arg, lc_opts.hs_mix, why, len) < 0)
		return -1;
	lc_opts.hs = lc_opts.close = 1;
	lc_opts.zero_rtt |= lc_opts.hs_mix[HS_0RTT] > 0;
	return 0;
}

static int set_fail_on(const char *arg, char *why, size_t len)
{
	const char *err;

	if (lc_check_parse(arg, &err) < 0)
		return snprintf(why, len, "--fail-on '%s': %s", arg, err), -1;
	lc_opts.fail_on = arg;
	return 0;
}

static int set_expect(const char *arg, char *why, size_t len)
{
	const char *err;

	if (lc_expect_parse(arg, lc_opts.expect_set, &err) < 0)
		return snprintf(why, len, "--expect '%s': %s", arg, err), -1;
	lc_opts.expect = arg;
	return 0;
}

/* ---------- the table: -h's order ---------- */

#define NUM(f, lo, hi, d) .kind = OPT_NUM, OPT_F(struct lc_opts, f), .min = (lo), .max = (hi), .dflt = (d)
#define DUR(f, lo, d, r)  NUM(f, lo, UINT64_MAX, d), .parse = dur_parse, .range = (r)
#define FLAG(f)           .kind = OPT_FLAG, OPT_F(struct lc_opts, f)
#define CONST(f, v)       .kind = OPT_CONST, OPT_F(struct lc_opts, f), .val = (v)
#define STR(f)            .kind = OPT_STR, OPT_F(struct lc_opts, f)
#define FN(fn)            .kind = OPT_FN, .set = (fn)

static const struct opt rows[] = {
	{ .kind = OPT_TEXT, .help = "Load:" },
	{ NULL, 't', NUM(threads, 1, 256, 1), .arg = "<n>",
	  .help = "threads, each with its own connections (1)" },
	{ NULL, 'c', NUM(conns, 1, 100000, 10), .arg = "<n>",
	  .help = "connections in all (10); the open-file soft limit is raised\n"
	  "to them, past the hard one refused" },
	{ NULL, 'm', NUM(depth, 1, LC_MAX_DEPTH, 1), .arg = "<n>",
	  .help = "in flight per connection: h2/h3 streams, h1 pipeline depth (1)" },
	{ NULL, 'd', DUR(duration_us, 1000, 10000000, "1ms or more"), .arg = "<time>",
	  .help = "duration: seconds, or 500ms, 2m, 1h (10); with -n, whichever\n"
	  "ends first" },
	{ NULL, 'n', NUM(total, 1, 1000000000000000ULL, 0), .arg = "<n>",
	  .help = "requests in all" },
	{ NULL, 'R', FN(set_rate), .arg = "<rate>",
	  .help = "open loop: requests per second, latency measured from each\n"
	  "request's intended send time (no coordinated omission);\n"
	  "-R A:B ramps linearly from A to B over the duration" },
	{ "stages", 0, FN(set_stages), .arg = "<s>",
	  .help = "open loop in stages, 'D@RATE' or 'D@FROM:TO', comma-separated\n"
	  "('10s@1000,30s@5000,10s@0'); sets the duration" },
	{ NULL, 'w', DUR(warmup_us, 0, 0, NULL), .arg = "<time>",
	  .help = "warm-up, not counted (at the first rate)" },
	{ "shard", 0, FN(set_shard), .arg = "<I/N>",
	  .help = "this run is shard I (0..N-1) of N runs sharing one load: it\n"
	  "takes every N-th send time of the schedule, its share of -c\n"
	  "and -n, random streams of its own; with one --start-at the\n"
	  "shards start together and hxload merge adds them up" },
	{ "shards", 0, FN(set_shards), .arg = "<n>",
	  .help = "--shard $JOB_COMPLETION_INDEX/<n> (a Kubernetes Indexed Job)" },
	{ "probe", 0, FN(set_probe), .arg = "<rate>",
	  .help = "a reference probe beside the load: its own connection,\n"
	  "this many requests a second (open loop), its latency\n"
	  "reported apart: what a light user sees at the load's rate" },
	{ "urls", 0, STR(urls), .arg = "<file>",
	  .help = "'weight URL' a line (weight 1 when absent): each request\n"
	  "takes one by weight; one scheme, host and port for all" },
	{ "close", 0, FLAG(close),
	  .help = "a new connection for each request (h1: Connection: close;\n"
	  "h2, h3: one stream per connection); sets -m 1" },
	{ "start-at", 0, FN(set_start_at), .arg = "<t>",
	  .help = "start at epoch seconds or ISO time (2026-12-01T10:00:00Z,\n"
	  "no zone: local) so several machines start together" },
	{ .kind = OPT_TEXT, .help = "Requests:" },
	{ NULL, 'H', FN(set_header), .arg = "'N: V'",
	  .help = "extra request header (repeatable); 'Host: x' replaces the\n"
	  "URL's Host and :authority" },
	{ "method", 0, STR(method), .sdflt = "GET", .arg = "<m>",
	  .help = "request method (GET)" },
	{ "body", 0, NUM(body, 0, 1 << 30, 0), .arg = "<size>",
	  .help = "request body bytes (k, m, g: KiB, MiB, GiB)" },
	{ "timeout", 0, DUR(timeout_us, 1000, 10000000, "1ms or more"), .arg = "<t>",
	  .help = "a request unanswered this long is an error (10); at the end\n"
	  "of the run, requests in flight are waited for this long" },
	{ "h1", 0, CONST(force, LC_H1), .head = "--h1 / --h2",
	  .help = "force HTTP/1.1 or HTTP/2 on https://" },
	{ "h2", 0, CONST(force, LC_H2) },
	{ "h3", 0, CONST(force, LC_H3),
	  .help = "HTTP/3 over QUIC to the https:// URL's host and port" },
	{ .kind = OPT_TEXT, .help = "Names and TLS:" },
	{ "sni", 0, STR(route.sni), .arg = "<name>",
	  .help = "TLS server name (default: the URL's host when it is a name,\n"
	  "none for an IP address; '' for none)" },
	{ "connect-to", 0, FN(set_connect_to), .arg = "<H1:P1:H2:P2>",
	  .help = "connect to H2:P2 for URLs naming H1:P1 (empty:\n"
	  "any), as curl does (repeatable)" },
	{ "resolve", 0, FN(set_resolve), .arg = "<H:P:ADDR>",
	  .help = "the address of H:P (P may be *), as curl (repeatable)" },
	{ "unix-socket", 0, STR(route.unix_path), .arg = "<path>",
	  .help = "connect to this Unix-domain socket (http://, h2c://,\n"
	  "https://), the URL naming the Host" },
	{ "source", 0, FN(set_source), .arg = "<addrs>",
	  .help = "connect from these local addresses, one per connection\n"
	  "in turn: ADDR, A-B (IPv4), A.B.C.D/N, comma-separated\n"
	  "(127.0.0.2-127.0.0.11: more than one port range's worth\n"
	  "of connections to one target, source-hash balancing)" },
	{ "proxy-protocol", 0, FN(set_proxy_protocol), .arg = "v1|v2",
	  .help = "start each connection with a PROXY protocol header\n"
	  "carrying its own addresses (as a proxy does; TCP only)" },
	{ "cert", 0, STR(cert), .arg = "<file>",
	  .help = "client certificate (PEM) for mutual TLS" },
	{ "key", 0, STR(key), .arg = "<file>",
	  .help = "its key (default: in the certificate file)" },
	{ "cacert", 0, STR(cacert), .arg = "<file>",
	  .help = "verify the server's certificate and name against these CAs\n"
	  "(default: no verification, a test target is self-signed)" },
	{ "no-resume", 0, FLAG(no_resume),
	  .help = "no TLS session resumption on new connections (default: the\n"
	  "last session of the thread is offered; h3 too)" },
	{ "0rtt", 0, FLAG(zero_rtt),
	  .help = "HTTP/3: a resumed connection's first requests go in 0-RTT,\n"
	  "before the handshake ends (the server says early=1 in\n"
	  "X-rsp; refused, they are sent again after it)" },
	{ "handshakes", 0, FN(set_handshakes), .arg = "<F:R:Z>",
	  .help = "handshake load: each connection one request, then closed;\n"
	  "full : resumed : 0-RTT handshakes in these shares, in turn\n"
	  "(70:25:5: exactly so in each 100), tickets from the run's\n"
	  "own; reported by kind (0-RTT: --h1 or --h3)" },
	{ "h3-no-credit", 0, FLAG(h3_no_credit),
	  .help = "HTTP/3: stream windows of 1 KiB never extended, a client\n"
	  "that stops reading at the QUIC level (a target's or a\n"
	  "proxy's send timeout should end it)" },
	{ "h3-fields", 0, FN(set_h3_fields), .arg = "<list>",
	  .help = "HTTP/3: each connection's first request sends these fields,\n"
	  "'name:value&...' percent-decoded, in order, as they are (no\n"
	  "check, no lower-casing, no pseudo-header added): a probe of a\n"
	  "target's or a proxy's checks of malformed requests" },
	{ "h3-no-body", 0, FLAG(h3_no_body),
	  .help = "HTTP/3: the request head with --body's length, never the\n"
	  "body (a target's or a proxy's body timeout should end it)" },
	{ .kind = OPT_TEXT, .help = "Results:" },
	{ "verify", 0, FLAG(verify),
	  .help = "check every body byte against hxterm's pattern and the\n"
	  "length against X-rsp's size" },
	{ "sse", 0, FLAG(sse),
	  .help = "the bodies are server-sent events (hxterm's sse=1): each\n"
	  "one's delay from the send time on its data: line (the event\n"
	  "row), and how many came bunched (a buffering proxy)" },
	{ "json", 0, FLAG(json),
	  .help = "one JSON object with every figure and the full histograms,\n"
	  "and each second's (or --interval's): what compare resamples" },
	{ "server-pid", 0, NUM(server_pid, 1, 1 << 30, 0), .arg = "<pid>",
	  .help = "the target runs on this machine: its CPU time (from\n"
	  "/proc) per request and per MiB, in the report" },
	{ "pid", 0, FN(set_pid), .arg = "<name>=<pid>",
	  .help = "another process on this machine (a proxy): its CPU time\n"
	  "in the window, per request and per MiB (repeatable, 8)" },
	{ "idle", 0, NUM(idle, 0, 1000000, 0), .arg = "<n>",
	  .help = "n more connections (h1, h2; clear or TLS) that each send one\n"
	  "request, then stay idle to the end: how many the server or\n"
	  "a proxy closed and after how long idle, each process's RSS\n"
	  "(hxload's, --pid's) per idle connection" },
	{ "idle-ping", 0, DUR(idle_ping_us, 100000, 0, "100ms or more"), .arg = "<t>",
	  .help = "h2: a PING on each idle connection every t (default none:\n"
	  "idle means idle, a peer's idle timeout shows)" },
	{ "label", 0, STR(label), .arg = "<text>",
	  .help = "a name for this run in the report and the JSON" },
	{ "interval", 0, DUR(interval_us, 10000, 0, "10ms or more"), .arg = "<t>",
	  .help = "one JSON line per interval on stdout while it runs" },
	{ "metrics", 0, STR(metrics), .arg = "<addr>",
	  .help = "serve the run's figures in Prometheus text while it runs\n"
	  "(127.0.0.1:9101; requests, errors, bytes, latency quantiles)" },
	{ "html", 0, STR(html), .arg = "<file>",
	  .help = "a self-contained HTML report (charts, no external assets)" },
	{ "hlog", 0, STR(hlog), .arg = "<file>",
	  .help = "each interval's latency as an HdrHistogram interval log\n"
	  "(ns; HistogramLogProcessor reads it; tags server, other, queue)" },
	{ "log", 0, STR(log), .arg = "<file>",
	  .help = "one line per request: send time (epoch us), latency (us),\n"
	  "status, server time (us, - when absent)" },
	{ "fail-on", 0, FN(set_fail_on), .arg = "<s>",
	  .help = "exit 3 when a threshold is crossed: comma-separated\n"
	  "METRIC OP VALUE, METRIC one of p50 p90 p99 p99.9 p99.99\n"
	  "max mean (latency: us, ms (default), s), errors, non2xx\n"
	  "(a count, or % of requests), rps, late, unsent; OP one of\n"
	  "> >= < <=  ('p99>5ms,errors>0,non2xx>1%')" },
	{ "expect", 0, FN(set_expect), .arg = "<statuses>",
	  .help = "the statuses that are right ('200,304', '2xx,404', '500-503';\n"
	  "default 2xx): when over half the answers are others, the\n"
	  "report opens with it, quoting the first, and the exit is 1" },
	{ NULL, 'q', FLAG(quiet),
	  .help = "no progress line" },
	{ "version", 'v', .kind = OPT_VERSION,
	  .help = "the version" },
	{ "help", 'h', .kind = OPT_HELP,
	  .help = "this help" },
	{ .kind = OPT_TEXT, .help = "When the server is hxterm, its X-rsp time splits each latency into server" },
	{ .kind = OPT_TEXT, .help = "time, the client's own queueing (open loop) and the rest (network + proxy)." },
	{ .kind = OPT_TEXT, .help = "Exit status: 0, 1 when nothing was answered (one line says why) or over half" },
	{ .kind = OPT_TEXT, .help = "the answers had a status --expect (2xx) does not name, 2 on a bad command" },
	{ .kind = OPT_TEXT, .help = "line, 3 when a --fail-on threshold was crossed." },
	{ .kind = OPT_END },
};

static void usage(FILE *f)
{
	fputs("Usage: hxload [options] URL\n"
	      "       hxload [options] --urls FILE\n"
	      "       hxload ab [--rounds N] [--keep DIR] [--closed] [--json] [--html FILE] [--max-failed PCT]\n"
	      "                 [--from DIR] [options] A_URL B_URL\n"
	      "       hxload find --slo SPEC [--step-duration T] [--precision PCT] [--keep DIR] [--json] [options] URL\n"
	      "       hxload merge [--json] [--html FILE] [--fail-on SPEC] [--label L] [--force] RUN.json...\n"
	      "       hxload compare [--json] [--resamples N] A.json... [vs B.json...]\n"
	      "       hxload quic-flood [--count N] [--rate N] [--random] [--json] HOST:PORT\n"
	      "  URL: http://host:port/path (HTTP/1.1), https://... (ALPN: h2, else\n"
	      "  HTTP/1.1), h2c://host:port/path (HTTP/2 by prior knowledge),\n"
	      "  ws://host:port/path, wss://... (WebSocket: each request a message; echo:\n"
	      "  one of --body bytes (64) sent, its echo timed and checked; a path with\n"
	      "  ws=gen: each message the server sends, timed from the one before),\n"
	      "  grpc://host:port/Service/Method?QUERY, grpcs://... (gRPC calls on h2: an\n"
	      "  empty message each, the query as x-hxterm metadata; calls counted by\n"
	      "  grpc-status, their messages counted)\n", f);
	opt_usage(f, rows, 18);
}

static void parse_args(int argc, char **argv)
{
	static struct option lo[64];
	char shorts[64], why[512];
	int c;

	if (opt_getopt(rows, shorts, sizeof(shorts), lo, ARRAY_SIZE(lo)) < 0)
		lc_die("%s", "the option table outgrew getopt's (a bug)");
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct opt *o = opt_row(rows, c);

		if (c == ':')
			lc_die("option '%s' needs a value (try -h)", argv[optind - 1]);
		if (!o)
			lc_die("bad option '%s' (try -h)", argv[optind - 1]);
		if (o->kind == OPT_HELP)
			usage(stdout), exit(0);
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
	if (have_stages && (have_d || lc_opts.rate > 0))
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

/* the options the probe's own run drops: the load's shape and outputs */
static int probe_drops(const struct opt *o)
{
	static const char *const longs[] = { "stages", "probe", "json", "html", "log", "interval", "fail-on",
					     "label", "server-pid", "pid", "start-at", "shard", "shards", "metrics",
					     "hlog" };

	if (o->sname && strchr("tcmnRdwq", o->sname))
		return 1;
	for (size_t i = 0; o->lname && i < ARRAY_SIZE(longs); i++)
		if (!strcmp(o->lname, longs[i]))
			return 1;
	return 0;
}

/* the row of the option word <w> ("--probe", "--probe=50", "-c", "-c10") */
static const struct opt *row_of(const char *w)
{
	for (const struct opt *o = rows; o->kind != OPT_END; o++) {
		if (o->kind <= OPT_TEXT)
			continue;
		if (w[1] == '-' && o->lname && !strncmp(w + 2, o->lname, strlen(o->lname)) &&
		    (!w[2 + strlen(o->lname)] || w[2 + strlen(o->lname)] == '='))
			return o;
		if (w[1] != '-' && o->sname == w[1])
			return o;
	}
	return NULL;
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
		const char *w = lc_opts.argv[i];
		const struct opt *o = w[0] == '-' && w[1] ? row_of(w) : NULL;
		/* WHY: "-c 10" takes the next word, "-c10" and "--x=v" do not */
		int joined = o && o->arg && (strchr(w, '=') || (w[1] != '-' && w[2]));

		if (o && probe_drops(o)) {
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
	opt_defaults(rows, &lc_opts);
	parse_args(argc, argv);
	if (lc_opts.urls)
		lc_urls_file(lc_opts.urls);
	else
		lc_url_parse(argv[optind], 1), lc_target.paths[0].cum = 1;
	if (host_hdr)
		snprintf(lc_target.authority, sizeof(lc_target.authority), "%s", host_hdr);
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
	if (lc_sources()) {
		char why[160];

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
}

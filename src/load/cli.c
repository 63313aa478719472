/* hxload's command line: options, the URL, the HTTP/1 request template. */
#include <getopt.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common.h"
#include "lc.h"

struct lc_opts lc_opts = { .threads = 1, .conns = 10, .depth = 1, .method = "GET",
			   .timeout_us = 10000000, .duration_us = 10000000 };
struct lc_target lc_target;

void lc_die(const char *fmt, const char *arg)
{
	fprintf(stderr, "hxload: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

/* http://, https://, h2c://host[:port][/path] */
static void parse_url(const char *url)
{
	char host[256] = "", port[8] = "";
	const char *p, *slash, *hp, *dport;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	size_t hl;

	if (!strncmp(url, "http://", 7))
		p = url + 7, dport = "80";
	else if (!strncmp(url, "https://", 8))
		p = url + 8, dport = "443", lc_target.tls = 1;
	else if (!strncmp(url, "h2c://", 6))
		p = url + 6, dport = "80", lc_target.proto = LC_H2;
	else
		lc_die("bad URL '%s': use http://, https:// or h2c://", url);
	snprintf(port, sizeof(port), "%s", dport);
	slash = strchr(p, '/');
	hl = slash ? (size_t)(slash - p) : strlen(p);
	if (!hl || hl >= sizeof(lc_target.authority))
		lc_die("bad URL '%s': no host", url);
	memcpy(lc_target.authority, p, hl);
	lc_target.authority[hl] = 0;
	snprintf(lc_target.path, sizeof(lc_target.path), "%s", slash ? slash : "/");
	hp = lc_target.authority;
	if (*hp == '[') {
		const char *rb = strchr(hp, ']');

		if (!rb)
			lc_die("bad URL '%s': unclosed [", url);
		snprintf(host, sizeof(host), "%.*s", (int)(rb - hp - 1), hp + 1);
		if (rb[1] == ':')
			snprintf(port, sizeof(port), "%s", rb + 2);
	} else {
		const char *colon = strchr(hp, ':');

		snprintf(host, sizeof(host), "%.*s", colon ? (int)(colon - hp) : (int)strlen(hp), hp);
		if (colon)
			snprintf(port, sizeof(port), "%s", colon + 1);
	}
	if (getaddrinfo(host, port, &hints, &res) || !res)
		lc_die("cannot resolve '%s'", lc_target.authority);
	memcpy(&lc_target.addr, res->ai_addr, res->ai_addrlen);
	lc_target.alen = res->ai_addrlen;
	freeaddrinfo(res);
}

static void build_request(void)
{
	size_t cap = 8192 + strlen(lc_target.path) + lc_opts.body, n;
	char *r = malloc(cap);

	if (!r)
		lc_die("%s", "out of memory");
	n = (size_t)snprintf(r, cap, "%s %s HTTP/1.1\r\nHost: %s\r\n", lc_opts.method, lc_target.path,
			     lc_target.authority);
	for (int i = 0; i < lc_opts.nhdrs; i++)
		n += (size_t)snprintf(r + n, cap - n, "%s\r\n", lc_opts.hdrs[i]);
	if (lc_opts.body)
		n += (size_t)snprintf(r + n, cap - n, "Content-Length: %llu\r\n",
				      (unsigned long long)lc_opts.body);
	n += (size_t)snprintf(r + n, cap - n, "\r\n");
	memset(r + n, 'u', lc_opts.body);
	lc_target.req = r;
	lc_target.reqlen = n + lc_opts.body;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: hxload [options] URL\n"
"  URL: http://host:port/path (HTTP/1.1), https://... (ALPN: h2, else\n"
"  HTTP/1.1), h2c://host:port/path (HTTP/2 by prior knowledge)\n"
"  -t <n>          threads, each with its own connections (1)\n"
"  -c <n>          connections in all (10)\n"
"  -m <n>          in flight per connection: h2 streams, h1 pipeline depth (1)\n"
"  -d <s>          duration in seconds (10); with -n, whichever ends first\n"
"  -n <n>          requests in all\n"
"  -R <rate>       open loop: requests per second, latency measured from each\n"
"                  request's intended send time (no coordinated omission)\n"
"  -w <s>          warm-up seconds, not counted\n"
"  -H 'N: V'       extra request header (repeatable)\n"
"  --method <m>    request method (GET)\n"
"  --body <n>      request body bytes\n"
"  --timeout <s>   a request unanswered this long is an error (10)\n"
"  --h1 / --h2     force HTTP/1.1 or HTTP/2 on https://\n"
"  --h3            HTTP/3 over QUIC to the https:// URL's host and port\n"
"  --verify        check every body byte against hxterm's pattern and the\n"
"                  length against X-rsp's size\n"
"  --json          one JSON object with every figure\n"
"  -q              no progress line\n"
"  -h, --help      this help\n"
"When the server is hxterm, its X-rsp time splits each latency into server\n"
"time and the rest (network + proxy).\n");
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

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "method", 1, NULL, 'M' }, { "body", 1, NULL, 'B' }, { "timeout", 1, NULL, 'T' },
		{ "h1", 0, NULL, '1' }, { "h2", 0, NULL, '2' }, { "h3", 0, NULL, '3' },
		{ "verify", 0, NULL, 'V' }, { "json", 0, NULL, 'J' }, { "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:c:m:d:n:R:w:H:qh", lo, NULL)) != -1) {
		switch (c) {
		case 't': lc_opts.threads = (int)num_arg("-t", optarg, 1, 256); break;
		case 'c': lc_opts.conns = (int)num_arg("-c", optarg, 1, 100000); break;
		case 'm': lc_opts.depth = (int)num_arg("-m", optarg, 1, LC_MAX_DEPTH); break;
		case 'd': lc_opts.duration_us = (uint64_t)(num_arg("-d", optarg, 0.001, 1e6) * 1e6); break;
		case 'n': lc_opts.total = (uint64_t)num_arg("-n", optarg, 1, 1e15); break;
		case 'R': lc_opts.rate = num_arg("-R", optarg, 0.001, 1e9); break;
		case 'w': lc_opts.warmup_us = (uint64_t)(num_arg("-w", optarg, 0, 1e6) * 1e6); break;
		case 'T': lc_opts.timeout_us = (uint64_t)(num_arg("--timeout", optarg, 0.001, 1e6) * 1e6); break;
		case 'B': lc_opts.body = (uint64_t)num_arg("--body", optarg, 0, 1 << 30); break;
		case 'M': lc_opts.method = optarg; break;
		case 'H':
			if (lc_opts.nhdrs == 32 || !strchr(optarg, ':'))
				lc_die("-H '%s': expected 'Name: value' (at most 32)", optarg);
			lc_opts.hdrs[lc_opts.nhdrs++] = optarg;
			break;
		case '1': lc_opts.force = LC_H1; break;
		case '2': lc_opts.force = LC_H2; break;
		case '3': lc_opts.force = LC_H3; break;
		case 'V': lc_opts.verify = 1; break;
		case 'J': lc_opts.json = 1; break;
		case 'q': lc_opts.quiet = 1; break;
		case 'h': usage(stdout); exit(0);
		default: lc_die("bad option '%s' (try -h)", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		lc_die("%s", "expected one URL (try -h)");
	if (lc_opts.conns < lc_opts.threads)
		lc_opts.threads = lc_opts.conns;
}

void lc_cli(int argc, char **argv)
{
	parse_args(argc, argv);
	parse_url(argv[optind]);
	if (lc_opts.force && lc_target.tls)
		lc_target.proto = lc_opts.force;
	if (lc_opts.force == LC_H2 && !lc_target.tls)
		lc_target.proto = LC_H2;
	if (lc_opts.force == LC_H3 && !lc_target.tls)
		lc_die("%s", "--h3 needs an https:// URL");
	build_request();
}

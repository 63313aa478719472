/* hxload's option setters: the rows that are more than a number, a flag or a string (rates, shards, stages, headers, routes, --pid, --fail-on) */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common.h"
#include "lc_cli.h"
#include "lc_cmd.h"
#include "lc_stats.h"
#include "lc_source.h"
#include "num.h"
#include "lc_cli_int.h"

const char *cli_host_hdr;        /* -H 'Host: ...' */
int cli_have_conn_hdr;           /* -H 'Connection: ...' */
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
int cli_dur_parse(const char *s, uint64_t *us, const char **err)
{
	if (lc_duration(s, strlen(s), us) < 0)
		return *err = "expected a duration (seconds, or 500ms, 2m, 1h)", -1;
	return 0;
}

/* ---------- the setters of the rows that are more than a number, a flag or a string ---------- */

int cli_have_stages;

int cli_set_rate(const char *arg, char *why, size_t len)
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

int cli_set_shard(const char *arg, char *why, size_t len)
{
	const char *slash = strchr(arg, '/');
	char w[96];

	snprintf(w, sizeof(w), "--shard '%s'", arg);
	return shard_of(arg, slash ? slash + 1 : "", w, why, len);
}

int cli_set_shards(const char *arg, char *why, size_t len)
{
	const char *i = getenv("JOB_COMPLETION_INDEX");
	char w[96];

	if (!i)
		return snprintf(why, len, "--shards %s: JOB_COMPLETION_INDEX is not set (or give --shard I/N)", arg), -1;
	snprintf(w, sizeof(w), "--shards %s with JOB_COMPLETION_INDEX=%s", arg, i);
	return shard_of(i, arg, w, why, len);
}

int cli_set_probe(const char *arg, char *why, size_t len)
{
	(void)why, (void)len;
	lc_opts.probe = num_arg("--probe", arg, 0.1, 100000);
	return 0;
}

int cli_set_stages(const char *arg, char *why, size_t len)
{
	const char *err;

	if (lc_stages_parse(&lc_opts, arg, &err) < 0)
		return snprintf(why, len, "--stages: %s", err), -1;
	cli_have_stages = 1;
	return 0;
}

/* --start-at: epoch seconds, or YYYY-MM-DDTHH:MM:SS[.frac][Z] */
int cli_set_start_at(const char *arg, char *why, size_t len)
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

int cli_set_header(const char *h, char *why, size_t len)
{
	const char *colon = strchr(h, ':');

	if (!colon || colon == h || lc_opts.nhdrs == LC_MAX_HDRS)
		return snprintf(why, len, "-H '%s': expected 'Name: value' (at most 32)", h), -1;
	for (const char *c = h; c < colon; c++)
		if (*c <= ' ' || *c >= 0x7f)
			return snprintf(why, len, "-H '%s': a space or control character in the name", h), -1;
	if (colon - h == 4 && !strncasecmp(h, "host", 4)) {
		cli_host_hdr = colon + 1 + strspn(colon + 1, " \t");
		if (!*cli_host_hdr || strlen(cli_host_hdr) >= sizeof(lc_target.authority))
			return snprintf(why, len, "-H '%s': an empty or too long Host", h), -1;
		return 0;
	}
	if (colon - h == 10 && !strncasecmp(h, "connection", 10))
		cli_have_conn_hdr = 1;
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
int cli_set_h3_fields(const char *arg, char *why, size_t len)
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

int cli_set_connect_to(const char *arg, char *why, size_t len)
{
	return route_add(lc_opts.route.connect_to, &lc_opts.route.nconnect_to, "--connect-to", arg, why, len);
}

int cli_set_resolve(const char *arg, char *why, size_t len)
{
	return route_add(lc_opts.route.resolve, &lc_opts.route.nresolve, "--resolve", arg, why, len);
}

int cli_set_source(const char *arg, char *why, size_t len)
{
	return lc_source_parse(arg, why, len);
}

int cli_set_proxy_protocol(const char *arg, char *why, size_t len)
{
	if (strcmp(arg, "v1") && strcmp(arg, "v2"))
		return snprintf(why, len, "--proxy-protocol '%s': expected v1 or v2", arg), -1;
	lc_opts.proxy_proto = arg[1] - '0';
	return 0;
}

/* --pid NAME=PID */
int cli_set_pid(const char *arg, char *why, size_t len)
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
int cli_set_handshakes(const char *arg, char *why, size_t len)
{
	if (lc_hs_parse(arg, lc_opts.hs_mix, why, len) < 0)
		return -1;
	lc_opts.hs = lc_opts.close = 1;
	lc_opts.zero_rtt |= lc_opts.hs_mix[HS_0RTT] > 0;
	return 0;
}

int cli_set_fail_on(const char *arg, char *why, size_t len)
{
	const char *err;

	if (lc_check_parse(arg, &err) < 0)
		return snprintf(why, len, "--fail-on '%s': %s", arg, err), -1;
	lc_opts.fail_on = arg;
	return 0;
}

int cli_set_expect(const char *arg, char *why, size_t len)
{
	const char *err;

	if (lc_expect_parse(arg, lc_opts.expect_set, &err) < 0)
		return snprintf(why, len, "--expect '%s': %s", arg, err), -1;
	lc_opts.expect = arg;
	return 0;
}

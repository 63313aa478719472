/* hxload's option setters: the rows that are more than a number, a flag or a string (rates, shards, stages, headers, routes, --pid, --fail-on) */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <math.h>
#include <time.h>

#include "common.h"
#include "lc_cli.h"
#include "lc_cmd.h"
#include "lc_stats.h"
#include "lc_source.h"
#include "num.h"
#include "lc_cli_int.h"
#include "lc_guard.h"
#include "lc_sub.h"

/* <arg> a number in [min, max] into <*v>: 0, or -1 with the line in <why> */
static int num_in(const char *opt, const char *arg, double min, double max, double *v, char *why, size_t len)
{
	char *end;

	*v = strtod(arg, &end);
	if (*end || end == arg || !(*v >= min && *v <= max))
		return snprintf(why, len, "%s '%s': expected a number in [%g, %g]", opt, arg, min, max), -1;
	return 0;
}

/* a duration: seconds, or 500ms, 2m, 1h (the rows' parse) */
int cli_dur_parse(const char *s, uint64_t *us, const char **err)
{
	if (lc_duration(s, strlen(s), us) < 0)
		return *err = "expected a duration (seconds, or 500ms, 2m, 1h)", -1;
	return 0;
}

/* ---------- the setters of the rows that are more than a number, a flag or a string ---------- */

CLI_SETTER(cli_set_rate)
{
	struct lc_opts *b = base;
	const char *colon = strchr(arg, ':');
	char a[64];

	(void)o;
	if (!colon)
		return num_in("-R", arg, 0.001, 1e9, &b->rate, why, len) < 0 ? -1 : (b->rate_to = b->rate, 0);
	snprintf(a, sizeof(a), "%.*s", (int)(colon - arg), arg);
	if (num_in("-R", a, 0.001, 1e9, &b->rate, why, len) < 0)
		return -1;
	return num_in("-R", colon + 1, 0.001, 1e9, &b->rate_to, why, len);
}

static int shard_of(struct lc_opts *b, const char *i, const char *n, const char *what, char *why, size_t len)
{
	char *e1, *e2;
	long a = strtol(i, &e1, 10), bn = strtol(n, &e2, 10);

	if (!*i || !*n || (*e1 && *e1 != '/') || *e2 || a < 0 || bn < 1 || bn > 10000 || a >= bn)
		return snprintf(why, len, "%s: expected I/N, 0 <= I < N <= 10000", what), -1;
	b->shard = (int)a;
	b->shards = (int)bn;
	return 0;
}

CLI_SETTER(cli_set_shard)
{
	const char *slash = strchr(arg, '/');
	char w[96];

	(void)o;
	snprintf(w, sizeof(w), "--shard '%s'", arg);
	return shard_of(base, arg, slash ? slash + 1 : "", w, why, len);
}

/* WHY the environment: a Kubernetes Indexed Job gives each pod its index
 * there, and one command line serves every pod */
CLI_SETTER(cli_set_shards)
{
	const char *i = getenv("JOB_COMPLETION_INDEX");
	char w[96];

	(void)o;
	if (!i)
		return snprintf(why, len, "--shards %s: JOB_COMPLETION_INDEX is not set (or give --shard I/N)", arg), -1;
	snprintf(w, sizeof(w), "--shards %s with JOB_COMPLETION_INDEX=%s", arg, i);
	return shard_of(base, i, arg, w, why, len);
}

CLI_SETTER(cli_set_probe)
{
	(void)o;
	return num_in("--probe", arg, 0.1, 100000, &((struct lc_opts *)base)->probe, why, len);
}

CLI_SETTER(cli_set_stages)
{
	struct lc_opts *b = base;
	const char *err;

	(void)o;
	if (lc_stages_parse(b, arg, &err) < 0)
		return snprintf(why, len, "--stages: %s", err), -1;
	b->have_stages = 1;
	return 0;
}

/* --start-at: epoch seconds, or YYYY-MM-DDTHH:MM:SS[.frac][Z] */
CLI_SETTER(cli_set_start_at)
{
	struct lc_opts *b = base;
	struct tm tm = { 0 };
	char *end;
	double v = strtod(arg, &end), frac = 0;
	const char *p;

	(void)o;
	if (!*end && end != arg && v > 0)
		return b->start_at = v, 0;
	p = strptime(arg, "%Y-%m-%dT%H:%M:%S", &tm);
	if (p && *p == '.')
		frac = strtod(p, &end), p = end;
	if (!p || (*p && strcmp(p, "Z")))
		return snprintf(why, len, "--start-at '%s': expected epoch seconds or 2026-12-01T10:00:00[.5][Z]", arg), -1;
	if (*p == 'Z') {
		b->start_at = (double)timegm(&tm) + frac;
		return 0;
	}
	tm.tm_isdst = -1;
	b->start_at = (double)mktime(&tm) + frac;
	return 0;
}

CLI_SETTER(cli_set_header)
{
	struct lc_opts *b = base;
	const char *h = arg, *colon = strchr(h, ':');

	(void)o;
	if (!colon || colon == h || b->nhdrs == LC_MAX_HDRS)
		return snprintf(why, len, "-H '%s': expected 'Name: value' (at most 32)", h), -1;
	for (const char *c = h; c < colon; c++)
		if (*c <= ' ' || *c >= 0x7f)
			return snprintf(why, len, "-H '%s': a space or control character in the name", h), -1;
	if (colon - h == 4 && !strncasecmp(h, "host", 4)) {
		b->host_hdr = colon + 1 + strspn(colon + 1, " \t");
		if (!*b->host_hdr || strlen(b->host_hdr) >= sizeof(((struct lc_target *)0)->authority))
			return snprintf(why, len, "-H '%s': an empty or too long Host", h), -1;
		return 0;
	}
	if (colon - h == 10 && !strncasecmp(h, "connection", 10))
		b->have_conn_hdr = 1;
	b->hdrs[b->nhdrs++] = h;
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
CLI_SETTER(cli_set_h2_engine)
{
	(void)o;
	if (strcmp(arg, "hx") && strcmp(arg, "nghttp2"))
		return snprintf(why, len, "--h2-engine %s: hx or nghttp2", arg), -1;
	((struct lc_opts *)base)->h2_nghttp2 = !strcmp(arg, "nghttp2");
	return 0;
}

CLI_SETTER(cli_set_h3_fields)
{
	struct lc_opts *b = base;
	char *buf = malloc(strlen(arg) + 1), *out = buf;

	(void)o;
	b->nh3_fields = 0;
	for (const char *p = arg; buf && *p;) {
		size_t n = strcspn(p, "&");
		const char *colon = n > 1 ? memchr(p + 1, ':', n - 1) : NULL;
		struct lc_field *f = &b->h3_fields[b->nh3_fields];
		long nl, vl;

		if (!colon || b->nh3_fields == LC_MAX_HDRS ||
		    (nl = pct_decode(p, (size_t)(colon - p), out)) < 0 ||
		    (vl = pct_decode(colon + 1, (size_t)(p + n - colon - 1), out + nl)) < 0)
			return free(buf), b->nh3_fields = 0,
			       snprintf(why, len, "--h3-fields '%s': expected 'name:value&...' (at most 32, %%XX escapes)", arg), -1;
		*f = (struct lc_field){ out, out + nl, (size_t)nl, (size_t)vl };
		b->nh3_fields++;
		out += nl + vl;
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

CLI_SETTER(cli_set_connect_to)
{
	struct lc_route *r = &((struct lc_opts *)base)->route;

	(void)o;
	return route_add(r->connect_to, &r->nconnect_to, "--connect-to", arg, why, len);
}

CLI_SETTER(cli_set_resolve)
{
	struct lc_route *r = &((struct lc_opts *)base)->route;

	(void)o;
	return route_add(r->resolve, &r->nresolve, "--resolve", arg, why, len);
}

CLI_SETTER(cli_set_proxy_protocol)
{
	(void)o;
	if (strcmp(arg, "v1") && strcmp(arg, "v2"))
		return snprintf(why, len, "--proxy-protocol '%s': expected v1 or v2", arg), -1;
	((struct lc_opts *)base)->proxy_proto = arg[1] - '0';
	return 0;
}

/* --pid NAME=PID */
CLI_SETTER(cli_set_pid)
{
	struct lc_opts *b = base;
	const char *eq = strchr(arg, '=');
	struct lc_named_pid *p = &b->pids[b->npids];
	size_t n = eq ? (size_t)(eq - arg) : 0;
	double pid;

	(void)o;
	if (b->npids == LC_MAX_PIDS)
		return snprintf(why, len, "--pid '%s': at most 8", arg), -1;
	if (!eq || !n || n >= sizeof(p->name) || strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789_-") < n)
		return snprintf(why, len, "--pid '%s': expected NAME=PID, a name of 1 to 31 of a-z 0-9 _ -", arg), -1;
	memcpy(p->name, arg, n);
	p->name[n] = 0;
	if (num_in("--pid", eq + 1, 1, 1 << 30, &pid, why, len) < 0)
		return -1;
	p->pid = (int)pid;
	for (int i = 0; i < b->npids; i++)
		if (!strcmp(b->pids[i].name, p->name))
			return snprintf(why, len, "--pid '%s': that name twice", arg), -1;
	if (kill(p->pid, 0) < 0 && !lc_proc_cpu_us(p->pid))
		return snprintf(why, len, "--pid '%s': no such process here", arg), -1;
	b->npids++;
	return 0;
}

/* --handshakes F:R:Z: one request per connection, the kinds in turn */
CLI_SETTER(cli_set_handshakes)
{
	struct lc_opts *b = base;

	(void)o;
	if (lc_hs_parse(arg, b->hs_mix, why, len) < 0)
		return -1;
	b->hs = b->close = 1;
	b->zero_rtt |= b->hs_mix[HS_0RTT] > 0;
	return 0;
}

/* --fail-on, merge's --fail-on, find's --slo: check.c's grammar, the text
 * kept in the row's field */
LC_SETTER(lc_set_check)
{
	char name[64];
	const char *err;

	if (lc_check_parse(arg, &err) < 0)
		return snprintf(why, len, "%s '%s': %s", opt_name(o, name, sizeof(name)), arg, err), -1;
	*(const char **)((char *)base + o->off) = arg;
	return 0;
}

CLI_SETTER(cli_set_expect)
{
	struct lc_opts *b = base;
	const char *err;

	(void)o;
	if (lc_expect_parse(arg, b->expect_set, &err) < 0)
		return snprintf(why, len, "--expect '%s': %s", arg, err), -1;
	b->expect = arg;
	return 0;
}

/* ---------- the commands' setters: each into the row's field ---------- */

static double *real_at(const struct opt *o, void *base)
{
	return (double *)(void *)((char *)base + o->off);
}

/* <arg> a finite number into <*v>: 0, or -1 */
static int real_of(const char *arg, double *v)
{
	char *end;

	*v = strtod(arg, &end);
	return end == arg || *end || !isfinite(*v) ? -1 : 0;
}

static int refuse(const struct opt *o, const char *arg, const char *want, char *why, size_t len)
{
	char name[64];

	return snprintf(why, len, "%s '%s': %s", opt_name(o, name, sizeof(name)), arg, want), -1;
}

LC_SETTER(lc_set_share)
{
	double v;

	if (real_of(arg, &v) < 0 || v < 0 || v > 100)
		return refuse(o, arg, "a percentage, 0 to 100", why, len);
	*real_at(o, base) = v / 100;
	return 0;
}

LC_SETTER(lc_set_pct)
{
	double v;

	if (real_of(arg, &v) < 0 || v < 0 || v > 100)
		return refuse(o, arg, "a percentage, 0 to 100", why, len);
	*real_at(o, base) = v;
	return 0;
}

LC_SETTER(lc_set_level)
{
	double v;

	if (real_of(arg, &v) < 0 || v < 50 || v >= 100)
		return refuse(o, arg, "a level in %, 50 to 99.99", why, len);
	*real_at(o, base) = v;
	return 0;
}

LC_SETTER(lc_set_real)
{
	double v;

	if (real_of(arg, &v) < 0 || v < 0)
		return refuse(o, arg, "a number, 0 or more", why, len);
	*real_at(o, base) = v;
	return 0;
}

LC_SETTER(lc_set_secs)
{
	uint64_t us;

	if (lc_duration(arg, strlen(arg), &us) < 0)
		return refuse(o, arg, "a duration (seconds, or 500ms, 2m)", why, len);
	*real_at(o, base) = (double)us / 1e6;
	return 0;
}

LC_SETTER(lc_set_guard_url)
{
	if (lc_guard_url(arg) < 0)
		return refuse(o, arg, "hxterm's --stats address, http://HOST:PORT/stats.json", why, len);
	*(const char **)((char *)base + o->off) = arg;
	return 0;
}

LC_SETTER(lc_set_guard_pct)
{
	if (lc_guard_pct(arg, real_at(o, base)) < 0)
		return refuse(o, arg, "a percentage, 1 to 100", why, len);
	return 0;
}

/* hxload's target: the URL read and checked, --connect-to, --resolve, --unix-socket, SNI, --urls. */
#include <arpa/inet.h>
#include <ctype.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "common.h"
#include "lc_cli.h"


static double weights[4096];

/* one ':'-separated field at <*p>, brackets of an IPv6 literal removed:
 * 1 when a ':' ended it, 0 the end of the string, -1 when malformed */
static int field(const char **p, char *out, size_t n)
{
	const char *s = *p, *e;

	if (*s == '[') {
		e = strchr(s, ']');
		if (!e || (e[1] && e[1] != ':') || (size_t)(e - s - 1) >= n)
			return -1;
		snprintf(out, n, "%.*s", (int)(e - s - 1), s + 1);
		e++;
	} else {
		e = strchr(s, ':');
		if (!e)
			e = s + strlen(s);
		if ((size_t)(e - s) >= n)
			return -1;
		snprintf(out, n, "%.*s", (int)(e - s), s);
	}
	*p = *e ? e + 1 : e;
	return *e == ':';
}

/* a port: 1..65535, digits only */
static int port_of(const char *s)
{
	long v = 0;

	if (!*s || strlen(s) > 5)
		return -1;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v >= 1 && v <= 65535 ? (int)v : -1;
}

static int is_ip_literal(const char *h)
{
	struct in6_addr a;

	return inet_pton(AF_INET, h, &a) == 1 || inet_pton(AF_INET6, h, &a) == 1;
}

/* scheme://host[:port][/path]; the first URL sets the target, the others
 * (--urls) must name the same scheme, host and port */
void lc_url_parse(const char *url, int first)
{
	struct lc_target *tg = &lc_target;
	const char *p, *end, *hp;
	char host[256], portbuf[8];
	int tls = 0, port, grpc = 0;
	enum lc_proto proto = LC_AUTO;
	size_t hl;
	struct lc_path *np;

	if (!strncmp(url, "http://", 7))
		p = url + 7, port = 80;
	else if (!strncmp(url, "https://", 8))
		p = url + 8, port = 443, tls = 1;
	else if (!strncmp(url, "h2c://", 6))
		p = url + 6, port = 80, proto = LC_H2;
	else if (!strncmp(url, "ws://", 5))
		p = url + 5, port = 80, proto = LC_WS;
	else if (!strncmp(url, "wss://", 6))
		p = url + 6, port = 443, tls = 1, proto = LC_WS;
	else if (!strncmp(url, "grpc://", 7))
		p = url + 7, port = 80, proto = LC_H2, grpc = 1;
	else if (!strncmp(url, "grpcs://", 8))
		p = url + 8, port = 443, tls = 1, proto = LC_H2, grpc = 1;
	else
		lc_die("bad URL '%s': use http://, https://, h2c://, ws://, wss://, grpc:// or grpcs://", url);
	end = p + strcspn(p, "/?#");
	hl = (size_t)(end - p);
	if (!hl)
		lc_die("bad URL '%s': no host", url);
	if (memchr(p, '@', hl))
		lc_die("bad URL '%s': user:password@ is not supported (send -H 'Authorization: ...')", url);
	if (hl >= sizeof(tg->authority))
		lc_die("bad URL '%s': the host is too long", url);
	hp = p;
	if (*hp == '[') {
		const char *rb = memchr(hp, ']', hl);

		if (!rb || (rb + 1 < end && rb[1] != ':'))
			lc_die("bad URL '%s': unclosed [ or junk after ]", url);
		snprintf(host, sizeof(host), "%.*s", (int)(rb - hp - 1), hp + 1);
		hp = rb + 1 < end ? rb + 1 : NULL;
	} else {
		const char *colon = memchr(hp, ':', hl);

		snprintf(host, sizeof(host), "%.*s", (int)((colon ? colon : end) - hp), hp);
		hp = colon;
	}
	if (!*host)
		lc_die("bad URL '%s': no host", url);
	if (hp) {
		snprintf(portbuf, sizeof(portbuf), "%.*s", (int)MIN((size_t)(end - hp - 1), sizeof(portbuf) - 1),
			 hp + 1);
		if ((size_t)(end - hp - 1) >= sizeof(portbuf) || (port = port_of(portbuf)) < 0)
			lc_die("bad URL '%s': the port must be 1 to 65535", url);
	}
	if (*end == '#' || strchr(end, '#'))
		lc_die("bad URL '%s': a #fragment is never sent", url);
	if (strlen(end) + 1 > LC_MAX_PATH)
		lc_die("%s", "bad URL: the path is over 64 KiB");
	for (const char *c = end; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			lc_die("bad URL '%s': a space or control character in the path (encode it)", url);
	if (first) {
		tg->tls = tls;
		tg->grpc = grpc;
		tg->proto = proto;
		tg->port = port;
		snprintf(tg->host, sizeof(tg->host), "%s", host);
		snprintf(tg->authority, sizeof(tg->authority), "%.*s", (int)hl, p);
		tg->url = url;
	} else if (tls != tg->tls || grpc != tg->grpc || proto != tg->proto || port != tg->port || strcmp(host, tg->host)) {
		lc_die("--urls: '%s' is not on the first URL's scheme, host and port", url);
	}
	np = realloc(tg->paths, (size_t)(tg->npaths + 1) * sizeof(*np));
	if (!np || (size_t)tg->npaths >= ARRAY_SIZE(weights))
		lc_die("%s", "too many URLs");
	tg->paths = np;
	np[tg->npaths] = (struct lc_path){ .path = malloc(strlen(end) + 2) };
	if (!np[tg->npaths].path)
		lc_die("%s", "out of memory");
	sprintf(np[tg->npaths].path, "%s%s", *end == '/' ? "" : "/", end);
	if (grpc) { /* WHY: a gRPC method has no query; hxterm reads it from the x-hxterm metadata */
		char *q = strchr(np[tg->npaths].path, '?');

		if (q) {
			*q = 0;
			np[tg->npaths].meta = q + 1;
		}
	}
	weights[tg->npaths++] = 1;
}

/* --urls FILE: 'weight URL' or 'URL' a line, # comments */
void lc_urls_file(const char *file)
{
	FILE *f = fopen(file, "r");
	char line[LC_MAX_PATH + 1024];
	double sum = 0, acc = 0;
	int n = 0;

	if (!f)
		lc_die("--urls: cannot open '%s'", file);
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *u, *end;
		double w = 1;

		line[strcspn(line, "\r\n")] = 0;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			continue;
		if (isdigit((unsigned char)*s) || *s == '.') {
			w = strtod(s, &end);
			if (end == s || !isspace((unsigned char)*end) || w <= 0 || w > 1e9)
				lc_die("--urls: bad weight in '%s' (expected 'weight URL')", line);
			s = end;
			while (isspace((unsigned char)*s))
				s++;
		}
		if (!(u = strdup(s)))
			lc_die("%s", "out of memory");
		lc_url_parse(u, !lc_target.url);
		weights[lc_target.npaths - 1] = w;
		n++;
	}
	fclose(f);
	if (!n)
		lc_die("--urls: no URL in '%s'", file);
	for (int i = 0; i < lc_target.npaths; i++)
		sum += weights[i];
	for (int i = 0; i < lc_target.npaths; i++)
		lc_target.paths[i].cum = (acc += weights[i]) / sum;
	lc_target.paths[lc_target.npaths - 1].cum = 1;
}

/* an address literal (brackets allowed) with <port>, or -1 */
static int literal(const char *a, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(a + (*a == '['), "]"), a + (*a == '['));
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, buf, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		*len = sizeof(*s4);
		return 0;
	}
	if (inet_pton(AF_INET6, buf, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*s6);
		return 0;
	}
	return -1;
}

/* --connect-to HOST1:PORT1:HOST2:PORT2 (empty HOST1/PORT1: any) onto <host>, <port> */
static void connect_to(char *host, size_t hn, int *port)
{
	int matched = 0, from = *port;
	char url_host[256];

	snprintf(url_host, sizeof(url_host), "%s", host);
	for (int i = 0; i < lc_opts.route.nconnect_to; i++) {
		const char *p = lc_opts.route.connect_to[i];
		char h1[256], p1[8], h2[256], p2[8];

		if (field(&p, h1, sizeof(h1)) != 1 || field(&p, p1, sizeof(p1)) != 1 ||
		    field(&p, h2, sizeof(h2)) != 1 || field(&p, p2, sizeof(p2)) != 0 || (*p1 && port_of(p1) < 0) ||
		    (*p2 && port_of(p2) < 0))
			lc_die("--connect-to '%s': expected HOST1:PORT1:HOST2:PORT2", lc_opts.route.connect_to[i]);
		if (matched || (*h1 && strcasecmp(h1, url_host)) || (*p1 && port_of(p1) != from))
			continue;
		if (*h2)
			snprintf(host, hn, "%s", h2);
		if (*p2)
			*port = port_of(p2);
		matched = 1;
	}
}

/* --resolve HOST:PORT:ADDR[,ADDR] (PORT may be *): the first address */
static int resolve(const char *host, int port)
{
	for (int i = 0; i < lc_opts.route.nresolve; i++) {
		const char *p = lc_opts.route.resolve[i];
		char h[256], pt[8];

		if (field(&p, h, sizeof(h)) != 1 || field(&p, pt, sizeof(pt)) != 1 || !*p ||
		    (strcmp(pt, "*") && port_of(pt) < 0))
			lc_die("--resolve '%s': expected HOST:PORT:ADDRESS", lc_opts.route.resolve[i]);
		if (strcasecmp(h, host) || (strcmp(pt, "*") && port_of(pt) != port))
			continue;
		if (literal(p, port, &lc_target.addr, &lc_target.alen) < 0)
			lc_die("--resolve '%s': the address must be an IP address", lc_opts.route.resolve[i]);
		return 1;
	}
	return 0;
}

void lc_url_route(void)
{
	struct lc_target *tg = &lc_target;
	char host[256];
	int port = tg->port;

	if (lc_opts.route.sni)
		snprintf(tg->sni, sizeof(tg->sni), "%.255s", lc_opts.route.sni);
	else if (!is_ip_literal(tg->host))
		snprintf(tg->sni, sizeof(tg->sni), "%.255s", tg->host);
	if (lc_opts.route.unix_path) {
		struct sockaddr_un *su = (struct sockaddr_un *)&tg->addr;

		if (strlen(lc_opts.route.unix_path) >= sizeof(su->sun_path))
			lc_die("--unix-socket '%s': the path is too long", lc_opts.route.unix_path);
		su->sun_family = AF_UNIX;
		strcpy(su->sun_path, lc_opts.route.unix_path);
		tg->alen = sizeof(*su);
		snprintf(tg->where, sizeof(tg->where), "unix:%s", lc_opts.route.unix_path);
		return;
	}
	snprintf(host, sizeof(host), "%.255s", tg->host);
	connect_to(host, sizeof(host), &port);
	snprintf(tg->where, sizeof(tg->where), strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
	if (!resolve(host, port) && literal(host, port, &tg->addr, &tg->alen) < 0) {
		struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
		char ps[8];

		snprintf(ps, sizeof(ps), "%d", port);
		if (getaddrinfo(host, ps, &hints, &res) || !res)
			lc_die("cannot resolve '%s'", host);
		memcpy(&tg->addr, res->ai_addr, res->ai_addrlen);
		tg->alen = res->ai_addrlen;
		freeaddrinfo(res);
	}
}

/* Listening sockets: address parsing for -L and SO_REUSEPORT sockets per worker. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "listen.h"

static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	unsigned long v;

	if (!*s || *s < '0' || *s > '9')
		return -1;
	v = strtoul(s, &end, 10);
	if (*end || v == 0 || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

/* "8000" or "8000-8015": the first port and how many */
static int parse_ports(char *s, uint16_t *first, unsigned *count)
{
	char *dash = strchr(s, '-');
	uint16_t last;

	if (dash)
		*dash++ = 0;
	if (parse_port(s, first) < 0 || (dash && parse_port(dash, &last) < 0))
		return -1;
	if (!dash)
		last = *first;
	if (last < *first)
		return -1;
	*count = (unsigned)(last - *first) + 1;
	return 0;
}

static void set_any(struct listen_addr *la)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&la->ss;

	la->any = 1;
	s6->sin6_family = AF_INET6;
	s6->sin6_addr = in6addr_any;
	la->sslen = sizeof(*s6);
}

/* the addresses of <host>, an IP literal or a name resolved now, into
 * out[0..max): returns how many, or -1 with a reason */
static int resolve(const char *host, struct listen_addr *out, int max, const char **why)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
	int n = 0;

	if (strlen(host) >= sizeof(out->host))
		return *why = "host name too long", -1;
	if (!*host || !strcmp(host, "*")) {
		out[0] = (struct listen_addr){ 0 };
		set_any(&out[0]);
		return 1;
	}
	/* WHY: getaddrinfo takes "1.2.3" as 1.2.0.3 (inet_aton's rules); an
	 * address of digits and dots must be a whole dotted quad */
	if (strspn(host, "0123456789.") == strlen(host) && inet_pton(AF_INET, host, &(struct in_addr){ 0 }) != 1)
		return *why = "bad IP address", -1;
	if (getaddrinfo(host, NULL, &hints, &res) || !res)
		return *why = "cannot resolve the host name", -1;
	for (ai = res; ai && n < max; ai = ai->ai_next) {
		int dup = 0;

		for (int k = 0; k < n; k++)
			dup |= out[k].sslen == ai->ai_addrlen && !memcmp(&out[k].ss, ai->ai_addr, ai->ai_addrlen);
		if (dup)
			continue;
		out[n] = (struct listen_addr){ 0 };
		memcpy(&out[n].ss, ai->ai_addr, ai->ai_addrlen);
		out[n].sslen = ai->ai_addrlen;
		getnameinfo(ai->ai_addr, ai->ai_addrlen, out[n].text, sizeof(out[n].text), NULL, 0,
			    NI_NUMERICHOST);
		n++;
	}
	if (ai)
		n = -1, *why = "too many listen addresses (at most 256 in all, -h)";
	freeaddrinfo(res);
	return n;
}

/* ",proxy,mode=0660" after an address: into <la> */
static int parse_opts(char *o, struct listen_addr *la, const char **why)
{
	for (char *sv, *t = strtok_r(o, ",", &sv); t; t = strtok_r(NULL, ",", &sv)) {
		char *end;
		unsigned long m;

		if (!strcmp(t, "proxy")) {
			la->proxy = 1;
		} else if (!strncmp(t, "mode=", 5)) {
			m = strtoul(t + 5, &end, 8);
			if (!t[5] || *end || m > 0777 || strspn(t + 5, "01234567") != strlen(t + 5))
				return *why = "mode= takes octal permissions (0660)", -1;
			if (la->ss.ss_family != AF_UNIX)
				return *why = "mode= is for unix: sockets", -1;
			la->mode = (uint16_t)m;
		} else {
			return *why = "unknown listener option (proxy, mode=<octal>)", -1;
		}
	}
	return 0;
}

static int parse_unix(const char *path, char *opts, struct listen_addr *out, int max, const char **why)
{
	struct sockaddr_un *su = (struct sockaddr_un *)&out->ss;

	if (max <= 0)
		return *why = "too many listen addresses (at most 256 in all, -h)", -1;
	memset(out, 0, sizeof(*out));
	if (!*path || strlen(path) >= sizeof(su->sun_path))
		return *why = "unix: takes a path of 1 to 107 bytes", -1;
	su->sun_family = AF_UNIX;
	strcpy(su->sun_path, path);
	out->sslen = (socklen_t)sizeof(*su);
	snprintf(out->text, sizeof(out->text), "%s", path);
	if (opts && parse_opts(opts, out, why) < 0)
		return -1;
	return 1;
}

int listen_parse(const char *arg, struct listen_addr *out, int max, const char **why)
{
	char buf[300], *ports, *colon, *opts;
	const char *host;
	uint16_t cp, tp = 0;
	unsigned nc, nt = 0;
	int na, n = 0;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", arg) >= sizeof(buf))
		return *why = "address too long", -1;
	if ((opts = strchr(buf, ',')))
		*opts++ = 0;
	if (!strncmp(buf, "unix:", 5))
		return parse_unix(buf + 5, opts, out, max, why);
	if (buf[0] == '[') {
		char *rb = strchr(buf, ']');

		if (!rb || rb[1] != ':')
			return *why = "expected [ipv6]:port", -1;
		*rb = 0;
		host = buf + 1;
		ports = rb + 2;
	} else {
		ports = strchr(buf, ':');
		if (!ports)
			return *why = "expected <host>:<port>[:<tls port>]", -1;
		*ports++ = 0;
		host = buf;
	}
	if ((colon = strchr(ports, ':')))
		*colon++ = 0;
	if (parse_ports(ports, &cp, &nc) < 0 || (colon && parse_ports(colon, &tp, &nt) < 0))
		return *why = "bad port number or range (N, or N-M with N <= M)", -1;
	if (colon && nt != nc)
		return *why = "the clear and TLS port ranges differ in length", -1;
	if (max <= 0)
		return *why = "too many listen addresses (at most 256 in all, -h)", -1;
	/* WHY each entry zeroed as it is filled (resolve), not out[0..max):
	 * hxterm's table of 256 is 103 KB of .bss, resident once memset */
	if ((na = resolve(host, out, max, why)) < 0)
		return -1;
	for (int a = 0; a < na; a++)
		if (!out[a].any && strcmp(out[a].text, host))
			snprintf(out[a].host, sizeof(out[a].host), "%.*s", (int)sizeof(out[a].host) - 1, host);
	if (na * (long)nc > max)
		return *why = "too many listen addresses (at most 256 in all, -h)", -1;
	/* every address at every port of the range: port-major, as a user lists them */
	for (unsigned p = nc; p-- > 0;)
		for (int a = 0; a < na; a++) {
			struct listen_addr *la = &out[(int)p * na + a];

			*la = out[a];
			la->clear_port = (uint16_t)(cp + p);
			la->tls_port = colon ? (uint16_t)(tp + p) : 0;
			n++;
		}
	for (int k = 0; k < n && opts; k++) {
		char o[300];

		snprintf(o, sizeof(o), "%s", opts);
		if (parse_opts(o, &out[k], why) < 0)
			return -1;
	}
	return n;
}

/* the address bytes of <la> and whether they are the family's wildcard */
static const void *addr_bytes(const struct listen_addr *la, size_t *len, int *wild)
{
	static const uint8_t zero[16];
	const void *p;

	if (la->ss.ss_family == AF_INET) {
		p = &((const struct sockaddr_in *)&la->ss)->sin_addr;
		*len = 4;
	} else {
		p = &((const struct sockaddr_in6 *)&la->ss)->sin6_addr;
		*len = 16;
	}
	*wild = !memcmp(p, zero, *len);
	return p;
}

int listen_overlap(const struct listen_addr *a, const struct listen_addr *b)
{
	const void *pa, *pb;
	size_t la, lb;
	int wa, wb;

	if (a->ss.ss_family == AF_UNIX || b->ss.ss_family == AF_UNIX)
		return a->ss.ss_family == b->ss.ss_family &&
		       !strcmp(((const struct sockaddr_un *)&a->ss)->sun_path,
			       ((const struct sockaddr_un *)&b->ss)->sun_path);
	/* WHY: an empty ip is one dual-stack socket, every address of both families */
	if (a->any || b->any)
		return 1;
	if (a->ss.ss_family != b->ss.ss_family)
		return 0; /* an explicit IPv6 address is bound IPV6_V6ONLY */
	pa = addr_bytes(a, &la, &wa);
	pb = addr_bytes(b, &lb, &wb);
	return wa || wb || !memcmp(pa, pb, la);
}

static int sock_opts(int fd, const struct listen_addr *la)
{
	int one = 1, zero = 0;

	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0)
		return -1;
	/* WHY: an empty ip means all addresses, v4 included, on one socket */
	if (la->any && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) < 0)
		return -1;
	if (la->ss.ss_family == AF_INET6 && !la->any &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0)
		return -1;
	return 0;
}

static int listen_sock(const struct listen_addr *la, uint16_t port, int type)
{
	struct sockaddr_storage ss = la->ss;
	int fd, err;

	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
	fd = socket(ss.ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (sock_opts(fd, la) < 0 || bind(fd, (struct sockaddr *)&ss, la->sslen) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 4096) < 0)) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/* whether a process answers on the Unix socket <la>: 1 yes, 0 no (or no
 * file), -1 with errno EEXIST when the path is no socket */
static int unix_owned(const struct listen_addr *la)
{
	const struct sockaddr_un *su = (const struct sockaddr_un *)&la->ss;
	struct stat st;
	int fd, r;

	if (lstat(su->sun_path, &st) < 0)
		return 0;
	if (!S_ISSOCK(st.st_mode))
		return errno = EEXIST, -1;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	r = connect(fd, (const struct sockaddr *)su, la->sslen) == 0;
	close(fd);
	return r;
}

int listen_unix(const struct listen_addr *la, int take_over, ino_t *ino)
{
	const struct sockaddr_un *su = (const struct sockaddr_un *)&la->ss;
	struct stat st;
	int fd, err, r = unix_owned(la);

	if (r < 0 || (r > 0 && !take_over))
		return r > 0 ? (errno = EADDRINUSE, -1) : -1;
	unlink(su->sun_path); /* WHY: a socket file nobody answers on is stale */
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (bind(fd, (const struct sockaddr *)su, la->sslen) < 0 ||
	    (la->mode && chmod(su->sun_path, la->mode) < 0) || listen(fd, 4096) < 0 ||
	    stat(su->sun_path, &st) < 0) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	*ino = st.st_ino;
	return fd;
}

void listen_unix_remove(const struct listen_addr *la, ino_t ino)
{
	const struct sockaddr_un *su = (const struct sockaddr_un *)&la->ss;
	struct stat there;

	if (stat(su->sun_path, &there) == 0 && there.st_ino == ino)
		unlink(su->sun_path);
}

int listen_free(const struct listen_addr *la, uint16_t port, int type)
{
	struct sockaddr_storage ss = la->ss;
	int fd, one = 1, zero = 0, err = 0;


	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
	fd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* WHY SO_REUSEADDR and not SO_REUSEPORT: a connection in TIME_WAIT
	 * is no owner, a socket bound or listening there is */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (la->any)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	else if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, la->sslen) < 0)
		err = errno;
	close(fd);
	errno = err;
	return err ? -1 : 0;
}

int listen_tcp(const struct listen_addr *la, uint16_t port)
{
	return listen_sock(la, port, SOCK_STREAM);
}

int listen_udp(const struct listen_addr *la, uint16_t port)
{
	return listen_sock(la, port, SOCK_DGRAM);
}

void listen_name(const struct listen_addr *la, uint16_t port, char *buf, size_t len)
{
	if (la->ss.ss_family == AF_UNIX)
		snprintf(buf, len, "unix:%s", la->text);
	else if (la->any)
		snprintf(buf, len, "*:%u", port);
	else if (la->ss.ss_family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", la->text, port);
	else
		snprintf(buf, len, "%s:%u", la->text, port);
}

void sa_name(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, ntohs(a->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
		snprintf(buf, len, "[%s]:%u", ip, ntohs(a->sin6_port));
	} else {
		snprintf(buf, len, "%s", ss->ss_family == AF_UNIX ? "unix" : "?");
	}
}

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

int listen_parse(const char *arg, struct listen_addr *out, int max, const char **why)
{
	char buf[300], *ports, *colon;
	const char *host;
	uint16_t cp, tp = 0;
	unsigned nc, nt = 0;
	int na, n = 0;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", arg) >= sizeof(buf))
		return *why = "address too long", -1;
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
	memset(out, 0, sizeof(*out) * (size_t)max);
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
	return n;
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
	if (la->any)
		snprintf(buf, len, "*:%u", port);
	else if (la->ss.ss_family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", la->text, port);
	else
		snprintf(buf, len, "%s:%u", la->text, port);
}

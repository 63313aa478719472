/* Listening sockets: address parsing for -L and SO_REUSEPORT sockets per worker. */
#include <arpa/inet.h>
#include <errno.h>
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

static int parse_ip(const char *ip, struct listen_addr *la)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)&la->ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&la->ss;

	memset(&la->ss, 0, sizeof(la->ss));
	if (!*ip || !strcmp(ip, "*")) {
		la->any = 1;
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_any;
		la->sslen = sizeof(*s6);
		return 0;
	}
	if (inet_pton(AF_INET, ip, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		la->sslen = sizeof(*s4);
		return 0;
	}
	if (inet_pton(AF_INET6, ip, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		la->sslen = sizeof(*s6);
		return 0;
	}
	return -1;
}

int listen_parse(const char *arg, struct listen_addr *la, const char **why)
{
	char buf[128], *ports, *colon;
	const char *ip;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", arg) >= sizeof(buf))
		return *why = "address too long", -1;
	memset(la, 0, sizeof(*la));
	if (buf[0] == '[') {
		char *rb = strchr(buf, ']');

		if (!rb || rb[1] != ':')
			return *why = "expected [ipv6]:port", -1;
		*rb = 0;
		ip = buf + 1;
		ports = rb + 2;
	} else {
		ports = strchr(buf, ':');
		if (!ports)
			return *why = "expected <ip>:<port>[:<tls port>]", -1;
		*ports++ = 0;
		ip = buf;
	}
	if ((colon = strchr(ports, ':')))
		*colon++ = 0;
	if (parse_port(ports, &la->clear_port) < 0 ||
	    (colon && parse_port(colon, &la->tls_port) < 0))
		return *why = "bad port number", -1;
	if (parse_ip(ip, la) < 0)
		return *why = "bad IP address", -1;
	snprintf(la->text, sizeof(la->text), "%s", ip);
	return 0;
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

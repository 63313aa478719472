/* hxload's --source: the local addresses its connections come from (an address, an IPv4 range or CIDR block, a list of them), one picked per connection. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdatomic.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_source.h"

#define LC_MAX_SOURCES 65536

static struct sockaddr_storage *srcs;
static uint32_t nsrcs, cap;

static int add(const struct sockaddr_storage *a)
{
	if (nsrcs == LC_MAX_SOURCES)
		return -1;
	if (nsrcs == cap) {
		struct sockaddr_storage *n = realloc(srcs, (cap ? cap * 2 : 16) * sizeof(*srcs));

		if (!n)
			return -1;
		srcs = n;
		cap = cap ? cap * 2 : 16;
	}
	srcs[nsrcs++] = *a;
	return 0;
}

static void v4(struct sockaddr_storage *a, uint32_t host)
{
	struct sockaddr_in *s = (struct sockaddr_in *)a;

	memset(a, 0, sizeof(*a));
	s->sin_family = AF_INET;
	s->sin_addr.s_addr = htonl(host);
}

/* IPv4 addresses <lo> to <hi>, both included */
static int add_v4(uint32_t lo, uint32_t hi)
{
	struct sockaddr_storage a;

	if (hi < lo || hi - lo >= LC_MAX_SOURCES)
		return -1;
	for (uint64_t h = lo; h <= hi; h++) {
		v4(&a, (uint32_t)h);
		if (add(&a) < 0)
			return -1;
	}
	return 0;
}

/* one item: ADDR, A-B (IPv4), A.B.C.D/N */
static int item(const char *it, char *why, size_t len)
{
	char buf[128], *dash, *slash;
	struct in_addr a, b;
	struct sockaddr_storage s = { 0 };

	if (strlen(it) >= sizeof(buf))
		return snprintf(why, len, "--source '%s': too long", it), -1;
	strcpy(buf, it);
	if ((dash = strchr(buf, '-'))) {
		*dash = 0;
		if (inet_pton(AF_INET, buf, &a) != 1 || inet_pton(AF_INET, dash + 1, &b) != 1 ||
		    add_v4(ntohl(a.s_addr), ntohl(b.s_addr)) < 0)
			return snprintf(why, len, "--source '%s': expected A-B, two IPv4 addresses in order, at most %d",
					it, LC_MAX_SOURCES), -1;
		return 0;
	}
	if ((slash = strchr(buf, '/'))) {
		char *end;
		long n = strtol(slash + 1, &end, 10);

		*slash = 0;
		if (inet_pton(AF_INET, buf, &a) != 1 || *end || end == slash + 1 || n < 16 || n > 32)
			return snprintf(why, len, "--source '%s': expected A.B.C.D/N, N from 16 to 32", it), -1;
		uint32_t mask = n == 32 ? ~0u : ~(~0u >> n), net = ntohl(a.s_addr) & mask;

		return add_v4(net, net | ~mask) < 0 ? snprintf(why, len, "--source '%s': too many addresses", it), -1 : 0;
	}
	if (inet_pton(AF_INET, buf, &((struct sockaddr_in *)&s)->sin_addr) == 1)
		s.ss_family = AF_INET;
	else if (inet_pton(AF_INET6, buf, &((struct sockaddr_in6 *)&s)->sin6_addr) == 1)
		s.ss_family = AF_INET6;
	else
		return snprintf(why, len, "--source '%s': not an IPv4 or IPv6 address, A-B or A.B.C.D/N", it), -1;
	return add(&s) < 0 ? snprintf(why, len, "--source: more than %d addresses", LC_MAX_SOURCES), -1 : 0;
}

int lc_source_parse(const char *spec, char *why, size_t len)
{
	char buf[4096], *sv, *t;

	if (strlen(spec) >= sizeof(buf))
		return snprintf(why, len, "--source: the list is too long"), -1;
	strcpy(buf, spec);
	for (t = strtok_r(buf, ",", &sv); t; t = strtok_r(NULL, ",", &sv))
		if (item(t, why, len) < 0)
			return -1;
	if (!nsrcs)
		return snprintf(why, len, "--source '%s': no address", spec), -1;
	return 0;
}

int lc_source_check(int family, char *why, size_t len)
{
	for (uint32_t i = 0; i < nsrcs; i++)
		if (srcs[i].ss_family != family)
			return snprintf(why, len, "--source: an %s address for an %s target",
					srcs[i].ss_family == AF_INET ? "IPv4" : "IPv6", family == AF_INET ? "IPv4" : "IPv6"), -1;
	return 0;
}

uint32_t lc_sources(void)
{
	return nsrcs;
}

int lc_source_bind(int fd, uint32_t k)
{
	const struct sockaddr_storage *a;
	int one = 1;

	if (!nsrcs)
		return 0;
	a = &srcs[k % nsrcs];
	/* WHY: the port is chosen at connect(), per destination, so each
	 * source address has its whole port range for each target */
	setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	return bind(fd, (const struct sockaddr *)a,
		    a->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
}

void lc_source_exhausted(void)
{
	static atomic_int said;
	char range[64] = "?";
	FILE *f;

	if (atomic_exchange(&said, 1))
		return;
	if ((f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r"))) {
		if (fgets(range, sizeof(range), f))
			range[strcspn(range, "\n")] = 0;
		fclose(f);
	}
	for (char *t = range; *t; t++)
		if (*t == '\t')
			*t = '-';
	fprintf(stderr, "hxload: no local port left to connect from (net.ipv4.ip_local_port_range %s, per "
		"source address and target); --source spreads the connections over more addresses\n", range);
}

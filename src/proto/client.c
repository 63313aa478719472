/* The client as a connection knows it: the socket's peer or the PROXY header's source, the proxy that sent it, a client certificate; one text for X-Client. */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "gen.h"
#include "listen.h"

/* <s> as visible ASCII: a proxy's TLV or a certificate's subject may hold
 * any byte, a header value may not (and the quotes stay balanced) */
static size_t clean(char *o, size_t room, const char *s, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k + 1 < room; i++)
		o[k++] = (s[i] > ' ' && s[i] < 0x7f && s[i] != '"' && s[i] != '\\') || s[i] == ' ' ? s[i] : '?';
	o[k] = 0;
	return k;
}

static void put(struct cinfo *ci, const char *fmt, const char *a, size_t alen)
{
	char v[300];
	size_t room = sizeof(ci->text) - ci->len;
	int n;

	clean(v, sizeof(v), a, alen);
	n = snprintf(ci->text + ci->len, room, fmt, v);
	ci->len = (uint16_t)(ci->len + (n < 0 ? 0 : (size_t)n < room ? (size_t)n : room - 1));
}

void cinfo_cert(struct cinfo *ci, const char *cert)
{
	if (cert && *cert)
		put(ci, ", cert=\"%s\"", cert, strlen(cert));
	else if (cert)
		put(ci, ", cert=%s", "none", 4);
}

void cpeer_addr(int fd, const struct sockaddr_storage *peer, struct sockaddr_storage *out)
{
	socklen_t sl = sizeof(*out);

	memset(out, 0, sizeof(*out));
	if (fd >= 0 && getpeername(fd, (struct sockaddr *)out, &sl) < 0)
		out->ss_family = AF_UNSPEC;
	else if (fd < 0 && peer)
		*out = *peer;
}

struct cinfo *cinfo_new(int fd, const struct sockaddr_storage *peer, const struct pp_info *pi, const char *cert)
{
	struct cinfo *ci = malloc(sizeof(*ci));
	struct sockaddr_storage sock;
	char a[INET6_ADDRSTRLEN + 16], via[INET6_ADDRSTRLEN + 16];

	if (!ci)
		return NULL;
	cpeer_addr(fd, peer, &sock);
	ci->src = pi && !pi->local ? pi->src : sock;
	ci->len = 0;
	ci->echo_only = 0;
	sa_name(&ci->src, a, sizeof(a));
	put(ci, "addr=%s", a, strlen(a));
	if (pi) {
		sa_name(&sock, via, sizeof(via));
		put(ci, pi->version == 1 ? ", proxy=v1%s" : ", proxy=v2%s", pi->local ? "-local" : "", pi->local ? 6 : 0);
		put(ci, ", via=%s", via, strlen(via));
		if (pi->alpn_len)
			put(ci, ", alpn=%s", pi->alpn, pi->alpn_len);
		if (pi->auth_len)
			put(ci, ", authority=%s", pi->authority, pi->auth_len);
	}
	cinfo_cert(ci, cert);
	return ci;
}

struct ist cinfo_make(struct cpeer p)
{
	*p.ci = cinfo_new(p.fd, p.addr, NULL, NULL);
	if (*p.ci)
		(*p.ci)->echo_only = 1;
	return cinfo_text(*p.ci);
}

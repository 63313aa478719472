/* What a connection knows of its client beyond the socket (the PROXY header, a client certificate): the X-Client header and the access log's client. */
#ifndef HX_CLIENT_H
#define HX_CLIENT_H

#include <stdint.h>
#include <sys/socket.h>

#include "common.h"
#include "gen.h"
#include "pp.h"

/* one per connection that has something to say, NULL otherwise */
struct cinfo {
	struct sockaddr_storage src;   /* the client: PROXY's source, or the socket's peer */
	uint16_t len;                  /* of text */
	uint8_t echo_only;             /* made for an E=1 request: said to those alone */
	char text[700];                /* X-Client's value */
};

/* For a connection on socket <fd> (or, fd -1, from <peer>), with what its
 * PROXY header said (<pi>, or NULL) and the subject of its verified client
 * certificate (<cert>: NULL when none was asked for, "" when none came).
 * NULL when out of memory (the caller answers without X-Client, never
 * with a false one: it closes the connection). */
struct cinfo *cinfo_new(int fd, const struct sockaddr_storage *peer, const struct pp_info *pi, const char *cert);

/* Adds the certificate part to <ci> (made before TLS, from the PROXY
 * header). */
void cinfo_cert(struct cinfo *ci, const char *cert);

/* who a request came from, as its connection knows it */
struct cpeer {
	int fd;                               /* its TCP socket, -1: see <addr> */
	const struct sockaddr_storage *addr;  /* a QUIC peer's address */
	struct cinfo **ci;                    /* the connection's, made later maybe */
};

/* the address a request came from: <fd>'s peer, or (fd -1) <peer>; family
 * AF_UNSPEC when neither says */
void cpeer_addr(int fd, const struct sockaddr_storage *peer, struct sockaddr_storage *out);

/* X-Client's value, empty for NULL */
static inline struct ist cinfo_text(const struct cinfo *ci)
{
	return ci ? (struct ist){ ci->text, ci->len } : (struct ist){ "", 0 };
}

/* the cinfo of a connection that has none, made now from its socket (E=1
 * asked for it): its text */
struct ist cinfo_make(struct cpeer p);

/* X-Client for the exchange <x> planned on a connection: its cinfo's text,
 * made now when E=1 asks and the connection has none; empty when neither,
 * and for a request without E=1 after one made it (WHY: X-Client on every
 * answer of a keep-alive connection once E=1 had passed on it, a state
 * leak). WHY inline: asked for every request, mostly of a connection with none */
static inline struct ist cinfo_for(struct cpeer p, const struct exch *x)
{
	if (p.ci && *p.ci)
		return !(*p.ci)->echo_only || ex_echo(x) ? cinfo_text(*p.ci) : cinfo_text(NULL);
	return p.ci && ex_echo(x) ? cinfo_make(p) : cinfo_text(NULL);
}

#endif

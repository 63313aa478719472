/* The base of every TCP connection of the server, whatever its protocol: the network part (nconn.h: event, transport, timer, flags, why it ends, its stats slot, last activity), the counted base (tc_link.h: the worker, the list it is on), the end flags; first in h1c, h2c, wsc and the session's pre. */
#ifndef HX_TCONN_H
#define HX_TCONN_H

#include <sys/socket.h>

#include "nconn.h"
#include "stats.h"
#include "tc_link.h"

/* the server's flags, above the network base's (NC_*, nconn.h): the
 * protocols' own bits stay below TC_LOW */
#define TC_DEAD     0x08000000 /* being closed: no more work */
#define TC_MOVED    0x10000000 /* it went on as another protocol: no close counted */
#define TC_LOW      0x01000000

#define TC_NO_SLOT  0xff /* a connection before its protocol: counted by its session */

struct tconn {
	struct nconn nc;     /* first: ev, x, tm, last_act, flags, why (enum st_close), proto (its stats slot, enum st_proto) */
	TC_LINK;             /* w, node: the counted base (tc_link.h), on its protocol's live, zombie or free list */
};

/* WHY TLS's close_notify on every end of a connection but two: without it
 * a client (OpenSSL's, a proxy's) reads the end as a truncation, an
 * "unexpected eof", and will not resume the session (RFC 8446 6.1). Not
 * after x= or X= (SC_FAULT): a reset or a cut body is what the request
 * asked the client to see; not after an error of ours (SC_ERROR). A peer
 * that stopped reading (a send timeout) has a full socket: the alert does
 * not go, and is not waited for (xprt_close_notify) */
static inline void tc_close_notify(struct tconn *t)
{
	if (t->nc.x.ssl && t->nc.why != SC_FAULT && t->nc.why != SC_ERROR)
		xprt_close_notify(&t->nc.x);
}

/* the write side ends (a linger after it): the close_notify, then the FIN */
static inline void tc_shut(struct tconn *t)
{
	tc_close_notify(t);
	shutdown(t->nc.ev.fd, SHUT_WR);
}

/* the transport ends, before the socket is closed: the close_notify (if
 * tc_shut did not send it), then the TLS state freed */
static inline void tc_release(struct tconn *t)
{
	tc_close_notify(t);
	xprt_release(&t->nc.x);
}

#endif

/* The network part of a connection, the server's (tconn) and hxload's (lc_conn) alike: its event, transport, timer, last activity, readiness flags, why it ends and its protocol; and what epoll said of its socket, as those flags. */
#ifndef HX_NCONN_H
#define HX_NCONN_H

#include <stdint.h>
#include <sys/epoll.h>

#include "loop.h"
#include "timer-t.h"
#include "xprt.h"

/* the readiness flags; an owner's own bits are the others (the server's:
 * tconn.h's TC_DEAD and TC_MOVED above, its protocols' below TC_LOW) */
#define NC_RD_READY 0x01000000 /* the socket may have bytes to read */
#define NC_WR_READY 0x02000000 /* the socket may take bytes */
#define NC_RDHUP    0x04000000 /* the peer shut its side: reads go on to EOF */

/* WHY why and proto here, in the owner's enums: after flags they fill the
 * padding that, in the owner's struct, would cost each connection 8 bytes */
struct nconn {
	struct ev ev;
	struct xprt x;       /* x.fd == ev.fd */
	struct timer tm;
	uint64_t last_act;   /* ms: the last progress either way (the server's; hxload keeps none) */
	uint32_t flags;      /* NC_*, and its owner's bits */
	uint8_t why;         /* why it ends: the server's enum st_close (SC_UNSET until known), hxload's enum lc_err */
	uint8_t proto;       /* its protocol: the server's stats slot (enum st_proto, TC_NO_SLOT: none), hxload's enum lc_proto */
};

/* what epoll said of the socket, as readiness flags: the connection's io
 * callback calls it, then runs its state machine */
static inline void nc_events(struct nconn *n, uint32_t events)
{
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		n->flags |= NC_RD_READY;
	if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		n->flags |= NC_RDHUP;
	if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
		n->flags |= NC_WR_READY;
}

#endif

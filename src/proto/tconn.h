/* The base of every TCP connection of the server, whatever its protocol: the event, the transport, the timer, the worker, the list it is on, the readiness and end flags, why it ends, its stats slot, its last activity; first in h1c, h2c, wsc and the session's pre. */
#ifndef HX_TCONN_H
#define HX_TCONN_H

#include <stdint.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "list.h"
#include "loop.h"
#include "stats.h"
#include "timer-t.h"
#include "xprt.h"

struct worker;

/* the base's flags: the protocols' own bits stay below TC_LOW */
#define TC_RD_READY 0x01000000 /* the socket may have bytes to read */
#define TC_WR_READY 0x02000000 /* the socket may take bytes */
#define TC_RDHUP    0x04000000 /* the peer shut its side: reads go on to EOF */
#define TC_DEAD     0x08000000 /* being closed: no more work */
#define TC_MOVED    0x10000000 /* it went on as another protocol: no close counted */
#define TC_LOW      0x01000000

#define TC_NO_SLOT  0xff /* a connection before its protocol: counted by its session */

struct tconn {
	struct ev ev;
	struct xprt x;       /* x.fd == ev.fd */
	struct timer tm;
	struct worker *w;
	struct list node;    /* on its protocol's live, zombie or free list */
	uint32_t flags;      /* TC_*, and the protocol's bits below TC_LOW */
	uint8_t why;         /* why it ends (enum st_close), SC_UNSET until known */
	uint8_t stp;         /* its protocol's stats slot (enum st_proto), TC_NO_SLOT: none */
	uint64_t last_act;   /* ms: the last progress either way */
};

/* what epoll said of the socket, as the base's flags: the protocol's io
 * callback calls it, then runs its state machine */
static inline void tc_events(struct tconn *t, uint32_t events)
{
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		t->flags |= TC_RD_READY;
	if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		t->flags |= TC_RDHUP;
	if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
		t->flags |= TC_WR_READY;
}

/* WHY TLS's close_notify on every end of a connection but two: without it
 * a client (OpenSSL's, a proxy's) reads the end as a truncation, an
 * "unexpected eof", and will not resume the session (RFC 8446 6.1). Not
 * after x= or X= (SC_FAULT): a reset or a cut body is what the request
 * asked the client to see; not after an error of ours (SC_ERROR). A peer
 * that stopped reading (a send timeout) has a full socket: the alert does
 * not go, and is not waited for (xprt_close_notify) */
static inline void tc_close_notify(struct tconn *t)
{
	if (t->x.ssl && t->why != SC_FAULT && t->why != SC_ERROR)
		xprt_close_notify(&t->x);
}

/* the write side ends (a linger after it): the close_notify, then the FIN */
static inline void tc_shut(struct tconn *t)
{
	tc_close_notify(t);
	shutdown(t->ev.fd, SHUT_WR);
}

/* the transport ends, before the socket is closed: the close_notify (if
 * tc_shut did not send it), then the TLS state freed */
static inline void tc_release(struct tconn *t)
{
	tc_close_notify(t);
	xprt_release(&t->x);
}

#endif

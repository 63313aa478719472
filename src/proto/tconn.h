/* The base of every TCP connection of the server, whatever its protocol: the event, the transport, the timer, the worker, the list it is on, the readiness and end flags, why it ends, its last activity; first in h1c, h2c and wsc. */
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
#define TC_LOW      0x01000000

struct tconn {
	struct ev ev;
	struct xprt x;       /* x.fd == ev.fd */
	struct timer tm;
	struct worker *w;
	struct list node;    /* on its protocol's live, zombie or free list */
	uint32_t flags;      /* TC_*, and the protocol's bits below TC_LOW */
	uint8_t why;         /* why it ends (enum st_close), SC_UNSET until known */
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

#define TC_KEEP 64 /* closed connections a protocol keeps per thread; beyond, free() */

/* a protocol's closed connections, kept for the next ones, at most TC_KEEP */
struct tc_free {
	struct list l;
	uint32_t n;
};

static inline void tc_free_init(struct tc_free *f)
{
	list_init(&f->l);
	f->n = 0;
}

/* a connection from <f>, or NULL when it is empty: <off> is where its base
 * lies in the protocol's struct */
static inline void *tc_pop(struct tc_free *f, size_t off)
{
	struct list *n = list_pop(&f->l);

	if (!n)
		return NULL;
	f->n--;
	return (char *)list_elem(n, struct tconn, node) - off;
}

/* <t>, closed, kept for the next connection: 1, or 0 when <f> is full
 * and the caller frees it (what it holds given back first) */
static inline int tc_keep(struct tc_free *f, struct tconn *t)
{
	if (f->n >= TC_KEEP)
		return 0;
	list_add(&f->l, &t->node);
	f->n++;
	return 1;
}

#endif

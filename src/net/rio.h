/* The io_uring transport of one clear-text socket: a recv and a send in flight at most, taken as xprt_recv and an output-queue flush would give them. */
#ifndef HX_RIO_H
#define HX_RIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "uring.h"

/* st */
#define RIO_RX     0x01 /* a recv is in flight */
#define RIO_TX     0x02 /* a send is in flight */
#define RIO_RES    0x04 /* a recv result waits to be taken */
#define RIO_WANT   0x08 /* the owner waits for bytes: rio_arm() sends the recv */
#define RIO_CLOSED 0x10 /* the owner closed it: only the last completion is owed */

struct rio {
	struct uop rx, tx;
	struct msghdr msg;   /* of the send in flight */
	uint64_t sent;       /* what the last send completed with */
	struct uring *u;
	char *at;            /* where the recv in flight writes, NULL: pooled */
	uint32_t len;        /* how much it asked for */
	int32_t res;         /* its result, not yet taken */
	int fd;
	uint8_t st;
	/* The owner's: a completion came: RIO_RX, RIO_TX (<sent> bytes went),
	 * -1 (the send failed); after rio_close() only the last one is told,
	 * with 0: the owner's memory may go then */
	void (*wake)(struct rio *r, int what);
	/* where the bytes of a pooled recv go: <n> bytes of room in the owner's
	 * buffer (it may take one from its pool now), or NULL to fail */
	char *(*room)(struct rio *r, size_t n);
};

void rio_init(struct rio *r, struct uring *u, int fd,
	      void (*wake)(struct rio *, int), char *(*room)(struct rio *, size_t));

/* Reads into <buf>: the result of the recv that completed (moved there if
 * it wrote elsewhere), or XPRT_AGAIN, the owner then calls rio_arm() once
 * its turn is over. -1 on a failed recv. <*drained>: no more bytes until the next recv. */
long rio_recv(struct rio *r, char *buf, size_t len, int *drained);
/* Sends the recv the owner waits for, into <buf>, or into a buffer the ring
 * picks from its pool when bytes come if <buf> is NULL (an idle connection
 * holds none). Nothing when none is wanted or one is in flight. */
void rio_arm(struct rio *r, char *buf, size_t len);

/* Sends <iov> (<n> of them, which stay as they are until it completes),
 * with MSG_MORE when <more>; its completion tells the owner how much went
 * (wake RIO_TX, <sent>), and the owner advances its queue by that. One send
 * at a time. */
void rio_send(struct rio *r, const struct iovec *iov, size_t n, int more);

/* The owner is done with the socket: operations in flight are cancelled.
 * Returns 1 while some are (the owner keeps its buffers until wake(r, 0)),
 * 0 when none were. */
int rio_close(struct rio *r);

static inline int rio_wants(const struct rio *r)
{
	return (r->st & RIO_WANT) && !(r->st & (RIO_RX | RIO_RES | RIO_CLOSED));
}

#endif

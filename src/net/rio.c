/* The io_uring transport of one clear-text socket: a recv and a send in flight at most, taken as xprt_recv and an output-queue flush would give them. */
#include <errno.h>
#include <string.h>

#include "bug.h"
#include "common.h"
#include "rio.h"

/* operation <bit> completed: 1 when the owner closed the transport meanwhile
 * (the completion then only counts towards its release) */
static int op_ended(struct rio *r, uint8_t bit)
{
	r->st &= (uint8_t)~bit;
	if (!(r->st & RIO_CLOSED))
		return 0;
	if (!(r->st & (RIO_RX | RIO_TX)))
		r->wake(r, 0);
	return 1;
}

static void rx_done(struct loop *l, struct uop *op, int res)
{
	struct rio *r = container_of(op, struct rio, rx);

	(void)l;
	if (op_ended(r, RIO_RX))
		return;
	if (res == -ENOBUFS) { /* the pool ran dry this turn: ask again */
		r->st |= RIO_WANT;
		rio_arm(r, NULL, URING_BUF);
		return;
	}
	if (res > 0 && !r->at) { /* bytes in a pooled buffer: into the owner's */
		char *dst = r->room(r, (size_t)res);

		if (dst)
			memcpy(dst, uring_buf(r->u), (size_t)res);
		else
			res = -ENOMEM;
		r->at = dst;
	}
	r->res = res;
	r->st |= RIO_RES;
	r->wake(r, RIO_RX);
}

static void tx_done(struct loop *l, struct uop *op, int res)
{
	struct rio *r = container_of(op, struct rio, tx);

	(void)l;
	if (op_ended(r, RIO_TX))
		return;
	if (res < 0) {
		r->wake(r, -1);
		return;
	}
	r->sent = (uint64_t)res;
	r->wake(r, RIO_TX);
}

void rio_init(struct rio *r, struct uring *u, int fd,
	      void (*wake)(struct rio *, int), char *(*room)(struct rio *, size_t))
{
	r->rx.cb = rx_done;
	r->tx.cb = tx_done;
	r->u = u;
	r->fd = fd;
	r->st = 0;
	r->wake = wake;
	r->room = room;
}

long rio_recv(struct rio *r, char *buf, size_t len, int *drained)
{
	long n;

	if (!(r->st & RIO_RES)) {
		*drained = 1;
		if (len)
			r->st |= RIO_WANT; /* rio_arm() sends the recv once the turn is over */
		return HX_AGAIN;
	}
	r->st &= (uint8_t)~RIO_RES;
	n = r->res;
	BUG_ON(n > 0 && (size_t)n > len);
	/* WHY: the owner may have compacted its buffer since the recv went out */
	if (n > 0 && r->at != buf)
		memmove(buf, r->at, (size_t)n);
	/* WHY: as on epoll, a short read means the socket is empty: the owner
	 * may close without lingering; the next recv goes out after the turn,
	 * as an edge would come */
	*drained = n <= 0 || (uint32_t)n < r->len;
	if (n > 0 && *drained)
		r->st |= RIO_WANT;
	return n > 0 ? n : n == 0 ? 0 : -1;
}

void rio_arm(struct rio *r, char *buf, size_t len)
{
	if (!rio_wants(r))
		return;
	r->st = (uint8_t)((r->st & ~RIO_WANT) | RIO_RX);
	r->at = buf;
	if (!buf) {
		r->len = URING_BUF;
		uring_recv_pooled(r->u, &r->rx, r->fd);
		return;
	}
	r->len = (uint32_t)len;
	uring_recv(r->u, &r->rx, r->fd, buf, len);
}

void rio_send(struct rio *r, const struct iovec *iov, size_t n, int more)
{
	BUG_ON(r->st & RIO_TX);
	r->msg = (struct msghdr){ .msg_iov = (struct iovec *)iov, .msg_iovlen = n };
	if (n == 1)
		uring_send(r->u, &r->tx, r->fd, iov[0].iov_base, iov[0].iov_len, more ? MSG_MORE : 0);
	else
		uring_sendmsg(r->u, &r->tx, r->fd, &r->msg, more ? MSG_MORE : 0);
	r->st |= RIO_TX;
}

int rio_close(struct rio *r)
{
	r->st &= (uint8_t)~(RIO_WANT | RIO_RES);
	if (!(r->st & (RIO_RX | RIO_TX))) {
		r->st = 0;
		return 0;
	}
	r->st |= RIO_CLOSED;
	uring_cancel_fd(r->u, r->fd);
	return 1;
}

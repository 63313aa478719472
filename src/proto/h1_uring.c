/* HTTP/1.x connections on the worker's io_uring (--io-uring): recv and send as ring operations, their completions, closing with operations in flight. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "common.h"
#include "h1_conn.h"
#include "uring.h"
#include "xprt.h"

/* the last operation of a closed connection completed: now it goes */
static void zombie_done(struct h1c *c)
{
	if (c->u_st & (U_RX | U_TX))
		return;
	list_del(&c->node);
	h1_release(c);
}

/* operation <bit> completed: 1 when the connection was closed meanwhile (the
 * completion then only counts towards freeing it) */
static int op_ended(struct h1c *c, uint8_t bit)
{
	c->u_st &= (uint8_t)~bit;
	if (!(c->u_st & U_ZOMBIE))
		return 0;
	zombie_done(c);
	return 1;
}

static void rx_done(struct loop *l, struct uop *op, int res)
{
	struct worker *w = worker_of(l);
	struct h1c *c = container_of(op, struct h1c, u_rx);

	if (op_ended(c, U_RX))
		return;
	if (res == -ENOBUFS) { /* the pool ran dry this turn: ask again */
		c->u_st |= U_WANT;
		h1u_arm(c);
		return;
	}
	if (res > 0 && uring_buf(w->loop.ring)) { /* bytes in a pooled buffer: into ours */
		if (h1_buffers_take(c) < 0 || (size_t)res > c->in_size - c->wr) {
			c->flags |= H1C_DEAD;
			h1_run(c);
			return;
		}
		c->u_off = c->wr;
		memcpy(c->in + c->wr, uring_buf(w->loop.ring), (size_t)res);
	}
	c->u_res = res;
	c->u_st |= U_RES;
	c->flags |= H1C_RD_READY;
	h1_run(c);
}

static void tx_done(struct loop *l, struct uop *op, int res)
{
	struct worker *w = worker_of(l);
	struct h1c *c = container_of(op, struct h1c, u_tx);

	if (op_ended(c, U_TX))
		return;
	if (res < 0) {
		c->flags |= H1C_DEAD;
	} else {
		oq_sent(&c->oq, (size_t)res);
		c->last_act = w->loop.now_ms;
		ctr_add(&w->st.bytes_out, (uint64_t)res);
		c->flags |= H1C_WR_READY;
	}
	h1_run(c);
}

void h1u_start(struct h1c *c)
{
	c->u_st = U_ON;
	c->u_fd = c->ev.fd;
	c->u_rx.cb = rx_done;
	c->u_tx.cb = tx_done;
}

long h1u_recv(struct h1c *c, int *drained)
{
	size_t room = c->in_size - c->wr;
	long n;

	if (c->u_st & U_RES) {
		c->u_st &= ~U_RES;
		n = c->u_res;
		/* WHY: the buffer may have been compacted since the recv went out */
		if (n > 0 && c->u_off != c->wr)
			memmove(c->in + c->wr, c->in + c->u_off, (size_t)n);
		/* WHY: as on epoll, a short read means the socket is empty: the
		 * state machine may close without lingering; the next recv goes
		 * out after the turn by itself, as an edge would come */
		*drained = n <= 0 || (uint32_t)n < c->u_len;
		if (n > 0 && *drained)
			c->u_st |= U_WANT;
		return n > 0 ? n : n == 0 ? 0 : XPRT_ERROR;
	}
	*drained = 1;
	if (room)
		c->u_st |= U_WANT; /* h1u_arm() sends the recv once the turn is over */
	return XPRT_AGAIN;
}

void h1u_arm(struct h1c *c)
{
	if (!(c->u_st & U_WANT) || (c->u_st & (U_RX | U_RES | U_ZOMBIE)))
		return;
	/* WHY: a connection between requests whose response is still in flight
	 * goes idle when it completes: wait for that, so that its recv does not
	 * pin the input buffer for as long as the client stays silent */
	if ((c->u_st & U_TX) && c->st == H1S_HEAD && c->rd == c->wr)
		return;
	c->u_st = (uint8_t)((c->u_st & ~U_WANT) | U_RX);
	/* WHY: an idle connection gave its input buffer back; the kernel picks
	 * one from the ring's pool when bytes come, so 1000 idle connections
	 * hold none */
	if (!c->in) {
		c->u_len = URING_BUF;
		uring_recv_pooled(c->w->loop.ring, &c->u_rx, c->u_fd);
		return;
	}
	c->u_off = c->wr;
	c->u_len = c->in_size - c->wr;
	uring_recv(c->w->loop.ring, &c->u_rx, c->u_fd, c->in + c->wr, c->u_len);
}

int h1u_flush(struct h1c *c, int more)
{
	struct oq *q = &c->oq;

	if (c->u_st & U_TX)
		return 0;
	if (!oq_pending(q)) {
		oq_reset(q);
		return 1;
	}
	c->u_msg = (struct msghdr){ .msg_iov = q->iov + q->i, .msg_iovlen = (size_t)MIN(q->n - q->i, IOV_MAX) };
	if (c->u_msg.msg_iovlen == 1)
		uring_send(c->w->loop.ring, &c->u_tx, c->u_fd, q->iov[q->i].iov_base, q->iov[q->i].iov_len,
			   more ? MSG_MORE : 0);
	else
		uring_sendmsg(c->w->loop.ring, &c->u_tx, c->u_fd, &c->u_msg, more ? MSG_MORE : 0);
	c->u_st |= U_TX;
	c->flags &= ~H1C_WR_READY;
	/* WHY: --send-timeout counts from here; a last_act of the last recv
	 * would make a response staged after a long wait look stalled */
	c->last_act = c->w->loop.now_ms;
	return 0;
}

void h1u_bury(struct h1c *c)
{
	struct worker *w = c->w;

	c->u_st |= U_ZOMBIE;
	list_add(&h1w(w)->zombies, &c->node);
	uring_cancel_fd(w->loop.ring, c->u_fd);
}

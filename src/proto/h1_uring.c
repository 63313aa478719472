/* HTTP/1.x connections on the worker's io_uring (--io-uring): the owner's side of the ring transport (net/rio): completions, pooled buffers, closing with operations in flight. */
#include "common.h"
#include "h1_conn.h"
#include "rio.h"

/* a completion of the connection's transport */
static void h1u_wake(struct rio *r, int what)
{
	struct h1c *c = container_of(r, struct h1c, rio);

	if (!what) { /* the last operation of a closed connection: now it goes */
		list_del(&c->node);
		h1_release(c);
		return;
	}
	if (what < 0) {
		c->flags |= H1C_DEAD;
	} else if (what == RIO_TX) {
		oq_sent(&c->oq, (size_t)r->sent);
		c->last_act = c->w->loop.now_ms;
		ctr_add(c->w->st.bytes_out, r->sent);
		c->flags |= H1C_WR_READY;
	} else {
		c->flags |= H1C_RD_READY;
	}
	h1_run(c);
}

/* bytes of a pooled recv go to the input buffer, taken back from the pool */
static char *h1u_room(struct rio *r, size_t n)
{
	struct h1c *c = container_of(r, struct h1c, rio);

	if (h1_buffers_take(c) < 0 || n > c->in_size - c->wr)
		return NULL;
	return c->in + c->wr;
}

void h1u_start(struct h1c *c)
{
	rio_init(&c->rio, c->w->loop.ring, c->ev.fd, h1u_wake, h1u_room);
	c->x.rio = &c->rio;
}

void h1u_arm(struct h1c *c)
{
	struct rio *r = c->x.rio;

	if (!rio_wants(r))
		return;
	/* WHY: a connection between requests whose response is still in flight
	 * goes idle when it completes: wait for that, so that its recv does not
	 * pin the input buffer for as long as the client stays silent */
	if ((r->st & RIO_TX) && c->st == H1S_HEAD && c->rd == c->wr)
		return;
	/* WHY: an idle connection gave its input buffer back; the ring picks
	 * one from its pool when bytes come, so 1000 idle connections hold none */
	if (!c->in)
		rio_arm(r, NULL, URING_BUF);
	else
		rio_arm(r, c->in + c->wr, c->in_size - c->wr);
}

void h1u_bury(struct h1c *c)
{
	list_add(&h1w(c->w)->zombies, &c->node);
}

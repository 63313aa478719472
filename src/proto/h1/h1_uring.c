/* HTTP/1.x connections on the worker's io_uring (--io-uring): the owner's side of the ring transport (net/rio): its start and the recv it arms (completions and zombies: h1_conn.c, tc_set.c). */
#include "common.h"
#include "h1_conn.h"
#include "rio.h"

void h1u_start(struct h1c *c, void (*wake)(struct rio *, int), char *(*room)(struct rio *, size_t))
{
	rio_init(&c->rio, c->t.w->loop.ring, c->t.nc.ev.fd, wake, room);
	c->t.nc.x.rio = &c->rio;
}

void h1u_arm(struct h1c *c)
{
	struct rio *r = c->t.nc.x.rio;

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

/* One protocol's connections in one worker (tc_set.h): the close accounting, drain and close-all of any; a TCP one's start and end, the ring's zombies, the bounded recycling, free. */
#include <stdlib.h>
#include <unistd.h>

#include "bug.h"
#include "rio.h"
#include "tc_set.h"
#include "timer.h"

void tc_set_init(struct tc_set *s, const struct tc_kind *k, struct loop *l, struct wstats *st)
{
	*s = (struct tc_set){ .k = k, .loop = l, .st = st };
	list_init(&s->live);
	list_init(&s->zombies);
	list_init(&s->free.l);
}

/* WHY a bound: a crowd that left would otherwise stay in memory for good */
void tc_put(struct tc_set *s, struct tconn *t)
{
	if (s->k->release)
		s->k->release(t);
	if (s->free.n >= TC_KEEP) {
		free(tc_conn(s, t));
		return;
	}
	list_add(&s->free.l, &t->node);
	s->free.n++;
}

/* its socket closed and forgotten by the loop, then recycled */
static void tc_close(struct tc_set *s, struct tconn *t)
{
	if (t->nc.ev.fd >= 0)
		close(t->nc.ev.fd);
	t->nc.ev.fd = t->nc.x.fd = -1;
	loop_drop(s->loop, &t->nc.ev);
	t->nc.x.rio = NULL;
	tc_put(s, t);
}

void tc_count_close(struct tc_set *s, struct tc_link *l, unsigned slot, unsigned why, int moved, uint32_t nreq)
{
	list_del(&l->node);
	s->n--;
	if (moved) {
		if (slot != TC_NO_SLOT)
			st_conn_moved(s->st, (enum st_proto)slot);
		return;
	}
	if (s->k->gone)
		s->k->gone(l->w);
	if (slot != TC_NO_SLOT)
		st_conn_close(s->st, (enum st_proto)slot, nreq, why);
}

void tc_end(struct tc_set *s, struct tconn *t, uint32_t nreq)
{
	loop_cancel(s->loop, &t->nc.tm);
	tc_release(t);
	tc_count_close(s, &t->l, t->nc.proto, t->nc.why, !!(t->nc.flags & TC_MOVED), nreq);
	/* WHY: the ring may still read into its buffers or send from them */
	if (t->nc.x.rio && rio_close(t->nc.x.rio))
		list_add(&s->zombies, &t->node);
	else
		tc_close(s, t);
}

void tc_zombie_done(struct tc_set *s, struct tconn *t)
{
	list_del(&t->node);
	tc_close(s, t);
}

void tc_drain(struct tc_set *s, void (*fn)(struct tc_link *l))
{
	struct list *n, *tmp;

	list_each_safe(n, tmp, &s->live)
		fn(list_elem(n, struct tc_link, node));
}

void tc_close_all(struct tc_set *s, void (*fn)(struct tc_link *l))
{
	struct list *n;

	while ((n = s->live.next) != &s->live) {
		fn(list_elem(n, struct tc_link, node));
		BUG_ON(s->live.next == n); /* it must end it */
	}
}

void tc_set_free(struct tc_set *s)
{
	struct list *n;

	while ((n = list_pop(&s->free.l)))
		free(tc_conn(s, list_elem(n, struct tconn, node)));
	s->free.n = 0;
}

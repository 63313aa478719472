/* Unit tests of a protocol's connection set (tc_set.c): its start and end accounting, the recycling bound, drain, close-all, zombies on the ring, free at thread end or mid-life (a trim); the counted part alone, on a connection with no TCP part (QUIC's). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "loop.h"
#include "rio.h"
#include "session-t.h"
#include "tap.h"
#include "tc_set.h"

/* a protocol's connection: something before its base, as h1c has none
 * but a real offset is what tc_conn() must undo */
struct conn {
	int id;
	struct tconn t;
	int released;
	struct rio rio;
};

static struct worker w;
static struct tc_set set;
static int gone, gone_elsewhere;

static void count_gone(struct worker *wk)
{
	gone++;
	gone_elsewhere += wk != &w;
}

static int released;

static void release(struct tconn *t)
{
	struct conn *c = container_of(t, struct conn, t);

	c->released++;
	released++;
}

/* a live connection on <fd>, ending with <why> */
static struct conn *open_one(int id, int fd, unsigned why)
{
	struct conn *c = tc_get(&set);

	c->id = id;
	c->released = 0;
	c->t.w = &w;
	c->t.nc.ev = (struct ev){ fd, NULL };
	c->t.nc.x = (struct xprt){ .fd = fd };
	c->t.nc.flags = 0;
	c->t.nc.proto = SP_H1;
	c->t.nc.why = (uint8_t)why;
	tc_add(&set, &c->t);
	return c;
}

static uint64_t why_count(unsigned why)
{
	return ctr_get(&w.st.conn_why[SP_H1][why]);
}

static const struct tc_kind kind = { sizeof(struct conn), offsetof(struct conn, t), release, count_gone };

static void set_up(void)
{
	tc_set_init(&set, &kind, &w.loop, &w.st);
	gone = released = 0;
}

static void accounting(void)
{
	int p[2];
	uint64_t opened = ctr_get(&w.st.conn_open[SP_H1]), closed = ctr_get(&w.st.conn_closed[SP_H1]);

	set_up();
	if (pipe(p) < 0)
		abort();
	struct conn *c = open_one(1, p[0], SC_IDLE);
	ok(c && c->id == 1 && set.n == 1, "a new connection is live, counted");
	is_int(ctr_get(&w.st.conn_open[SP_H1]) - opened, 1, "and opened in its stats slot");
	tc_end(&set, &c->t, 7);
	is_int(set.n, 0, "ended: off live");
	ok(list_empty(&set.live), "... the live list empty");
	ok(gone == 1 && !gone_elsewhere, "the session told once, of the connection's worker");
	is_int(ctr_get(&w.st.conn_closed[SP_H1]) - closed, 1, "its close counted in its slot");
	is_int(why_count(SC_IDLE), 1, "... by its reason");
	is_int(ctr_get(&w.st.rpc[SP_H1].sum), 7, "... with its requests");
	ok(fcntl(p[0], F_GETFD) < 0 && errno == EBADF, "its socket closed");
	is_int(c->released, 1, "what it held released");
	is_int(set.free.n, 1, "kept for the next");
	ok(tc_get(&set) == c, "and the next connection takes it back, whole");
	is_int(set.free.n, 0, "the free count follows");
	tc_put(&set, &c->t);
	is_int(c->released, 2, "one that never went live is released");
	is_int(set.free.n, 1, "and kept too");
	ok(fcntl(p[1], F_GETFD) == 0, "the socket tc_put was not given is not closed");
	close(p[1]);

	/* gone to another protocol: its open taken back, no close, no gone */
	opened = ctr_get(&w.st.conn_open[SP_H1]);
	closed = ctr_get(&w.st.conn_closed[SP_H1]);
	c = open_one(2, -1, SC_UNSET);
	c->t.nc.flags |= TC_MOVED;
	tc_end(&set, &c->t, 1);
	is_int(ctr_get(&w.st.conn_open[SP_H1]) - opened, 0, "a connection that moved on is not counted open");
	ok(ctr_get(&w.st.conn_closed[SP_H1]) == closed && gone == 1, "... nor closed, nor gone");

	/* no slot: the session's connection before its protocol */
	c = open_one(3, -1, SC_UNSET);
	c->t.nc.proto = TC_NO_SLOT;
	tc_end(&set, &c->t, 0);
	ok(ctr_get(&w.st.conn_closed[SP_H1]) == closed && gone == 2, "a connection without a slot: gone, not counted closed");
	tc_set_free(&set);
	is_int(set.free.n, 0, "freed at the thread's end");
}

/* the recycling bound: beyond TC_KEEP the closed ones are freed */
static void bound(void)
{
	enum { N = TC_KEEP + 5 };
	struct conn *c[N];

	set_up();
	for (int i = 0; i < N; i++)
		c[i] = open_one(i, -1, SC_PEER);
	is_int(set.n, N, "TC_KEEP + 5 live");
	for (int i = 0; i < N; i++)
		tc_end(&set, &c[i]->t, 1);
	is_int(set.n, 0, "all ended");
	is_int(released, N, "each released");
	is_int(set.free.n, TC_KEEP, "TC_KEEP kept, the 5 beyond freed");
	int back = 0;
	while (set.free.n) {
		struct conn *g = tc_get(&set);

		back += g->id < TC_KEEP && g == c[g->id];
		free(g);
	}
	is_int(back, TC_KEEP, "the kept ones are the first TC_KEEP ended, each whole");
	tc_set_free(&set);
}

/* a crowd left (the worker's trim): the kept ones freed while others
 * live, the live untouched, and the recycling goes on after */
static void trim_midlife(void)
{
	struct conn *c[3];

	set_up();
	for (int i = 0; i < 3; i++)
		c[i] = open_one(i, -1, SC_PEER);
	tc_end(&set, &c[0]->t, 1);
	tc_end(&set, &c[1]->t, 1);
	is_int(set.free.n, 2, "two ended, kept");
	tc_set_free(&set);
	ok(set.free.n == 0 && set.free.l.next == &set.free.l, "the kept ones freed, the list empty");
	ok(set.n == 1 && set.live.next == &c[2]->t.node, "the live one untouched");
	tc_end(&set, &c[2]->t, 1);
	is_int(set.free.n, 1, "the next ended one kept again");
	ok(tc_get(&set) == c[2] && set.free.n == 0, "and given to the next connection");
	free(c[2]);
}

/* the drain's callback: ends the even ones ("idle"), leaves the others */
static int drained_seen;

static void drain_even(struct tc_link *l)
{
	struct conn *c = container_of(l, struct conn, t.l);

	drained_seen |= 1 << c->id;
	if (!(c->id & 1)) {
		c->t.nc.why = SC_DRAIN;
		tc_end(&set, &c->t, 0);
	}
}

static void end_one(struct tc_link *l)
{
	tc_end(&set, &container_of(l, struct conn, t.l)->t, 0);
}

static void drain_and_close_all(void)
{
	uint64_t drains = why_count(SC_DRAIN), servers = why_count(SC_SERVER);

	set_up();
	for (int i = 0; i < 6; i++)
		open_one(i, -1, SC_SERVER);
	drained_seen = 0;
	tc_drain(&set, drain_even);
	is_int(drained_seen, 0x3f, "the drain calls back every live connection once");
	is_int(set.n, 3, "the ones it ended are gone, the others stay live");
	is_int(why_count(SC_DRAIN) - drains, 3, "counted as drained");
	tc_close_all(&set, end_one);
	is_int(set.n, 0, "close-all ends the rest");
	ok(list_empty(&set.live), "... the live list empty");
	is_int(why_count(SC_SERVER) - servers, 3, "... counted by their own reason");
	is_int(gone, 6, "the session told of each");
	is_int(set.free.n, 6, "all six kept");
	tc_close_all(&set, end_one);
	is_int(gone, 6, "close-all on an empty set does nothing");
	tc_set_free(&set);
}

/* the ring: a connection closed with a recv in flight waits on zombies,
 * its socket and buffers untouched, until the completion frees it */
static void zombie_wake(struct rio *r, int what)
{
	struct conn *c = container_of(r, struct conn, rio);

	if (!what)
		tc_zombie_done(&set, &c->t);
}

static void zombies(void)
{
	int sv[2];
	char buf[64];

	if (loop_use_ring(&w.loop, 0) < 0) {
		ok(1, "# skip no io_uring here");
		return;
	}
	set_up();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0)
		abort();
	struct conn *c = open_one(9, sv[0], SC_PEER);
	rio_init(&c->rio, w.loop.ring, sv[0], zombie_wake, NULL);
	c->t.nc.x.rio = &c->rio;
	c->rio.st = RIO_WANT;
	rio_arm(&c->rio, buf, sizeof(buf));
	tc_end(&set, &c->t, 1);
	ok(!list_empty(&set.zombies) && set.n == 0, "ended with a recv in flight: on zombies, off live");
	is_int(gone, 1, "its end counted at once");
	ok(c->released == 0 && fcntl(sv[0], F_GETFD) == 0, "its buffers and its socket kept for the ring");
	is_int(set.free.n, 0, "not recycled yet");
	uring_drain(w.loop.ring, &w.loop);
	ok(list_empty(&set.zombies), "the last completion takes it off zombies");
	ok(c->released == 1 && fcntl(sv[0], F_GETFD) < 0, "then released, its socket closed");
	is_int(set.free.n, 1, "and kept");
	close(sv[1]);
	tc_set_free(&set);
}

/* a connection with no TCP part, as QUIC's: the counted base alone, its
 * why and slot its own; counted open and closed, drained and closed all
 * by the same code, no session told (a kind without gone) */
struct bare {
	uint8_t why;
	TC_LINK;
};

static const struct tc_kind bare_kind = { sizeof(struct bare), offsetof(struct bare, l), NULL, NULL };

static void bare_end(struct tc_link *l)
{
	struct bare *b = container_of(l, struct bare, l);

	tc_count_close(&set, l, SP_H3, b->why, 0, 3);
	free(b);
}

static void bare_drain(struct tc_link *l)
{
	struct bare *b = container_of(l, struct bare, l);

	if (b->w != &w)
		return;
	b->why = SC_DRAIN;
	bare_end(l);
}

static void counted_alone(void)
{
	uint64_t opens = ctr_get(&w.st.conn_open[SP_H3]), drains = ctr_get(&w.st.conn_why[SP_H3][SC_DRAIN]);
	uint64_t idles = ctr_get(&w.st.conn_why[SP_H3][SC_IDLE]);
	struct worker other;

	gone = 0;
	tc_set_init(&set, &bare_kind, &w.loop, &w.st);
	for (int i = 0; i < 4; i++) {
		struct bare *b = calloc(1, sizeof(*b));

		if (!b)
			abort();
		b->w = i < 2 ? &w : &other; /* the drain ends the first two */
		b->why = SC_IDLE;
		tc_count_open(&set, &b->l, SP_H3);
	}
	is_int(set.n, 4, "a bare connection counted open, live");
	is_int(ctr_get(&w.st.conn_open[SP_H3]) - opens, 4, "... in its slot");
	tc_drain(&set, bare_drain);
	is_int(set.n, 2, "the drain walks bare connections too");
	tc_close_all(&set, bare_end);
	ok(set.n == 0 && list_empty(&set.live), "close-all ends the rest");
	is_int(ctr_get(&w.st.conn_why[SP_H3][SC_DRAIN]) - drains, 2, "closes counted by the why given: drained");
	is_int(ctr_get(&w.st.conn_why[SP_H3][SC_IDLE]) - idles, 2, "... idle");
	is_int(gone, 0, "no session told: the kind has none");
	tc_set_free(&set);
}

int main(void)
{
	if (loop_init(&w.loop) < 0)
		abort();
	accounting();
	bound();
	trim_midlife();
	drain_and_close_all();
	zombies();
	counted_alone();
	return done_testing();
}

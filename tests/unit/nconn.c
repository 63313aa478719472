/* Unit tests of the network base's readiness: epoll's events as NC_* flags (nc_events), for the server and hxload alike. */
#include "nconn.h"
#include "tap.h"
#include "tconn.h"

/* what each event set leaves in a connection's flags, from none */
static const struct {
	uint32_t events;
	uint32_t flags;
	const char *what;
} rows[] = {
	{ EPOLLIN, NC_RD_READY, "EPOLLIN: readable" },
	{ EPOLLOUT, NC_WR_READY, "EPOLLOUT: writable" },
	{ EPOLLIN | EPOLLOUT, NC_RD_READY | NC_WR_READY, "both" },
	{ EPOLLRDHUP, NC_RD_READY | NC_RDHUP, "EPOLLRDHUP: read on to EOF" },
	{ EPOLLHUP, NC_RD_READY | NC_RDHUP | NC_WR_READY, "EPOLLHUP: every way, so the error is met" },
	{ EPOLLERR, NC_RD_READY | NC_RDHUP | NC_WR_READY, "EPOLLERR: likewise" },
	{ EPOLLPRI, 0, "another event: nothing" },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct nconn n = { 0 };

		nc_events(&n, rows[i].events);
		is_int(n.flags, rows[i].flags, "%s", rows[i].what);
	}
	{
		struct nconn n = { .flags = NC_RD_READY | TC_DEAD | 0x1 };

		nc_events(&n, EPOLLOUT);
		is_int(n.flags, NC_RD_READY | NC_WR_READY | TC_DEAD | 0x1,
		       "an event adds readiness, never takes any away nor touches the owner's bits");
	}
	ok(!((NC_RD_READY | NC_WR_READY | NC_RDHUP) & (TC_DEAD | TC_MOVED | (TC_LOW - 1))),
	   "the readiness bits are apart from the server's and its protocols'");
	return done_testing();
}

/* For the fuzz drivers that run a real worker (conn, h2, quic): hxterm's set-up from a command line, and turns of the loop that drain what it writes. */
#ifndef HX_FUZZ_SRV_H
#define HX_FUZZ_SRV_H

#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "body.h"
#include "config.h"
#include "session.h"

static struct worker w;

/* where srv_spin() puts what the server wrote, when a driver keeps it */
struct srv_sink {
	uint8_t *p;
	size_t n, cap;
};
static struct srv_sink *srv_sink;

static inline void srv_keep(const char *p, size_t n)
{
	struct srv_sink *k = srv_sink;

	if (!k || k->n + n > k->cap)
		return; /* WHY no growth: a driver sizes it for its longest answer */
	memcpy(k->p + k->n, p, n);
	k->n += n;
}

/* <argv> (NULL-terminated) as hxterm's command line, then one worker */
static inline void srv_setup(char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	signal(SIGPIPE, SIG_IGN); /* the server may close while the input still flows */
	config_parse(argc, argv);
	body_init(cfg.rspbuf);
}

static inline void srv_thread(void)
{
	loop_init(&w.loop);
	sess_thread_init(&w);
}

/* turns of the loop, reading and dropping what the server writes to <peer>,
 * until the server has closed its end */
static inline void srv_spin(int peer, int turns)
{
	char sink[65536];
	ssize_t n = -1;

	for (int i = 0; i < turns; i++) {
		loop_turn(&w.loop, 0);
		while (peer >= 0 && (n = read(peer, sink, sizeof(sink))) > 0)
			srv_keep(sink, (size_t)n);
		/* WHY stop at the server's close: the turns after it found
		 * nothing to do, and they were most of a short input's system calls */
		if (n == 0)
			return;
	}
}

/* turns of the loop while the server still writes (at most <turns>), so
 * that what it answered is all out before the client's end */
static inline void srv_drain(int peer, int turns)
{
	char sink[65536];

	for (int i = 0; i < turns; i++) {
		ssize_t n, got = 0;

		loop_turn(&w.loop, 0);
		while ((n = read(peer, sink, sizeof(sink))) > 0) {
			srv_keep(sink, (size_t)n);
			got += n;
		}
		if (n == 0 || !got)
			return;
	}
}

/* the client's end of a new connection the worker accepted, or -1 */
static inline int srv_connect(int proxy)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0)
		return -1;
	/* WHY a small send buffer: with the drivers' --max-size the answers are
	 * short, and this is what still makes the server's writes block */
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &(int){ 8192 }, sizeof(int));
	if (sess_accept(&w, sv[0], 0, proxy) < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	return sv[1];
}

/* the client is done: its close, what the server does then, and whatever
 * still waits (t=, drip) goes now: nothing may leak */
static inline void srv_end(int peer)
{
	shutdown(peer, SHUT_WR);
	srv_spin(peer, 20);
	close(peer);
	srv_spin(-1, 2);
	sess_thread_free(&w);
	sess_thread_init(&w);
}

#endif

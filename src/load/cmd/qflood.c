/* hxload quic-flood: client Initials a server must take as new connections (a real ClientHello each, or a random payload) that are never answered, and what the server sends back: its QUIC admission under a half-open flood. */
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/crypto.h>

#include "lc_cmd.h"
#include "lc_opts.h"
#include "lc_sub.h"
#include "qhello.h"

/* what came back, by the first packet of each datagram */
enum { A_INITIAL, A_HANDSHAKE, A_RETRY, A_VN, A_OTHER, A_MAX };
static const char *const a_names[A_MAX] = { "initial", "handshake", "retry", "version_negotiation", "other" };

struct flood {
	long count, rate, wait_ms;
	int random, json;
	const char *sni;
	int fd;
	struct sockaddr_storage local, peer;
	socklen_t locallen, peerlen;
	uint64_t answers[A_MAX];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define F(f) OPT_F(struct flood, f)

static const struct opt flood_rows[] = {
	{ "count", 0, .kind = OPT_NUM, F(count), .min = 1, .max = 100000000, .dflt = 1000, .arg = "<n>",
	  .help = "client Initials, each a new connection (1000)" },
	{ "rate", 0, .kind = OPT_NUM, F(rate), .min = 0, .max = 100000000, .arg = "<n>",
	  .help = "Initials a second (0: as fast as the socket takes them)" },
	{ "random", 0, .kind = OPT_FLAG, F(random),
	  .help = "a well-formed header and a random payload, no ClientHello" },
	{ "wait", 0, .kind = OPT_NUM, F(wait_ms), .min = 0, .max = 600000, .dflt = 500, .arg = "<ms>",
	  .help = "then read the answers this long (500)" },
	{ "sni", 0, .kind = OPT_STR, F(sni), .arg = "<name>", .help = "the ClientHello's server name" },
	{ "json", 0, .kind = OPT_FLAG, F(json), .help = "one JSON object" },
	LC_SUB_END,
};
#undef F

static const struct lc_sub flood_cmd = {
	.name = "quic-flood", .rows = flood_rows,
	.synopsis = "quic-flood [--count N] [--rate N] [--random] [--wait MS] [--sni NAME] [--json] HOST:PORT",
	.about = "Sends N client Initials, each a new connection with fresh connection IDs and a\n"
		 "real TLS ClientHello (ngtcp2 and GnuTLS), or with --random a well-formed header and a\n"
		 "random payload, and never answers what comes back; --rate paces them. Then reads the\n"
		 "answers for --wait ms and counts them by packet type: Initial and Handshake (the\n"
		 "server kept state), Retry (it asked for address validation first), version\n"
		 "negotiation, other.",
	.pos_what = "HOST:PORT", .npos_min = 1, .npos_max = 1,
};

static int target(struct flood *f, const char *arg)
{
	char host[256];
	const char *colon = strrchr(arg, ':');
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *ai;
	size_t hl;

	if (!colon || colon == arg || (hl = (size_t)(colon - arg)) >= sizeof(host))
		return -1;
	memcpy(host, arg, hl);
	host[hl] = 0;
	if (host[0] == '[' && host[hl - 1] == ']')
		memmove(host, host + 1, hl - 2), host[hl - 2] = 0;
	if (getaddrinfo(host, colon + 1, &hints, &ai))
		return -1;
	memcpy(&f->peer, ai->ai_addr, ai->ai_addrlen);
	f->peerlen = ai->ai_addrlen;
	freeaddrinfo(ai);
	f->fd = socket(f->peer.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	f->locallen = sizeof(f->local);
	if (f->fd >= 0)
		setsockopt(f->fd, SOL_SOCKET, SO_RCVBUF, &(int){ 4 << 20 }, sizeof(int));
	if (f->fd < 0 || connect(f->fd, (struct sockaddr *)&f->peer, f->peerlen) < 0 ||
	    getsockname(f->fd, (struct sockaddr *)&f->local, &f->locallen) < 0)
		return -1;
	return 0;
}

/* a well-formed v1 Initial header (empty token) before 1200 random bytes */
static long random_initial(uint8_t *b)
{
	size_t n = 0, plen = 1200;

	b[n++] = 0xc3;
	b[n++] = 0, b[n++] = 0, b[n++] = 0, b[n++] = 1;
	b[n++] = 18;
	gnutls_rnd(GNUTLS_RND_NONCE, b + n, 18), n += 18;
	b[n++] = 8;
	gnutls_rnd(GNUTLS_RND_NONCE, b + n, 8), n += 8;
	b[n++] = 0;
	b[n++] = (uint8_t)(0x40 | plen >> 8), b[n++] = (uint8_t)plen;
	gnutls_rnd(GNUTLS_RND_NONCE, b + n, plen);
	return (long)(n + plen);
}

static void tally(struct flood *f, const uint8_t *b, ssize_t n)
{
	if (n < 5 || !(b[0] & 0x80)) {
		f->answers[A_OTHER]++;
		return;
	}
	if (!b[1] && !b[2] && !b[3] && !b[4]) {
		f->answers[A_VN]++;
		return;
	}
	switch (b[0] & 0x30) {
	case 0x00: f->answers[A_INITIAL]++; break;
	case 0x20: f->answers[A_HANDSHAKE]++; break;
	case 0x30: f->answers[A_RETRY]++; break;
	default: f->answers[A_OTHER]++;
	}
}

/* what is there now, or within <ms> */
static void drain(struct flood *f, int ms)
{
	uint8_t b[2048];
	struct pollfd p = { f->fd, POLLIN, 0 };
	double end = now_s() + ms / 1000.0;

	for (;;) {
		ssize_t n = recv(f->fd, b, sizeof(b), MSG_DONTWAIT);

		if (n >= 0) {
			/* WHY the Handshake count: a server that kept state sends
			 * an Initial and a Handshake packet, coalesced or not */
			tally(f, b, n);
			continue;
		}
		int left = (int)((end - now_s()) * 1000);

		if (left <= 0 || poll(&p, 1, left) <= 0)
			return;
	}
}

static int flood_run(struct flood *f)
{
	static struct qtls t;
	uint8_t b[1500];
	long sent = 0, failed = 0;
	double t0, t1;

	if (qtls_lib() < 0 || (!f->random && qtls_init(&t) < 0))
		return fprintf(stderr, "hxload quic-flood: GnuTLS refused its set-up\n"), 2;
	t0 = now_s();
	for (long i = 0; i < f->count; i++) {
		long n = f->random ? random_initial(b) :
				     qhello_write(&t, f->sni, (struct sockaddr *)&f->local, f->locallen,
						  (struct sockaddr *)&f->peer, f->peerlen, b, sizeof(b));

		if (n > 0 && send(f->fd, b, (size_t)n, 0) == n)
			sent++;
		else
			failed++;
		if (f->rate && (i + 1) % 50 == 0) {
			double ahead = t0 + (double)(i + 1) / (double)f->rate - now_s();

			if (ahead > 0)
				usleep((useconds_t)(ahead * 1e6));
		}
		drain(f, 0); /* WHY each time: the answers overflow the socket's buffer otherwise */
	}
	t1 = now_s();
	drain(f, (int)f->wait_ms);
	if (f->json) {
		printf("{\"sent\": %ld, \"failed\": %ld, \"seconds\": %.3f, \"random\": %s, \"answers\": {", sent, failed,
		       t1 - t0, f->random ? "true" : "false");
		for (int k = 0; k < A_MAX; k++)
			printf("%s\"%s\": %llu", k ? ", " : "", a_names[k], (unsigned long long)f->answers[k]);
		printf("}}\n");
	} else {
		printf("quic-flood: %ld Initials sent in %.2f s (%s)%s\n", sent, t1 - t0,
		       f->random ? "a random payload each" : "a real ClientHello each, never followed up",
		       failed ? ", some refused by the socket" : "");
		printf("answers within %ld ms after:", f->wait_ms);
		for (int k = 0; k < A_MAX; k++)
			printf(" %s %llu%s", a_names[k], (unsigned long long)f->answers[k], k < A_MAX - 1 ? "," : "\n");
	}
	if (!f->random)
		qtls_free(&t);
	return 0;
}

int lc_qflood_main(int argc, char **argv)
{
	struct flood f = { 0 };
	struct lc_sub_args a = { 0 };
	int rc;

	if ((rc = lc_sub_parse(&flood_cmd, &f, argc, argv, &a)) >= 0)
		return rc;
	if (target(&f, a.pos[0]) < 0) {
		fprintf(stderr, "hxload quic-flood: '%s': expected HOST:PORT that resolves and a UDP socket to it\n",
			a.pos[0]);
		return 2;
	}
	return flood_run(&f);
}

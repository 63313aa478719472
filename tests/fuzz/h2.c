/* libFuzzer driver: HTTP/2 frames after a valid preface and SETTINGS, each framed from a record (type, flags, stream, length, payload) so every input reaches nghttp2's frame layer and our callbacks. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "body.h"
#include "config.h"
#include "session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct worker w;
static int ready;

static void setup(void)
{
	static char *argv[] = { "hxterm", "-q", "--max-wait", "50", "--head-timeout", "20",
				"--idle-timeout", "20", "--body-timeout", "20", "--send-timeout", "20",
				"--max-size", "16k", NULL };

	signal(SIGPIPE, SIG_IGN);
	config_parse(14, argv);
	body_init(cfg.rspbuf);
	sess_init();
	loop_init(&w.loop);
	sess_thread_init(&w);
	ready = 1;
}

static void spin(int peer, int turns)
{
	char sink[65536];

	for (int i = 0; i < turns; i++) {
		loop_turn(&w.loop, 0);
		while (peer >= 0 && read(peer, sink, sizeof(sink)) > 0)
			;
	}
}

/* A record: type, flags, stream (odd ids 1..255 from one byte, 0 when the
 * byte is 0), a length byte pair, then that many bytes (fewer at the end).
 * The frame header is written from it with the true length. */
static size_t frame(const uint8_t *p, size_t n, uint8_t *out)
{
	size_t len, sid;

	if (n < 5)
		return 0;
	sid = p[2] ? (size_t)(p[2] | 1) : 0;
	len = (size_t)(p[3] << 8 | p[4]) % 20000;
	if (len > n - 5)
		len = n - 5;
	out[0] = (uint8_t)(len >> 16), out[1] = (uint8_t)(len >> 8), out[2] = (uint8_t)len;
	out[3] = p[0] % 11 == 10 ? p[0] : p[0] % 11; /* WHY mostly known types: unknown ones are ignored */
	out[4] = p[1];
	out[5] = 0, out[6] = 0, out[7] = 0, out[8] = (uint8_t)sid;
	memcpy(out + 9, p + 5, len);
	return 5 + len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[9 + 20000];
	static const char hello[] = H2_PREFACE "\0\0\0\4\0\0\0\0\0";
	int sv[2];
	size_t off = 0;

	if (!ready)
		setup();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0)
		return 0;
	if (sess_accept(&w, sv[0], 0, 0) < 0) {
		close(sv[0]);
		close(sv[1]);
		return 0;
	}
	if (write(sv[1], hello, sizeof(hello) - 1) < 0)
		off = size;
	while (off < size) {
		size_t used = frame(data + off, size - off, out), len;

		if (!used)
			break;
		len = (size_t)(out[0] << 16 | out[1] << 8 | out[2]);
		if (write(sv[1], out, 9 + len) < 0)
			break;
		off += used;
		spin(sv[1], 1);
	}
	shutdown(sv[1], SHUT_WR);
	spin(sv[1], 20);
	close(sv[1]);
	spin(-1, 5);
	sess_thread_free(&w);
	sess_thread_init(&w);
	return 0;
}

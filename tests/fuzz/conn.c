/* libFuzzer driver: whole byte streams into one real connection (HTTP/1, HTTP/2 after the preface, a PROXY header first when bit 7 of the first byte is set). */
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
				"--idle-timeout", "20", "--body-timeout", "20", "--send-timeout", "20", NULL };

	signal(SIGPIPE, SIG_IGN); /* the server may close while the input still flows */
	config_parse(12, argv);
	body_init(cfg.rspbuf);
	sess_init();
	loop_init(&w.loop);
	sess_thread_init(&w);
	ready = 1;
}

/* turns of the loop, reading and dropping what the server writes */
static void spin(int peer, int turns)
{
	char sink[65536];

	for (int i = 0; i < turns; i++) {
		loop_turn(&w.loop, 0);
		while (peer >= 0 && read(peer, sink, sizeof(sink)) > 0)
			;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sv[2];
	size_t off = 1, step;
	int h2 = size && (data[0] & 1);
	int proxy = size && (data[0] & 0x80); /* WHY bit 7: the step reads bits 1 to 6 */

	if (!ready)
		setup();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0)
		return 0;
	if (sess_accept(&w, sv[0], 0, proxy) < 0) {
		close(sv[0]);
		close(sv[1]);
		return 0;
	}
	step = size ? (size_t)(data[0] >> 1) % 64 + 1 : 1;
	if (h2 && write(sv[1], H2_PREFACE "\0\0\0\4\0\0\0\0\0", sizeof(H2_PREFACE) - 1 + 9) < 0)
		h2 = 0;
	while (off < size) {
		size_t n = size - off < step ? size - off : step;

		if (write(sv[1], data + off, n) < 0)
			break;
		off += n;
		spin(sv[1], 2);
	}
	shutdown(sv[1], SHUT_WR);
	spin(sv[1], 20);
	close(sv[1]);
	spin(-1, 5);
	/* whatever still waits (t=, drip) goes now: nothing may leak */
	sess_thread_free(&w);
	sess_thread_init(&w);
	return 0;
}

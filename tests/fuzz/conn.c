/* libFuzzer driver: whole byte streams into one real connection (HTTP/1, HTTP/2 after the preface, a PROXY header first when bit 7 of the first byte is set). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "srv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PIECES 64 /* most writes an input is cut into */

static int ready;

static void setup(void)
{
	static char *argv[] = { "hxterm", "-q", "--max-wait", "50", "--head-timeout", "20",
				"--idle-timeout", "20", "--body-timeout", "20", "--send-timeout", "20",
				"--max-size", "64k", NULL };

	srv_setup(argv);
	sess_init(proto_table);
	srv_thread();
	ready = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int peer;
	size_t off = 1, step;
	int h2 = size && (data[0] & 1);
	int proxy = size && (data[0] & 0x80); /* WHY bit 7: the step reads bits 1 to 6 */

	if (!ready)
		setup();
	if ((peer = srv_connect(proxy)) < 0)
		return 0;
	step = size ? (size_t)(data[0] >> 1) % 64 + 1 : 1;
	/* WHY at most PIECES writes: each costs four system calls and a turn, and
	 * a long input cut byte by byte was most of the campaign's time; inputs up
	 * to PIECES bytes are still cut as finely as the first byte says */
	if (size > 1 && (size - 1 + PIECES - 1) / PIECES > step)
		step = (size - 1 + PIECES - 1) / PIECES;
	if (h2 && write(peer, H2_PREFACE "\0\0\0\4\0\0\0\0\0", sizeof(H2_PREFACE) - 1 + 9) < 0)
		h2 = 0;
	while (off < size) {
		size_t n = size - off < step ? size - off : step;

		if (write(peer, data + off, n) < 0)
			break;
		off += n;
		srv_spin(peer, 1);
	}
	srv_end(peer);
	return 0;
}

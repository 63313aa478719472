/* libFuzzer driver: UDP datagrams into the QUIC port: length-prefixed records, optionally after a real client Initial whose connection the records then address (its DCID on long headers, the server's on short ones). */
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "listen.h"
#include "qhello.h"
#include "srv.h"
#include "tls_ctx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct qtls qt;
static struct sockaddr_in srv;
static uint8_t hello[1500];
static long hello_len;
static int ready;

#define BATCH 8    /* records sent before the server's turn, at most */
#define RECORDS 64 /* records an input may send, at most */

static void setup(void)
{
	static char *argv[] = { "hxterm", "-q", "--max-wait", "50", "--head-timeout", "200",
				"--idle-timeout", "200", "--max-size", "16k", "-L", "127.0.0.1:1:2", NULL };
	struct listen_addr la;
	socklen_t sl = sizeof(srv);
	int fd;

	srv_setup(argv);
	if (tls_init() < 0 || sess_init(proto_table) < 0 || qtls_init(&qt) < 0)
		abort();
	srv_thread();
	/* WHY a port of our own: -L names placeholder ports; bind a free one and hand it to the protocol */
	la = cfg.addrs[0];
	fd = listen_udp(&la, 0);
	if (fd < 0 || getsockname(fd, (struct sockaddr *)&srv, &sl) < 0)
		abort();
	close(fd);
	la.tls_port = ntohs(srv.sin_port);
	if (sess_listen(&w, &la) < 0)
		abort();
	/* WHY one client Initial for the whole run: making it (GnuTLS's key
	 * share) was a quarter of each execution; the packet names no address,
	 * and the server's state is new each time */
	hello_len = qhello_write(&qt, NULL, (struct sockaddr *)&srv, sizeof(srv), (struct sockaddr *)&srv, sizeof(srv),
				 hello, sizeof(hello));
	ready = 1;
}

/* turns of the loop; the server's SCID from its first long-header answer */
static void spin(int cfd, int turns, uint8_t *scid, int *have)
{
	uint8_t b[2048];

	for (int i = 0; i < turns; i++) {
		ssize_t n;

		loop_turn(&w.loop, 0);
		while ((n = recv(cfd, b, sizeof(b), MSG_DONTWAIT)) > 0)
			if (!*have && (b[0] & 0x80) && n > 6 + b[5] + 1 + 18 && b[6 + b[5]] == 18) {
				memcpy(scid, b + 7 + b[5], 18);
				*have = 1;
			}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t d[2048], dcid[20], scid[18];
	size_t off = 1, dcidlen = 0;
	int cfd, have = 0, queued = 0, sent = 0;

	if (!ready)
		setup();
	if (!size || (cfd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	if (connect(cfd, (struct sockaddr *)&srv, sizeof(srv)) < 0) {
		close(cfd);
		return 0;
	}
	if ((data[0] & 1) && hello_len > 6 && hello[5] <= 20) {
		dcidlen = hello[5];
		memcpy(dcid, hello + 6, dcidlen);
		(void)!send(cfd, hello, (size_t)hello_len, 0);
		spin(cfd, 3, scid, &have);
	}
	/* WHY at most RECORDS: inputs of two thousand empty records grew
	 * without bound (each count bucket is a new feature to libFuzzer) and
	 * slowed the campaign to 190 executions a second; 64 records reach
	 * every bucket below the last */
	while (off + 2 <= size && sent++ < RECORDS) {
		size_t len = (size_t)(data[off] << 8 | data[off + 1]) % sizeof(d);

		off += 2;
		if (len > size - off)
			len = size - off;
		memcpy(d, data + off, len);
		off += len;
		/* WHY the patching: random bytes never name a live connection */
		if (len && (d[0] & 0x80) && dcidlen && len >= 6 + dcidlen && d[5] == dcidlen)
			memcpy(d + 6, dcid, dcidlen);
		else if (len >= 19 && !(d[0] & 0x80) && have)
			memcpy(d + 1, scid, 18);
		(void)!send(cfd, d, len, 0);
		/* WHY turns after a long header or BATCH records: a long header is
		 * what the server may answer with the SCID the next records need;
		 * a turn per record was three of its four system calls */
		if ((len && (d[0] & 0x80)) || ++queued == BATCH) {
			spin(cfd, 1, scid, &have);
			queued = 0;
		}
	}
	spin(cfd, 3, scid, &have);
	close(cfd);
	/* whatever is left goes now: nothing may leak */
	sess_thread_free(&w);
	sess_thread_init(&w);
	{
		struct listen_addr la = cfg.addrs[0];

		la.tls_port = ntohs(srv.sin_port);
		if (sess_listen(&w, &la) < 0)
			abort();
	}
	return 0;
}

/* Unit tests of the ring of many sockets' calls: each result at its rank, a bad descriptor answered without holding those behind it, the queue's bound, and a ring used again. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qring.h"
#include "tap.h"

/* a UDP socket on 127.0.0.1, non-blocking, its port in *port */
static int udp(unsigned short *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		return -1;
	*port = ntohs(a.sin_port);
	return fd;
}

int main(void)
{
	struct qring *r = qring_new();
	unsigned short pa, pb;
	int a = udp(&pa), b = udp(&pb), res[QRING_OPS + 1], queued = 0;
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK), .sin_port = htons(pb) };
	char out[] = "hello", in[2][64];
	struct iovec ov = { out, 5 }, iv[2] = { { in[0], sizeof(in[0]) }, { in[1], sizeof(in[1]) } };
	struct msghdr sm = { .msg_name = &to, .msg_namelen = sizeof(to), .msg_iov = &ov, .msg_iovlen = 1 };
	struct msghdr rm[2] = { { .msg_iov = &iv[0], .msg_iovlen = 1 }, { .msg_iov = &iv[1], .msg_iovlen = 1 } };

	/* WHY: a run that waited for a call never submitted would hang; it fails instead */
	alarm(20);
	if (!r) {
		printf("1..0 # SKIP the kernel refuses io_uring (%s)\n", strerror(errno));
		return 0;
	}
	ok(a >= 0 && b >= 0, "two UDP sockets on 127.0.0.1");
	is_int(qring_run(r, res), 0, "nothing queued: nothing run");

	/* a bad descriptor first, then a send, a read of it, a read of the
	 * empty socket: the first refused must not hold the rest */
	ok(qring_recvmsg(r, -1, &rm[1]) == 0 && qring_sendmsg(r, a, &sm) == 0 && qring_recvmsg(r, b, &rm[0]) == 0 &&
	   qring_recvmsg(r, b, &rm[1]) == 0, "four calls queued");
	memset(res, 0x55, sizeof(res));
	is_int(qring_run(r, res), 4, "one run: all four ran, none waited");
	is_int(res[0], -EBADF, "a bad descriptor: -EBADF at its rank");
	is_int(res[1], 5, "the send behind it took its 5 bytes");
	is_int(res[2], 5, "the read after it, queued behind, got them");
	ok(res[2] == 5 && !memcmp(in[0], "hello", 5), "... the same bytes");
	is_int(res[3], -EAGAIN, "the next read of the empty socket: -EAGAIN, no wait (MSG_DONTWAIT)");

	/* the bound: QRING_OPS queued, one more refused; the ring runs them */
	for (int i = 0; i < QRING_OPS + 1; i++)
		queued += qring_recvmsg(r, b, &rm[0]) == 0;
	is_int(queued, QRING_OPS, "QRING_OPS calls queued, the one past them refused");
	is_int(qring_run(r, res), QRING_OPS, "all of them run");
	ok(res[0] == -EAGAIN && res[QRING_OPS - 1] == -EAGAIN, "each read of the empty socket -EAGAIN");

	/* used again after a full run */
	ok(qring_sendmsg(r, a, &sm) == 0 && qring_recvmsg(r, b, &rm[0]) == 0, "a ring runs again");
	is_int(qring_run(r, res), 2, "... two more calls");
	is_int(res[1], 5, "... the datagram read");
	qring_free(r);
	qring_free(NULL);
	close(a);
	close(b);
	return done_testing();
}

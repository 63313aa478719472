/* The kernel floor with epoll: edge-triggered, one recv and one writev per read, nothing else. */
#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "common.h"

static void serve(int fd)
{
	char in[16384];
	struct iovec iov[MAX_PIPE];

	for (;;) {
		ssize_t r = recv(fd, in, sizeof(in), 0);

		if (r < 0 && errno == EAGAIN)
			return;
		if (r <= 0) {
			close(fd);
			return;
		}
		if (writev(fd, iov, responses(iov, heads_in(in, (size_t)r))) < 0) {
			close(fd);
			return;
		}
		if ((size_t)r < sizeof(in))
			return;
	}
}

int main(int argc, char **argv)
{
	int l, ep = epoll_create1(0);
	struct epoll_event ee = { .events = EPOLLIN }, ev[256];

	if (argc < 2)
		return fprintf(stderr, "usage: %s port\n", argv[0]), 2;
	resp_init();
	l = listen_on(atoi(argv[1]), SOCK_NONBLOCK);
	ee.data.fd = l;
	epoll_ctl(ep, EPOLL_CTL_ADD, l, &ee);
	for (;;) {
		int n = epoll_wait(ep, ev, 256, -1);

		for (int i = 0; i < n; i++) {
			int c;

			if (ev[i].data.fd != l) {
				serve(ev[i].data.fd);
				continue;
			}
			while ((c = accept4(l, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
				struct epoll_event ce = { .events = EPOLLIN | EPOLLET, .data.fd = c };

				epoll_ctl(ep, EPOLL_CTL_ADD, c, &ce);
			}
		}
	}
}

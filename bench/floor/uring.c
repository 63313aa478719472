/* The kernel floor with io_uring: multishot accept, a recv and a linked writev per read, one enter per batch. */
#include <errno.h>
#include <liburing.h>
#include <unistd.h>

#include "common.h"

#define MAX_FD 65536

enum op { OP_ACCEPT = 1, OP_RECV, OP_SEND };

struct conn {
	char in[16384];
	struct iovec iov[MAX_PIPE];
};

static struct io_uring ring;
static struct conn *conns[MAX_FD];

static struct io_uring_sqe *sqe_get(void)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&ring);

	if (!s) {
		io_uring_submit(&ring);
		s = io_uring_get_sqe(&ring);
	}
	return s;
}

static void post(int op, int fd, struct io_uring_sqe *s)
{
	io_uring_sqe_set_data64(s, ((uint64_t)op << 32) | (uint32_t)fd);
}

static void post_accept(int l)
{
	struct io_uring_sqe *s = sqe_get();

	io_uring_prep_multishot_accept(s, l, NULL, NULL, 0);
	post(OP_ACCEPT, l, s);
}

static void post_recv(int fd)
{
	struct io_uring_sqe *s = sqe_get();

	io_uring_prep_recv(s, fd, conns[fd]->in, sizeof(conns[fd]->in), 0);
	post(OP_RECV, fd, s);
}

static void on_accept(int fd)
{
	if (fd < 0 || fd >= MAX_FD)
		return;
	if (!conns[fd] && !(conns[fd] = malloc(sizeof(struct conn)))) {
		close(fd);
		return;
	}
	post_recv(fd);
}

/* the answer goes out, and the next recv is queued behind it */
static void on_recv(int fd, int res)
{
	struct conn *c = conns[fd];
	struct io_uring_sqe *s;

	if (res <= 0) {
		close(fd);
		return;
	}
	s = sqe_get();
	io_uring_prep_writev(s, fd, c->iov, (unsigned)responses(c->iov, heads_in(c->in, (size_t)res)), 0);
	post(OP_SEND, fd, s);
	s->flags |= IOSQE_IO_LINK;
	post_recv(fd);
}

int main(int argc, char **argv)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN };
	int l;

	if (argc < 2)
		return fprintf(stderr, "usage: %s port\n", argv[0]), 2;
	resp_init();
	if (io_uring_queue_init_params(4096, &ring, &p) < 0) {
		p.flags = 0;
		if (io_uring_queue_init_params(4096, &ring, &p) < 0)
			return perror("io_uring"), 1;
	}
	l = listen_on(atoi(argv[1]), 0);
	post_accept(l);
	for (;;) {
		struct io_uring_cqe *cqe;
		unsigned head, seen = 0;

		io_uring_submit_and_wait(&ring, 1);
		io_uring_for_each_cqe(&ring, head, cqe) {
			int op = (int)(cqe->user_data >> 32), fd = (int)(uint32_t)cqe->user_data;

			seen++;
			if (op == OP_ACCEPT && !(cqe->flags & IORING_CQE_F_MORE))
				post_accept(l); /* the multishot accept ended: arm it again */
			if (op == OP_ACCEPT)
				on_accept(cqe->res);
			else if (op == OP_RECV)
				on_recv(fd, cqe->res);
		}
		io_uring_cq_advance(&ring, seen);
	}
}

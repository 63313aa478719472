/* Many sockets' calls in one system call: an io_uring whose sends and reads, each told not to wait, complete as they are submitted. */
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "qring.h"

struct qring {
	struct io_uring ring;
	unsigned queued;
};

struct qring *qring_new(void)
{
	/* WHY SUBMIT_ALL: without it a call the kernel refuses at submission
	 * would leave those behind it queued, and qring_run wait for them (a
	 * bad descriptor is not one of those on 6.18: it completes, -EBADF,
	 * with or without; tests/unit/qring.c). WHY the fallbacks: kernels
	 * before 6.1 refuse DEFER_TASKRUN, before 5.18 SUBMIT_ALL */
	static const unsigned flags[] = { IORING_SETUP_SUBMIT_ALL | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
					  IORING_SETUP_SUBMIT_ALL, 0 };
	struct qring *r = calloc(1, sizeof(*r));
	int e = -EINVAL;

	if (!r)
		return NULL;
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]) && e < 0; i++) {
		struct io_uring_params p = { .flags = flags[i] };

		e = io_uring_queue_init_params(QRING_OPS, &r->ring, &p);
	}
	if (e < 0) {
		free(r);
		errno = -e;
		return NULL;
	}
	return r;
}

void qring_free(struct qring *r)
{
	if (!r)
		return;
	io_uring_queue_exit(&r->ring);
	free(r);
}

static struct io_uring_sqe *next(struct qring *r)
{
	struct io_uring_sqe *s = r->queued < QRING_OPS ? io_uring_get_sqe(&r->ring) : NULL;

	if (s)
		io_uring_sqe_set_data64(s, r->queued++);
	return s;
}

int qring_sendmsg(struct qring *r, int fd, const struct msghdr *m)
{
	struct io_uring_sqe *s = next(r);

	if (!s)
		return -1;
	io_uring_prep_sendmsg(s, fd, m, MSG_DONTWAIT);
	return 0;
}

int qring_recvmsg(struct qring *r, int fd, struct msghdr *m)
{
	struct io_uring_sqe *s = next(r);

	if (!s)
		return -1;
	io_uring_prep_recvmsg(s, fd, m, MSG_DONTWAIT);
	return 0;
}

unsigned qring_run(struct qring *r, int *res)
{
	unsigned n = r->queued, got = 0;
	struct io_uring_cqe *cqe;
	int e;

	if (!n)
		return 0;
	/* WHY wait for n: each completes at its submission (MSG_DONTWAIT),
	 * so this returns at once, one system call for all. WHY no way out
	 * but these: an operation left queued would run at the next call
	 * with its reads' buffers gone; the kernel refuses only for a moment
	 * (memory, a full completion queue: never, all are reaped) */
	while ((e = io_uring_submit_and_wait(&r->ring, n)) < 0)
		if (e != -EINTR && e != -EAGAIN && e != -EBUSY) {
			log_err("io_uring refused its batch of %u calls: %s", n, strerror(-e));
			abort();
		}
	while (got < n) {
		if (io_uring_peek_cqe(&r->ring, &cqe) && (e = io_uring_wait_cqe(&r->ring, &cqe)) < 0) {
			if (e == -EINTR)
				continue;
			log_err("io_uring lost %u of its %u calls: %s", n - got, n, strerror(-e));
			abort();
		}
		res[io_uring_cqe_get_data64(cqe)] = cqe->res;
		io_uring_cqe_seen(&r->ring, cqe);
		got++;
	}
	r->queued = 0;
	return got;
}

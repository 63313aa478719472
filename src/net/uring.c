/* The io_uring backend of a loop (--io-uring): the loop waits on a ring, operations complete through it, epoll rides along as one poll. */
#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "uring.h"

#define RING_SIZE 1024
#define NBUF      128  /* pooled recv buffers: 256 KiB per worker, touched as used */
#define BGID      0

/* user_data of the poll on the epoll set; 0 is a completion nobody waits for */
#define UD_EPOLL 1

struct uring {
	struct io_uring ring;
	int epfd;             /* the epoll set the ring watches */
	int ep_more;          /* the epoll set may still hold events */
	uint32_t inflight;    /* operations not completed */
	struct io_uring_buf_ring *br; /* the pool of recv buffers */
	char *bufs;
	const char *cur;      /* the pooled buffer of the completion being run */
};

static struct io_uring_sqe *sqe_get(struct uring *u)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&u->ring);

	if (!s) { /* the queue is full: hand it to the kernel, then there is room */
		io_uring_submit(&u->ring);
		s = io_uring_get_sqe(&u->ring);
	}
	return s;
}

/* the pool of recv buffers the kernel picks from */
static int bufs_init(struct uring *u)
{
	struct io_uring_buf_reg reg = { .ring_entries = NBUF, .bgid = BGID };
	struct io_uring_buf_ring *br = NULL;
	char *mem;

	if (posix_memalign((void **)&br, 4096, NBUF * sizeof(struct io_uring_buf)) ||
	    !(mem = malloc((size_t)NBUF * URING_BUF))) {
		free(br);
		return -1;
	}
	reg.ring_addr = (uint64_t)(uintptr_t)br;
	if (io_uring_register_buf_ring(&u->ring, &reg, 0) < 0) {
		free(br);
		free(mem);
		return -1;
	}
	io_uring_buf_ring_init(br);
	for (int i = 0; i < NBUF; i++)
		io_uring_buf_ring_add(br, mem + (size_t)i * URING_BUF, URING_BUF, (unsigned short)i,
				      io_uring_buf_ring_mask(NBUF), i);
	io_uring_buf_ring_advance(br, NBUF);
	u->br = br;
	u->bufs = mem;
	return 0;
}

/* gives buffer <bid> back to the kernel's pick */
static void buf_return(struct uring *u, unsigned bid)
{
	io_uring_buf_ring_add(u->br, u->bufs + (size_t)bid * URING_BUF, URING_BUF,
			      (unsigned short)bid, io_uring_buf_ring_mask(NBUF), 0);
	io_uring_buf_ring_advance(u->br, 1);
}

const char *uring_buf(const struct uring *u)
{
	return u->cur;
}

static void watch_epoll(struct uring *u)
{
	struct io_uring_sqe *s = sqe_get(u);

	io_uring_prep_poll_multishot(s, u->epfd, POLLIN);
	io_uring_sqe_set_data64(s, UD_EPOLL);
}

struct uring *uring_new(int epfd, int id)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN };
	struct uring *u = calloc(1, sizeof(*u));
	int e;

	if (!u)
		return NULL;
	u->epfd = epfd;
	/* WHY: DEFER_TASKRUN runs completions only when we ask, in our loop;
	 * kernels before 6.1 refuse it, the plain ring works there */
	if ((e = io_uring_queue_init_params(RING_SIZE, &u->ring, &p)) < 0) {
		p.flags = 0;
		e = io_uring_queue_init_params(RING_SIZE, &u->ring, &p);
	}
	if (e < 0) {
		log_err("thread %d: io_uring unavailable (%s), using epoll", id, strerror(-e));
		free(u);
		return NULL;
	}
	if (bufs_init(u) < 0) {
		log_err("thread %d: io_uring buffer ring refused, using epoll", id);
		io_uring_queue_exit(&u->ring);
		free(u);
		return NULL;
	}
	watch_epoll(u);
	return u;
}

void uring_free(struct uring *u)
{
	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	free(u->br);
	free(u->bufs);
	free(u);
}

void uring_epoll_more(struct uring *u, int more)
{
	u->ep_more = more;
}

void uring_wait(struct uring *u, uint64_t us)
{
	struct __kernel_timespec ts = { (long long)(us / 1000000), (long long)(us % 1000000) * 1000 };
	struct io_uring_cqe *cqe;

	if (u->ep_more) /* epoll may hold events that raised no new wake-up */
		ts.tv_sec = ts.tv_nsec = 0;
	io_uring_submit_and_wait_timeout(&u->ring, &cqe, 1, &ts, NULL);
}

int uring_reap(struct uring *u, struct loop *l)
{
	struct io_uring_cqe *cqe;
	unsigned head, seen = 0;
	int ep = u->ep_more;

	io_uring_for_each_cqe(&u->ring, head, cqe) {
		uint64_t ud = cqe->user_data;

		seen++;
		if (ud == UD_EPOLL) {
			ep = 1;
			if (!(cqe->flags & IORING_CQE_F_MORE))
				watch_epoll(u); /* the multishot poll ended: arm it again */
		} else if (ud) {
			struct uop *op = (struct uop *)(uintptr_t)ud;

			u->inflight--;
			u->cur = NULL;
			if (cqe->flags & IORING_CQE_F_BUFFER)
				u->cur = u->bufs + (size_t)(cqe->flags >> IORING_CQE_BUFFER_SHIFT) * URING_BUF;
			op->cb(l, op, cqe->res);
			if (cqe->flags & IORING_CQE_F_BUFFER)
				buf_return(u, cqe->flags >> IORING_CQE_BUFFER_SHIFT);
		}
	}
	io_uring_cq_advance(&u->ring, seen);
	return ep;
}

/* <op> is called at the completion of <s>: counted until then (uring_drain) */
static void track(struct uring *u, struct io_uring_sqe *s, struct uop *op)
{
	io_uring_sqe_set_data(s, op);
	u->inflight++;
}

void uring_recv(struct uring *u, struct uop *op, int fd, void *buf, size_t len)
{
	struct io_uring_sqe *s = sqe_get(u);

	io_uring_prep_recv(s, fd, buf, len, 0);
	track(u, s, op);
}

void uring_recv_pooled(struct uring *u, struct uop *op, int fd)
{
	struct io_uring_sqe *s = sqe_get(u);

	io_uring_prep_recv(s, fd, NULL, URING_BUF, 0);
	s->flags |= IOSQE_BUFFER_SELECT;
	s->buf_group = BGID;
	track(u, s, op);
}

void uring_sendmsg(struct uring *u, struct uop *op, int fd, const struct msghdr *m, int flags)
{
	struct io_uring_sqe *s = sqe_get(u);

	io_uring_prep_sendmsg(s, fd, m, (unsigned)(flags | MSG_NOSIGNAL));
	track(u, s, op);
}

void uring_send(struct uring *u, struct uop *op, int fd, const void *buf, size_t len, int flags)
{
	struct io_uring_sqe *s = sqe_get(u);

	io_uring_prep_send(s, fd, buf, len, flags | MSG_NOSIGNAL);
	track(u, s, op);
}

void uring_cancel_fd(struct uring *u, int fd)
{
	struct io_uring_sqe *s = sqe_get(u);

	io_uring_prep_cancel_fd(s, fd, IORING_ASYNC_CANCEL_ALL);
	io_uring_sqe_set_data64(s, 0);
}

void uring_drain(struct uring *u, struct loop *l)
{
	struct io_uring_sqe *s;

	if (!u || !u->inflight)
		return;
	s = sqe_get(u);
	io_uring_prep_cancel64(s, 0, IORING_ASYNC_CANCEL_ANY);
	io_uring_sqe_set_data64(s, 0);
	for (int i = 0; i < 100 && u->inflight; i++) {
		uring_wait(u, 10000);
		uring_reap(u, l);
	}
}

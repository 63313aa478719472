/* The io_uring backend (--io-uring): the worker waits on a ring; clear-text HTTP/1 reads and writes go through it, epoll rides along as one poll. */
#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "uring.h"
#include "worker-t.h"

#define RING_SIZE 1024
#define NBUF      128  /* pooled recv buffers: 256 KiB per worker, touched as used */
#define BGID      0

/* user_data of the poll on the epoll set; 0 is a completion nobody waits for */
#define UD_EPOLL 1

static struct io_uring_sqe *sqe_get(struct worker *w)
{
	struct io_uring_sqe *s = io_uring_get_sqe(w->ring);

	if (!s) { /* the queue is full: hand it to the kernel, then there is room */
		io_uring_submit(w->ring);
		s = io_uring_get_sqe(w->ring);
	}
	return s;
}

/* the pool of recv buffers the kernel picks from */
static int bufs_init(struct worker *w)
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
	if (io_uring_register_buf_ring(w->ring, &reg, 0) < 0) {
		free(br);
		free(mem);
		return -1;
	}
	io_uring_buf_ring_init(br);
	for (int i = 0; i < NBUF; i++)
		io_uring_buf_ring_add(br, mem + (size_t)i * URING_BUF, URING_BUF, (unsigned short)i,
				      io_uring_buf_ring_mask(NBUF), i);
	io_uring_buf_ring_advance(br, NBUF);
	w->u_br = br;
	w->u_bufs = mem;
	return 0;
}

/* gives buffer <bid> back to the kernel's pick */
static void buf_return(struct worker *w, unsigned bid)
{
	io_uring_buf_ring_add(w->u_br, w->u_bufs + (size_t)bid * URING_BUF, URING_BUF,
			      (unsigned short)bid, io_uring_buf_ring_mask(NBUF), 0);
	io_uring_buf_ring_advance(w->u_br, 1);
}

const char *uring_buf(const struct worker *w)
{
	return w->u_cur;
}

static void watch_epoll(struct worker *w)
{
	struct io_uring_sqe *s = sqe_get(w);

	io_uring_prep_poll_multishot(s, w->epfd, POLLIN);
	io_uring_sqe_set_data64(s, UD_EPOLL);
}

int uring_init(struct worker *w)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN };
	struct io_uring *r = calloc(1, sizeof(*r));
	int e;

	if (!r)
		return -1;
	/* WHY: DEFER_TASKRUN runs completions only when we ask, in our loop;
	 * kernels before 6.1 refuse it, the plain ring works there */
	if ((e = io_uring_queue_init_params(RING_SIZE, r, &p)) < 0) {
		p.flags = 0;
		e = io_uring_queue_init_params(RING_SIZE, r, &p);
	}
	if (e < 0) {
		log_err("thread %d: io_uring unavailable (%s), using epoll", w->id, strerror(-e));
		free(r);
		return -1;
	}
	w->ring = r;
	if (bufs_init(w) < 0) {
		log_err("thread %d: io_uring buffer ring refused, using epoll", w->id);
		uring_free(w);
		return -1;
	}
	watch_epoll(w);
	return 0;
}

void uring_free(struct worker *w)
{
	if (!w->ring)
		return;
	io_uring_queue_exit(w->ring);
	free(w->ring);
	free(w->u_br);
	free(w->u_bufs);
	w->ring = NULL;
	w->u_br = NULL;
	w->u_bufs = NULL;
}

void uring_wait(struct worker *w, uint64_t us)
{
	struct __kernel_timespec ts = { (long long)(us / 1000000), (long long)(us % 1000000) * 1000 };
	struct io_uring_cqe *cqe;

	if (w->ep_more) /* epoll may hold events that raised no new wake-up */
		ts.tv_sec = ts.tv_nsec = 0;
	io_uring_submit_and_wait_timeout(w->ring, &cqe, 1, &ts, NULL);
}

int uring_reap(struct worker *w)
{
	struct io_uring_cqe *cqe;
	unsigned head, seen = 0;
	int ep = w->ep_more;

	io_uring_for_each_cqe(w->ring, head, cqe) {
		uint64_t ud = cqe->user_data;

		seen++;
		if (ud == UD_EPOLL) {
			ep = 1;
			if (!(cqe->flags & IORING_CQE_F_MORE))
				watch_epoll(w); /* the multishot poll ended: arm it again */
		} else if (ud) {
			struct uop *op = (struct uop *)(uintptr_t)ud;

			w->u_inflight--;
			w->u_cur = NULL;
			if (cqe->flags & IORING_CQE_F_BUFFER)
				w->u_cur = w->u_bufs + (size_t)(cqe->flags >> IORING_CQE_BUFFER_SHIFT) * URING_BUF;
			op->cb(w, op, cqe->res);
			if (cqe->flags & IORING_CQE_F_BUFFER)
				buf_return(w, cqe->flags >> IORING_CQE_BUFFER_SHIFT);
		}
	}
	io_uring_cq_advance(w->ring, seen);
	return ep;
}

/* <op> is called at the completion of <s>: counted until then (uring_drain) */
static void track(struct worker *w, struct io_uring_sqe *s, struct uop *op)
{
	io_uring_sqe_set_data(s, op);
	w->u_inflight++;
}

void uring_recv(struct worker *w, struct uop *op, int fd, void *buf, size_t len)
{
	struct io_uring_sqe *s = sqe_get(w);

	io_uring_prep_recv(s, fd, buf, len, 0);
	track(w, s, op);
}

void uring_recv_pooled(struct worker *w, struct uop *op, int fd)
{
	struct io_uring_sqe *s = sqe_get(w);

	io_uring_prep_recv(s, fd, NULL, URING_BUF, 0);
	s->flags |= IOSQE_BUFFER_SELECT;
	s->buf_group = BGID;
	track(w, s, op);
}

void uring_sendmsg(struct worker *w, struct uop *op, int fd, const struct msghdr *m, int flags)
{
	struct io_uring_sqe *s = sqe_get(w);

	io_uring_prep_sendmsg(s, fd, m, (unsigned)(flags | MSG_NOSIGNAL));
	track(w, s, op);
}

void uring_send(struct worker *w, struct uop *op, int fd, const void *buf, size_t len, int flags)
{
	struct io_uring_sqe *s = sqe_get(w);

	io_uring_prep_send(s, fd, buf, len, flags | MSG_NOSIGNAL);
	track(w, s, op);
}

void uring_cancel_fd(struct worker *w, int fd)
{
	struct io_uring_sqe *s = sqe_get(w);

	io_uring_prep_cancel_fd(s, fd, IORING_ASYNC_CANCEL_ALL);
	io_uring_sqe_set_data64(s, 0);
}

void uring_drain(struct worker *w)
{
	struct io_uring_sqe *s;

	if (!w->ring || !w->u_inflight)
		return;
	s = sqe_get(w);
	io_uring_prep_cancel64(s, 0, IORING_ASYNC_CANCEL_ANY);
	io_uring_sqe_set_data64(s, 0);
	for (int i = 0; i < 100 && w->u_inflight; i++) {
		uring_wait(w, 10000);
		uring_reap(w);
	}
}

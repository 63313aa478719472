/* The io_uring backend (--io-uring): the worker waits on a ring; clear-text HTTP/1 reads and writes go through it, epoll rides along as one poll. */
#ifndef HX_URING_H
#define HX_URING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct worker;

/* what a completion hands back: every operation starts with one */
struct uop {
	void (*cb)(struct worker *w, struct uop *op, int res);
};

/* Creates the worker's ring, in the worker's own thread. Returns 0, or -1
 * (the worker then stays on epoll alone). */
int uring_init(struct worker *w);
void uring_free(struct worker *w);

/* Submits what was queued and waits at most <us> for completions or for the
 * epoll set to have events. */
void uring_wait(struct worker *w, uint64_t us);
/* Runs the completions that arrived; returns 1 when the epoll set must be
 * read (without waiting) this turn. */
int uring_reap(struct worker *w);

/* queue one operation; its completion calls op->cb */
void uring_recv(struct worker *w, struct uop *op, int fd, void *buf, size_t len);
/* a recv whose buffer the kernel picks from the worker's pool when bytes
 * come (an idle connection holds none): in op->cb, uring_buf() is where they
 * are, until the callback returns */
void uring_recv_pooled(struct worker *w, struct uop *op, int fd);
const char *uring_buf(const struct worker *w);
/* the size of the pool's buffers: the most one pooled recv returns */
#define URING_BUF 2048
void uring_sendmsg(struct worker *w, struct uop *op, int fd, const struct msghdr *m, int flags);
void uring_send(struct worker *w, struct uop *op, int fd, const void *buf, size_t len, int flags);
/* cancels every operation on <fd>; they complete with -ECANCELED */
void uring_cancel_fd(struct worker *w, int fd);
/* at exit: cancels what is in flight and runs the completions until none is
 * left (at most a second), so that no buffer is freed under the kernel */
void uring_drain(struct worker *w);

#endif

/* The io_uring backend of a loop (--io-uring): the loop waits on a ring, operations complete through it, epoll rides along as one poll. */
#ifndef HX_URING_H
#define HX_URING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct loop;
struct uring;

/* what a completion hands back: every operation starts with one */
struct uop {
	void (*cb)(struct loop *l, struct uop *op, int res);
};

/* A ring that also watches the epoll set <epfd>, made in the thread that
 * will use it; NULL after one line on stderr when the kernel refuses
 * (<id> names the thread in it). */
struct uring *uring_new(int epfd, int id);
void uring_free(struct uring *u);

/* Submits what was queued and waits at most <us> for completions or for the
 * epoll set to have events. */
void uring_wait(struct uring *u, uint64_t us);
/* Runs the completions that arrived, each op->cb(l, ...); returns 1 when
 * the epoll set must be read (without waiting) this turn. */
int uring_reap(struct uring *u, struct loop *l);
/* whether the epoll read of this turn may have left events behind */
void uring_epoll_more(struct uring *u, int more);

/* queue one operation; its completion calls op->cb */
void uring_recv(struct uring *u, struct uop *op, int fd, void *buf, size_t len);
/* a recv whose buffer the kernel picks from the ring's pool when bytes
 * come (an idle connection holds none): in op->cb, uring_buf() is where they
 * are, until the callback returns */
void uring_recv_pooled(struct uring *u, struct uop *op, int fd);
const char *uring_buf(const struct uring *u);
/* the size of the pool's buffers: the most one pooled recv returns */
#define URING_BUF 2048
void uring_sendmsg(struct uring *u, struct uop *op, int fd, const struct msghdr *m, int flags);
void uring_send(struct uring *u, struct uop *op, int fd, const void *buf, size_t len, int flags);
/* cancels every operation on <fd>; they complete with -ECANCELED */
void uring_cancel_fd(struct uring *u, int fd);
/* at exit: cancels what is in flight and runs the completions until none is
 * left (at most a second), so that no buffer is freed under the kernel */
void uring_drain(struct uring *u, struct loop *l);

#endif

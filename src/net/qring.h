/* Many sockets' calls in one system call: an io_uring whose sends and reads, each told not to wait, complete as they are submitted. */
#ifndef HX_QRING_H
#define HX_QRING_H

#include <sys/socket.h>

#define QRING_OPS 64 /* calls queued before a qring_run at most */

struct qring;

/* a ring, in the thread that will use it; NULL when the kernel refuses
 * (errno), the caller then makes its calls one by one */
struct qring *qring_new(void);
void qring_free(struct qring *r);

/* queue a sendmsg / recvmsg of <fd> with <m> (MSG_DONTWAIT: a full or an
 * empty socket answers -EAGAIN, no call waits); <m> and what it points to
 * stay valid until qring_run returns. Its result is res[i] of that run, i
 * its rank among the queued. -1 when QRING_OPS are queued already. */
int qring_sendmsg(struct qring *r, int fd, const struct msghdr *m);
int qring_recvmsg(struct qring *r, int fd, struct msghdr *m);

/* submits what was queued in one system call and waits for all of it
 * (none waits: MSG_DONTWAIT); each one's result, bytes or -errno, in <res>
 * by rank. Returns how many ran. */
unsigned qring_run(struct qring *r, int *res);

#endif

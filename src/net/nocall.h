/* Socket calls that are no cancellation points: the kernel's recv, send, writev and sendmsg, without libc's cancel bookkeeping. */
#ifndef HX_NOCALL_H
#define HX_NOCALL_H

#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* WHY: glibc's recv() and writev() are cancellation points; in a process
 * with threads each call turns asynchronous cancellation on and off around
 * the syscall, about 50 instructions, a third of what the h1 request's
 * recv and writev cost in user space (bench/cg). No thread here is ever
 * cancelled. syscall() returns and sets errno as the wrappers do. */
static inline ssize_t nc_recv(int fd, void *buf, size_t len, int flags)
{
	return syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL);
}

static inline ssize_t nc_send(int fd, const void *buf, size_t len, int flags)
{
	return syscall(SYS_sendto, fd, buf, len, flags, NULL, 0);
}

static inline ssize_t nc_writev(int fd, const struct iovec *iov, int iovcnt)
{
	return syscall(SYS_writev, fd, iov, iovcnt);
}

static inline ssize_t nc_sendmsg(int fd, const struct msghdr *m, int flags)
{
	return syscall(SYS_sendmsg, fd, m, flags);
}

#endif

/* Out of file descriptors: a reserve one to accept and answer the connection at the head of the backlog. */
#ifndef HX_NOFD_H
#define HX_NOFD_H

#include <errno.h>
#include <stdint.h>

/* one per worker: the descriptor held back, when the last warning went out */
struct nofd {
	int fd;
	uint64_t warned_ms;
};

/* <err> (an errno) says the process or the system is out of descriptors */
static inline int nofd_out(int err)
{
	return err == EMFILE || err == ENFILE;
}

int nofd_init(struct nofd *r);
void nofd_free(struct nofd *r);
/* accept(2) with the reserve spent on it (-1: none to spend, or accept4's
 * error); nofd_restore() after the connection is closed */
int nofd_accept(struct nofd *r, int lfd, int flags);
int nofd_restore(struct nofd *r);
/* accept(2) on <lfd> failed for want of descriptors: take the next connection
 * with the reserve, answer it (503 on clear, a TLS alert on <tls>) and close it.
 * 0: one was answered, the backlog may hold more; -1: none (empty backlog, or
 * no reserve left to spend) */
int nofd_refuse(struct nofd *r, int lfd, int tls, uint64_t now_ms);

#endif

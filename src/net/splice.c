/* Zero-copy clear-text bodies: pipes filled once by vmsplice, tee'd per response, spliced to sockets. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "body.h"
#include "common.h"
#include "splice.h"
#include "xprt.h"

#define PAGE 4096

static char *src_buf[2]; /* page-aligned: a pipe slot holds one whole page */
static size_t src_size;  /* bytes in each, a whole number of pages */

int spl_global_init(size_t size)
{
	src_size = (size + PAGE - 1) / PAGE * PAGE;
	for (int k = 0; k < 2; k++) {
		if (posix_memalign((void **)&src_buf[k], PAGE, src_size))
			return -1;
		for (size_t off = 0; off < src_size;) {
			const char *p;
			size_t n = body_slice(off, src_size - off, k, &p);

			memcpy(src_buf[k] + off, p, n);
			off += n;
		}
	}
	return 0;
}

void spl_global_free(void)
{
	for (int k = 0; k < 2; k++) {
		free(src_buf[k]);
		src_buf[k] = NULL;
	}
}

uint32_t spl_period(int random)
{
	return random ? 1 : BODY_LINE;
}

/* sets the capacity of the pipe <fd>: what the kernel granted, or -1 */
static long pipe_size(int fd, size_t want)
{
	long got = fcntl(fd, F_SETPIPE_SZ, (int)want);

	/* WHY: above /proc/sys/fs/pipe-max-size an unprivileged user gets
	 * EPERM; the default capacity still works */
	if (got < 0)
		got = fcntl(fd, F_GETPIPE_SZ);
	return got;
}

/* a non-blocking pipe of about <want> bytes, and at least *cap when set */
static int open_pipe(int fd[2], size_t want, uint32_t *cap)
{
	long got;

	if (pipe2(fd, O_NONBLOCK | O_CLOEXEC) < 0)
		return -1;
	got = pipe_size(fd[0], want);
	/* WHY: a smaller pipe than the sources would cut tees mid-period */
	if (got < PAGE || (*cap && (uint32_t)got < *cap)) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	*cap = (uint32_t)got;
	return 0;
}

/* fills a source pipe with <len> bytes of <buf>, by reference */
static int fill_source(int wr, const char *buf, size_t len)
{
	struct iovec iov = { (void *)buf, len };

	while (iov.iov_len) {
		ssize_t n = vmsplice(wr, &iov, 1, 0);

		if (n <= 0)
			return -1;
		iov.iov_base = (char *)iov.iov_base + n;
		iov.iov_len -= (size_t)n;
	}
	return 0;
}

void spl_init(struct splicer *s)
{
	memset(s, 0, sizeof(*s));
	s->src_rd[0] = s->src_rd[1] = s->src_wr[0] = s->src_wr[1] = -1;
	for (int k = 0; k < 2; k++) {
		int fd[2];
		uint32_t cap = 0, len;

		if (!src_buf[k] || open_pipe(fd, src_size, &cap) < 0)
			return;
		s->src_rd[k] = fd[0];
		s->src_wr[k] = fd[1];
		/* whole periods only: the next tee starts at the pattern's start */
		len = (uint32_t)MIN((size_t)cap, src_size);
		len -= len % spl_period(k);
		if (fill_source(fd[1], src_buf[k], len) < 0)
			return;
		s->src_len[k] = len;
		s->cap = k ? MIN(s->cap, cap) : cap;
	}
	s->ok = 1;
}

static void close_pipe(struct spipe *p)
{
	close(p->rd);
	close(p->wr);
	free(p);
}

void spl_free(struct splicer *s)
{
	while (s->free) {
		struct spipe *p = s->free;

		s->free = p->next;
		close_pipe(p);
	}
	for (int k = 0; k < 2; k++) {
		if (s->src_rd[k] >= 0)
			close(s->src_rd[k]);
		if (s->src_wr[k] >= 0)
			close(s->src_wr[k]);
	}
	s->ok = 0;
}

struct spipe *spl_get(struct splicer *s)
{
	struct spipe *p = s->free;
	int fd[2];
	uint32_t cap = s->cap;

	if (p) {
		s->free = p->next;
		return p;
	}
	if (!(p = calloc(1, sizeof(*p))))
		return NULL;
	if (open_pipe(fd, s->cap, &cap) < 0) {
		free(p);
		return NULL;
	}
	p->rd = fd[0];
	p->wr = fd[1];
	return p;
}

void spl_put(struct splicer *s, struct spipe *p)
{
	if (p->len) {
		close_pipe(p);
		return;
	}
	p->next = s->free;
	s->free = p;
}

long spl_fill(struct splicer *s, struct spipe *p, int random, uint64_t want)
{
	size_t n = (size_t)MIN(want, (uint64_t)s->src_len[random]);
	ssize_t r;

	do
		r = tee(s->src_rd[random], p->wr, n, SPLICE_F_NONBLOCK);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return -1;
	p->len += (uint32_t)r;
	return r;
}

long spl_out(struct spipe *p, int fd, int more)
{
	unsigned int fl = SPLICE_F_MOVE | SPLICE_F_NONBLOCK | (more ? SPLICE_F_MORE : 0);
	ssize_t r;

	do
		r = splice(p->rd, NULL, fd, NULL, p->len, fl);
	while (r < 0 && errno == EINTR);
	if (r > 0) {
		p->len -= (uint32_t)r;
		return r;
	}
	if (r == 0)
		return XPRT_ERROR;
	return errno == EAGAIN ? XPRT_AGAIN : XPRT_ERROR;
}

/* Zero-copy clear-text bodies: pipes filled once by vmsplice, tee'd per response, spliced to sockets. */
#ifndef HX_SPLICE_H
#define HX_SPLICE_H

#include <stddef.h>
#include <stdint.h>

#define SPL_MIN (64 << 10) /* shorter bodies go out by writev with their head */

/* one connection's pipe, held while it sends a spliced body */
struct spipe {
	int rd, wr;
	uint32_t len;          /* bytes in the pipe, not yet on the socket */
	struct spipe *next;    /* free list */
};

/* a worker's pipes: one source per body kind, full and never drained,
 * and a free list of empty connection pipes */
struct splicer {
	int src_rd[2];         /* [0] pattern, [1] random bytes */
	int src_wr[2];
	uint32_t src_len[2];   /* payload in each source pipe */
	uint32_t cap;          /* capacity of every pipe */
	struct spipe *free;
	int ok;
};

/* Builds the page-aligned source bytes once, before the workers start.
 * <size> is the wanted pipe capacity (--rspbuf). Returns 0 or -1. */
int spl_global_init(size_t size);
void spl_global_free(void);

/* Opens and fills a worker's source pipes; s->ok stays 0 when the kernel
 * refuses (the worker then sends every body by writev). */
void spl_init(struct splicer *s);
void spl_free(struct splicer *s);

/* an empty connection pipe, or NULL */
struct spipe *spl_get(struct splicer *s);
/* back to the free list when empty, else closed */
void spl_put(struct splicer *s, struct spipe *p);

/* The source's bytes repeat every spl_period() bytes of the body, so a tee
 * must start at a body offset that is a multiple of it. */
uint32_t spl_period(int random);

/* Tees at most <want> body bytes into the empty pipe <p>: the bytes the
 * pipe now holds, or -1. */
long spl_fill(struct splicer *s, struct spipe *p, int random, uint64_t want);

/* Splices the pipe's bytes to the socket <fd>, with SPLICE_F_MORE when <more>:
 * the bytes moved, XPRT_AGAIN or XPRT_ERROR. */
long spl_out(struct spipe *p, int fd, int more);

#endif

/* multipart/byteranges made as it is pulled: each part's head, then its slice of the pattern, never the body whole. */
#ifndef HX_PARTS_H
#define HX_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "cond.h"
#include "msg-t.h"

/* the longest part head: CRLF, the boundary, Content-Type, a Content-Range
 * of three 20-digit numbers */
#define PARTS_HEAD_MAX 160

/* What a multipart answer holds while it is pulled: its parts' heads and
 * the close delimiter, formatted once, and where each starts in the body.
 * The parts' bytes are slices of the shared pattern (or random bytes). */
struct parts {
	struct hspan sp[COND_SPANS];   /* the parts, copied: the head's are the thread's scratch */
	unsigned n;
	int random;                    /* their bytes random (R=1), else the pattern */
	uint64_t at[COND_SPANS + 2];   /* body offset of head i; [n]: the close delimiter, [n + 1]: the end */
	uint16_t text[COND_SPANS + 2]; /* where head i starts in head[]; [n + 1]: its end */
	char head[COND_SPANS * PARTS_HEAD_MAX + 32];
};

/* The length of the multipart body of the <n> parts <sp> of a <full> body. */
uint64_t parts_len(const struct hspan *sp, unsigned n, uint64_t full);
/* <m> made for those parts (copied into it, of random bytes when
 * <random>): the heads formatted, their places counted. */
void parts_make(struct parts *m, const struct hspan *sp, unsigned n, uint64_t full, int random);
/* Points <*ptr> at the body bytes at <off> and returns how many follow
 * contiguously, at most <want> (0 past the end): a head's text in <m>, or
 * the pattern (random bytes) at the part's offset. */
size_t parts_slice(const struct parts *m, uint64_t off, size_t want, const char **ptr);

#endif

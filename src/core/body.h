/* Prebuilt response bodies: the 50-byte-line pattern and random bytes, sliced without copying. */
#ifndef HX_BODY_H
#define HX_BODY_H

#include <stddef.h>
#include <stdint.h>

#define BODY_LINE 50

/* the line the pattern repeats, for those who check it (hxload) */
extern const char body_line[BODY_LINE + 1];

/* Builds the shared buffers once, before the workers start: <size> is the
 * longest slice a caller may ask for (the response-buffer tunable). */
int body_init(size_t size);
void body_free(void);

/* The longest slice body_slice() returns (WHY inline: each response step
 * asks it) */
extern size_t body_max_slice;
static inline size_t body_slice_max(void)
{
	return body_max_slice;
}

/* Points <*ptr> at the body bytes that start at offset <off> of the response
 * and returns how many follow contiguously, at most <want>. The pattern is
 * continuous: the slice at off+n goes on where this one stopped. */
size_t body_slice(uint64_t off, size_t want, int random, const char **ptr);

/* Copies the <n> body bytes at offset <off> (the pattern, or random bytes)
 * into <dst>: for bodies made whole (multipart, events, gRPC messages) */
void body_copy(char *dst, uint64_t off, uint64_t n, int random);

/* a run of 'x' bytes for header padding, PAD_RUN long */
#define PAD_RUN 4096
extern const char body_pad[PAD_RUN];

#endif

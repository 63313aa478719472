/* Small helpers shared by every module: branch hints, sizes, containers. */
#ifndef HX_COMMON_H
#define HX_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)     ((a) < (b) ? (a) : (b))
#define MAX(a, b)     ((a) > (b) ? (a) : (b))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* Return conventions, one per kind of function (doc/ARCHITECTURE.md):
 * - actions and set-up: 0 done, -1 failed (errno set, or one line printed,
 *   or the caller still owns what it passed);
 * - decoders: > 0 bytes consumed, HX_AGAIN the input is a prefix of
 *   something longer, -1 malformed (the reason in the decoder's err);
 * - I/O: >= 0 bytes moved (0 read: end of stream), HX_AGAIN nothing now
 *   (wait for the next event), -1 failed.
 * So "need more input" is HX_AGAIN everywhere, and -1 is always a failure. */
#define HX_AGAIN (-2)

/* a slice of bytes that belongs to somebody else */
struct ist {
	const char *ptr;
	size_t len;
};

#define IST(s) ((struct ist){ (s), sizeof(s) - 1 })

#endif

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

/* The return convention (doc/ARCHITECTURE.md), negative for anything but
 * success:
 * - -1 failed (errno set, or one line printed, or the reason in the
 *   caller's err; the caller still owns what it passed);
 * - HX_AGAIN not now: wait for the next event, or for more input;
 * - >= 0 success: 0 for an action or a step that completed (a flush that
 *   sent all, a handshake), a count for I/O (bytes moved, 0 read: the end
 *   of the stream) and for decoders (bytes consumed).
 * Predicates return 1 or 0; more outcomes than these are an enum. */
#define HX_AGAIN (-2)

/* a slice of bytes that belongs to somebody else */
struct ist {
	const char *ptr;
	size_t len;
};

#define IST(s) ((struct ist){ (s), sizeof(s) - 1 })

#endif

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

/* a slice of bytes that belongs to somebody else */
struct ist {
	const char *ptr;
	size_t len;
};

#define IST(s) ((struct ist){ (s), sizeof(s) - 1 })

#endif

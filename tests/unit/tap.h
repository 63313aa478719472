/* A minimal TAP producer for the unit tests: ok(), is_int(), is_str(), done_testing(). */
#ifndef HX_TAP_H
#define HX_TAP_H

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int tap_n, tap_fail;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static inline int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static inline int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", pass ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass) {
		tap_fail++;
		printf("#   Failed at %s line %d\n", file, line);
	}
	return pass;
}

#define is_int(got, want, ...) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (!ok(g_ == w_, __VA_ARGS__)) \
		printf("#          got: %lld\n#     expected: %lld\n", g_, w_); \
} while (0)

#define is_mem(got, glen, want, ...) do { \
	size_t gl_ = (glen), wl_ = strlen(want); \
	if (!ok(gl_ == wl_ && !memcmp((got), (want), wl_), __VA_ARGS__)) \
		printf("#          got: '%.*s'\n#     expected: '%s'\n", (int)gl_, (const char *)(got), (want)); \
} while (0)

#define is_str(got, want, ...) do { \
	const char *gs_ = (got), *ws_ = (want); \
	if (!ok(!strcmp(gs_, ws_), __VA_ARGS__)) \
		printf("#          got: '%s'\n#     expected: '%s'\n", gs_, ws_); \
} while (0)

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_fail ? 1 : 0;
}

/* Copies <s> so that it ends exactly at a page boundary followed by an
 * unmapped page: a parser that reads one byte too far faults. */
static inline const char *guarded(const char *s, size_t len)
{
	static char *map;
	static size_t maplen;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = (len + pg - 1) / pg + 1;

	if (map)
		munmap(map, maplen);
	maplen = (pages + 1) * pg;
	map = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(map + pages * pg, pg, PROT_NONE);
	memcpy(map + pages * pg - len, s, len);
	return map + pages * pg - len;
}

#endif

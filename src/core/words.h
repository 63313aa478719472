/* Bytes by words: eight loaded at once or two overlapping fours, ASCII letters made small eight at a time, a field name compared to a literal whatever its case. */
#ifndef HX_WORDS_H
#define HX_WORDS_H

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "common.h"

#define ONES 0x0101010101010101ULL /* one in each byte of a word */

/* the bytes at <p>: eight, or two overlapping fours of 4 to 7 */
static inline uint64_t ld8(const char *p)
{
	uint64_t x;

	memcpy(&x, p, 8);
	return x;
}

static inline uint64_t ld4x2(const char *p, size_t n)
{
	uint32_t a, b;

	memcpy(&a, p, 4);
	memcpy(&b, p + n - 4, 4);
	return a | (uint64_t)b << 32;
}

/* <x> with its bytes 'A' to 'Z' made small, the others as they are */
static inline uint64_t lower8(uint64_t x)
{
	uint64_t h = x & ~(ONES * 0x80);
	uint64_t up = ((h + ONES * (0x80 - 'A')) ^ (h + ONES * (0x80 - 'Z' - 1))) & ~x & ONES * 0x80;

	return x | up >> 2;
}

/* <a> is <lit> but for case (ASCII letters). WHY words, not strncasecmp:
 * the call was 58 of an h1 request's instructions for its one Host, and
 * about 45 of each of hxload's 4 an hxterm response; inlined, as the
 * literal's length folds the branches away */
static inline __attribute__((always_inline)) int ieq_n(struct ist a, const char *lit, size_t n)
{
	size_t i;

	if (a.len != n)
		return 0;
	if (n < 4)
		return !strncasecmp(a.ptr, lit, n);
	if (n < 8)
		return lower8(ld4x2(a.ptr, n)) == lower8(ld4x2(lit, n));
	for (i = 0; i + 8 <= n; i += 8)
		if (lower8(ld8(a.ptr + i)) != lower8(ld8(lit + i)))
			return 0;
	return i == n || lower8(ld8(a.ptr + n - 8)) == lower8(ld8(lit + n - 8));
}

#define ieq(a, lit) ieq_n((a), (lit), sizeof(lit) - 1)

#endif

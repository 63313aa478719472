/* Integer and time formatting straight into an output buffer: no snprintf on the hot path. */
#ifndef HX_FMT_H
#define HX_FMT_H

#include <stdint.h>
#include <string.h>

/* Each writer stores at <p> and returns the end of what it wrote. The caller
 * guarantees room: 20 bytes for a u64, 16 for hex, 24 for a ms time. */
char *fmt_u64_big(char *p, uint64_t v);
char *fmt_hex(char *p, uint64_t v);
char *fmt_ms3(char *p, int64_t ns);

extern const char fmt_digits2[201];

/* WHY inline for under 1000: nearly every value on the hot path is a status,
 * a short size, a 0 ms wait; the length loop and the call were 300 of
 * 3,637 instructions an HTTP/1 request (bench/cg) */
static inline char *fmt_u64(char *p, uint64_t v)
{
	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	if (v < 100) {
		memcpy(p, fmt_digits2 + v * 2, 2);
		return p + 2;
	}
	if (v < 1000) {
		*p = (char)('0' + v / 100);
		memcpy(p + 1, fmt_digits2 + (v % 100) * 2, 2);
		return p + 3;
	}
	return fmt_u64_big(p, v);
}

static inline char *fmt_mem(char *p, const void *s, size_t len)
{
	memcpy(p, s, len);
	return p + len;
}

#define fmt_lit(p, s) fmt_mem((p), (s), sizeof(s) - 1)

#endif

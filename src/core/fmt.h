/* Integer and time formatting straight into an output buffer: no snprintf on the hot path. */
#ifndef HX_FMT_H
#define HX_FMT_H

#include <stdint.h>
#include <string.h>

/* Each writer stores at <p> and returns the end of what it wrote. The caller
 * guarantees room: 20 bytes for a u64, 16 for hex, 24 for a ms time. */
char *fmt_u64_big(char *p, uint64_t v);
char *fmt_hex(char *p, uint64_t v);
char *fmt_ms3_big(char *p, int64_t ns);

extern const char fmt_digits2[201];
/* "0.000" to "0.999", each padded to 8 bytes, and "100" to "999" (the
 * first hundred unused): prebuilt digits, fmt.c fills them at start */
extern char fmt_ms3_small[1000][8];
extern char fmt_digits3[1000][3];

/* WHY inline for under 1000: nearly every value on the hot path is a status,
 * a short size, a 0 ms wait; the length loop and the call were 300 of
 * 3,637 instructions an HTTP/1 request (bench/cg). Three digits from the
 * table: their divisions were 27 more of 2,588 (a status, a size twice) */
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
		memcpy(p, fmt_digits3[v], 3);
		return p + 3;
	}
	return fmt_u64_big(p, v);
}

/* <ns> as milliseconds with exactly three decimals, rounded to the
 * microsecond (none below 0). WHY a table under a millisecond: nearly every
 * X-req and X-rsp time is, and one 8-byte move from prebuilt digits was a
 * call and its divisions, 60 of an h1 request's instructions (bench/cg) */
static inline char *fmt_ms3(char *p, int64_t ns)
{
	if ((uint64_t)ns < 999500) {
		memcpy(p, fmt_ms3_small[((uint64_t)ns + 500) / 1000], 8);
		return p + 5;
	}
	return fmt_ms3_big(p, ns);
}

/* <len> bytes of <s> at <p>, up to 64 in overlapping 16, 8 or 4-byte
 * moves. WHY not memcpy alone: a head's names and values are 5 to 60
 * bytes of a length known only at run time, and the library call was ~20
 * instructions each, a dozen a response (bench/cg) */
static inline void fmt_copy16(char *p, const char *s)
{
	char t[16];

	memcpy(t, s, 16);
	memcpy(p, t, 16);
}

static inline void fmt_copy_small(char *p, const char *s, size_t len)
{
	uint64_t a, b;
	uint32_t c, d;

	if (len > 16) {
		if (len > 32) {
			fmt_copy16(p + 16, s + 16);
			fmt_copy16(p + len - 32, s + len - 32);
		}
		fmt_copy16(p, s);
		fmt_copy16(p + len - 16, s + len - 16);
	} else if (len >= 8) {
		memcpy(&a, s, 8);
		memcpy(&b, s + len - 8, 8);
		memcpy(p, &a, 8);
		memcpy(p + len - 8, &b, 8);
	} else if (len >= 4) {
		memcpy(&c, s, 4);
		memcpy(&d, s + len - 4, 4);
		memcpy(p, &c, 4);
		memcpy(p + len - 4, &d, 4);
	} else if (len) {
		p[0] = s[0];
		p[len / 2] = s[len / 2];
		p[len - 1] = s[len - 1];
	}
}

static inline char *fmt_mem(char *p, const void *s, size_t len)
{
	if (!__builtin_constant_p(len) && len <= 64)
		fmt_copy_small(p, s, len);
	else
		memcpy(p, s, len);
	return p + len;
}

#define fmt_lit(p, s) fmt_mem((p), (s), sizeof(s) - 1)

#endif

/* Integer and time formatting straight into an output buffer. */
#include "fmt.h"

static const char digits2[201] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

char *fmt_u64(char *p, uint64_t v)
{
	char tmp[20];
	char *t = tmp + sizeof(tmp);
	size_t n;

	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		*--t = digits2[d + 1];
		*--t = digits2[d];
	}
	if (v >= 10) {
		*--t = digits2[v * 2 + 1];
		*--t = digits2[v * 2];
	} else {
		*--t = (char)('0' + v);
	}
	n = (size_t)(tmp + sizeof(tmp) - t);
	memcpy(p, t, n);
	return p + n;
}

char *fmt_hex(char *p, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	int shift = 60;

	while (shift > 0 && !(v >> shift))
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		*p++ = hex[(v >> shift) & 15];
	return p;
}

/* <ns> as milliseconds with exactly three decimals, rounded to the microsecond */
char *fmt_ms3(char *p, int64_t ns)
{
	uint64_t us;
	unsigned frac;

	if (ns < 0)
		ns = 0;
	us = ((uint64_t)ns + 500) / 1000;
	p = fmt_u64(p, us / 1000);
	frac = (unsigned)(us % 1000);
	*p++ = '.';
	*p++ = (char)('0' + frac / 100);
	*p++ = (char)('0' + frac / 10 % 10);
	*p++ = (char)('0' + frac % 10);
	return p;
}

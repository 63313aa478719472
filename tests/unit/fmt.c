/* Unit tests of the integer and time formatters. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "tap.h"

static void check_u64(uint64_t v)
{
	char buf[32], want[32];
	char *e = fmt_u64(buf, v);

	snprintf(want, sizeof(want), "%" PRIu64, v);
	is_mem(buf, (size_t)(e - buf), want, "fmt_u64(%" PRIu64 ")", v);
}

int main(void)
{
	char buf[64], *e;
	uint64_t v = 1;

	check_u64(0);
	check_u64(9);
	check_u64(10);
	check_u64(99);
	check_u64(100);
	check_u64(UINT64_MAX);
	for (int i = 0; i < 19; i++, v *= 10) {
		check_u64(v - 1);
		check_u64(v);
	}
	{
		/* WHY each: 100 to 999 come from a table built at start */
		int same = 1;
		char want[8];

		for (unsigned n = 0; n < 1100; n++) {
			e = fmt_u64(buf, n);
			snprintf(want, sizeof(want), "%u", n);
			same &= (size_t)(e - buf) == strlen(want) && !memcmp(buf, want, strlen(want));
		}
		ok(same, "fmt_u64 of every value under 1100");
	}
	for (size_t n = 0; n <= 70; n++) {
		static const char src[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-_+=*&^%$#";
		char out[80];

		memset(out, '#', sizeof(out));
		e = fmt_mem(out, src, n);
		ok(e == out + n && !memcmp(out, src, n) && out[n] == '#', "fmt_mem of %zu bytes", n);
	}
	e = fmt_hex(buf, 0);
	is_mem(buf, (size_t)(e - buf), "0", "fmt_hex(0)");
	e = fmt_hex(buf, 0x1f);
	is_mem(buf, (size_t)(e - buf), "1f", "fmt_hex(0x1f)");
	e = fmt_hex(buf, UINT64_MAX);
	is_mem(buf, (size_t)(e - buf), "ffffffffffffffff", "fmt_hex(max)");
	e = fmt_ms3(buf, 0);
	is_mem(buf, (size_t)(e - buf), "0.000", "fmt_ms3(0)");
	e = fmt_ms3(buf, 1499);
	is_mem(buf, (size_t)(e - buf), "0.001", "fmt_ms3 rounds to the microsecond");
	e = fmt_ms3(buf, 300123456);
	is_mem(buf, (size_t)(e - buf), "300.123", "fmt_ms3(300.123456 ms)");
	e = fmt_ms3(buf, 45000);
	is_mem(buf, (size_t)(e - buf), "0.045", "fmt_ms3 keeps the fraction's zeros");
	e = fmt_ms3(buf, 5000000);
	is_mem(buf, (size_t)(e - buf), "5.000", "fmt_ms3(5 ms)");
	e = fmt_ms3(buf, -5);
	is_mem(buf, (size_t)(e - buf), "0.000", "fmt_ms3 clamps negatives");
	{
		/* WHY every 100 ns across the table's edge: under 999.5 us the
		 * prebuilt digits answer, above the arithmetic; both must agree
		 * with the rounding to the microsecond */
		int same = 1;
		char want[32];

		for (int64_t ns = -1000; ns < 1002000; ns += 100) {
			int64_t us = ns < 0 ? 0 : (ns + 500) / 1000;

			snprintf(want, sizeof(want), "%lld.%03lld", (long long)(us / 1000), (long long)(us % 1000));
			e = fmt_ms3(buf, ns);
			same &= (size_t)(e - buf) == strlen(want) && !memcmp(buf, want, strlen(want));
		}
		ok(same, "fmt_ms3 is the rounded microsecond from -1 us to 1.002 ms, table and arithmetic");
	}
	return done_testing();
}

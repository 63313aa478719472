/* hxload --handshakes (hs.c): the mix's grammar, and the interleave that gives each kind exactly its share, spread out. */
#include <stdint.h>
#include <string.h>

#include "lc_hs.h"
#include "tap.h"

static int parses(const char *arg, unsigned w[HS_KINDS])
{
	char why[200];

	return lc_hs_parse(arg, w, why, sizeof(why));
}

static void grammar(void)
{
	static const char *const bad[] = { "1:2", "-1:2:3", "0:0:0", "1:2:3:4", "a:b:c", "", "1::2", "1:2:3x",
					   "1:2: 3", "1000001:0:0", "99999999999999999999:1:1" };
	unsigned w[HS_KINDS];

	ok(parses("70:25:5", w) == 0 && w[0] == 70 && w[1] == 25 && w[2] == 5, "70:25:5 reads as 70, 25, 5");
	ok(parses("0:1:0", w) == 0 && w[1] == 1, "0:1:0: resumed only");
	ok(parses("1000000:0:1", w) == 0 && w[0] == 1000000, "shares up to a million");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(parses(bad[i], w) < 0, "'%s' refused", bad[i]);
}

/* <n> picks of mix <w>: the count of each kind, and the longest gap between two 0-RTT ones */
static void picks(const unsigned w[HS_KINDS], int n, int count[HS_KINDS], int *gap)
{
	int64_t cur[HS_KINDS] = { 0 };
	int last = -1;

	memset(count, 0, HS_KINDS * sizeof(count[0]));
	*gap = 0;
	for (int i = 0; i < n; i++) {
		int k = lc_hs_next(cur, w);

		count[k]++;
		if (k == HS_0RTT) {
			if (last >= 0 && i - last > *gap)
				*gap = i - last;
			last = i;
		}
	}
}

static void interleave(void)
{
	const unsigned mix[HS_KINDS] = { 70, 25, 5 }, even[HS_KINDS] = { 1, 1, 0 }, one[HS_KINDS] = { 0, 0, 3 };
	int c[HS_KINDS], gap;

	picks(mix, 100, c, &gap);
	ok(c[0] == 70 && c[1] == 25 && c[2] == 5, "70:25:5 over 100: exactly 70, 25, 5 (%d, %d, %d)", c[0], c[1], c[2]);
	is_int(gap, 20, "... the 0-RTT ones spread out, one in every 20");
	picks(mix, 1000, c, &gap);
	ok(c[0] == 700 && c[1] == 250 && c[2] == 50, "... over 1000: 700, 250, 50");
	picks(mix, 50, c, &gap);
	ok(c[0] >= 34 && c[0] <= 36 && c[1] >= 12 && c[1] <= 13 && c[2] >= 2 && c[2] <= 3,
	   "... over 50, each within one of half its share (%d, %d, %d)", c[0], c[1], c[2]);
	picks(even, 10, c, &gap);
	ok(c[0] == 5 && c[1] == 5 && c[2] == 0, "1:1:0 over 10: 5 and 5, no 0-RTT");
	picks(one, 7, c, &gap);
	ok(c[2] == 7 && gap == 1, "0:0:3: every one 0-RTT");
}

int main(void)
{
	grammar();
	interleave();
	return done_testing();
}

/* The number language of every numeric item: decimal with k/m/g/r suffixes, A-B, P~Q, v:w+v:w+v. */
#include <math.h>
#include <string.h>

#include "common.h"
#include "num.h"

#define NUM_MAX (1ULL << 62) /* every value is capped here: no overflow anywhere */

/* v = v * 10 + the digit <c>: -1 past NUM_MAX, checked before the
 * product so that no value wraps on its way there */
static inline int digit_in(uint64_t *v, char c)
{
	uint64_t d = (uint64_t)(c - '0');

	/* WHY two constants: one compare per digit on the hot path (s=100) */
	if (*v >= NUM_MAX / 10 && (*v > NUM_MAX / 10 || d > NUM_MAX % 10))
		return -1;
	*v = *v * 10 + d;
	return 0;
}

/* Parses decimal digits then any of k/m/g/r, each at most once, any order.
 * Decimal only: "010" is ten (C's base-0 rules are a defect we fix). */
static int num_simple(const char *s, size_t len, struct rng *r, uint64_t *out,
		      const char **err)
{
	uint64_t v = 0, mult = 1;
	int rnd = 0, seen = 0;
	size_t i = 0;

	if (!len || s[0] < '0' || s[0] > '9')
		return *err = "expected a decimal number", -1;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		if (digit_in(&v, s[i]) < 0)
			return *err = "number too large", -1;
	for (; i < len; i++) {
		int bit;
		uint64_t m;

		switch (s[i]) {
		case 'k': bit = 1; m = 1ULL << 10; break;
		case 'm': bit = 2; m = 1ULL << 20; break;
		case 'g': bit = 4; m = 1ULL << 30; break;
		case 'r': bit = 8; m = 1; rnd = 1; break;
		default: return *err = "unknown suffix (use k, m, g, r)", -1;
		}
		if (seen & bit)
			return *err = "repeated suffix", -1;
		seen |= bit;
		mult *= m;
	}
	if (v && mult > NUM_MAX / v)
		return *err = "number too large", -1;
	v *= mult;
	*out = rnd ? rng_range(r, 0, v) : v;
	return rnd;
}

int num_plain(const char *s, size_t len, uint64_t *out, const char **err)
{
	if (memchr(s, 'r', len))
		return *err = "suffix r is not allowed inside a range", -1;
	return num_simple(s, len, NULL, out, err) < 0 ? -1 : 0;
}

static int num_range(const char *s, size_t len, const char *dash,
		     struct rng *r, uint64_t *out, const char **err)
{
	uint64_t a, b;

	if (num_plain(s, (size_t)(dash - s), &a, err) < 0 ||
	    num_plain(dash + 1, len - (size_t)(dash + 1 - s), &b, err) < 0)
		return -1;
	if (a > b)
		return *err = "range A-B needs A <= B", -1;
	*out = rng_range(r, a, b);
	return 0;
}

/* P~Q: log-normal with median P and 99th percentile Q */
static int num_lognorm(const char *s, size_t len, const char *tilde,
		       struct rng *r, uint64_t *out, const char **err)
{
	uint64_t p, q;
	double sigma, v;

	if (num_plain(s, (size_t)(tilde - s), &p, err) < 0 ||
	    num_plain(tilde + 1, len - (size_t)(tilde + 1 - s), &q, err) < 0)
		return -1;
	if (p == 0 || q < p)
		return *err = "log-normal P~Q needs 0 < P <= Q", -1;
	sigma = (log((double)q) - log((double)p)) / 2.326347874; /* z of p99 */
	v = exp(log((double)p) + sigma * rng_normal(r));
	*out = v >= (double)NUM_MAX ? NUM_MAX : (uint64_t)(v + 0.5);
	return 0;
}

/* one value that is not a weighted list */
static int num_single(const char *s, size_t len, struct rng *r, uint64_t *out,
		      const char **err)
{
	const char *c;

	if ((c = memchr(s, '~', len)))
		return num_lognorm(s, len, c, r, out, err) < 0 ? -1 : 1;
	if ((c = memchr(s, '-', len)))
		return num_range(s, len, c, r, out, err) < 0 ? -1 : 1;
	return num_simple(s, len, r, out, err);
}

#define W_ONE 1000u /* a weight's unit: a thousandth of a percent */

/* a weight in percent, with up to 3 decimals ("99.9"): in W_ONE units */
static int weight_parse(const char *s, size_t len, unsigned *out)
{
	const char *dot = memchr(s, '.', len);
	size_t ilen = dot ? (size_t)(dot - s) : len, flen = dot ? len - ilen - 1 : 0;
	uint64_t w;
	const char *err;
	unsigned frac = 0;

	if (!ilen || (dot && (!flen || flen > 3)) || num_plain(s, ilen, &w, &err) < 0 || w > 100)
		return -1;
	for (size_t i = 0; i < 3; i++) {
		char c = i < flen ? dot[1 + i] : '0';

		if (c < '0' || c > '9')
			return -1;
		frac = frac * 10 + (unsigned)(c - '0');
	}
	*out = (unsigned)w * W_ONE + frac;
	return 0;
}

/* v:w+v:w+v: weights in percent (3 decimals at most: 99.9 leaves 0.1 % to
 * the rest), the last item takes what remains */
static int num_weighted(const char *s, size_t len, struct rng *r,
			uint64_t *out, const char **err)
{
	const char *end = s + len, *item = s;
	unsigned total = 0, pick = (unsigned)rng_range(r, 0, 100 * W_ONE - 1);
	int chosen = 0;

	while (item <= end) {
		const char *plus = memchr(item, '+', (size_t)(end - item));
		const char *iend = plus ? plus : end;
		const char *colon = memchr(item, ':', (size_t)(iend - item));
		unsigned w = 0;
		uint64_t v;

		if (colon) {
			if (weight_parse(colon + 1, (size_t)(iend - colon - 1), &w) < 0)
				return *err = "bad weight in v:w+v list (a percent, 3 decimals at most)", -1;
			if (total + w > 100 * W_ONE)
				return *err = "weights add up to more than 100", -1;
		} else if (plus) {
			return *err = "only the last item of v:w+v may omit its weight", -1;
		} else {
			w = 100 * W_ONE - total;
		}
		if (num_single(item, (size_t)((colon ? colon : iend) - item), r, &v, err) < 0)
			return -1;
		if (!chosen && pick < total + w) {
			*out = v;
			chosen = 1;
		}
		total += w;
		if (!plus)
			break;
		item = plus + 1;
	}
	if (total != 100 * W_ONE)
		return *err = "weights add up to less than 100", -1;
	return 0;
}

/* 1 with <out> set when <s> is digits alone, within NUM_MAX; else 0 */
static int num_digits(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len)
		return 0;
	/* WHY apart: 18 digits stay under 10^18 < NUM_MAX, no bound per digit */
	if (len <= 18) {
		for (size_t i = 0; i < len; i++) {
			unsigned d = (unsigned)(unsigned char)s[i] - '0';

			if (d > 9)
				return 0;
			v = v * 10 + d;
		}
		*out = v;
		return 1;
	}
	for (size_t i = 0; i < len; i++) {
		/* WHY 0 past NUM_MAX: the full parse names the error */
		if (s[i] < '0' || s[i] > '9' || digit_in(&v, s[i]) < 0)
			return 0;
	}
	*out = v;
	return 1;
}

int num_draw(const char *s, size_t len, struct rng *r, uint64_t *out,
	     const char **err)
{
	/* WHY first: most values are plain decimals (s=100), and the four
	 * memchr calls that tell the other forms apart cost more than them */
	if (num_digits(s, len, out))
		return 0;
	if (memchr(s, '+', len) || memchr(s, ':', len))
		return num_weighted(s, len, r, out, err) < 0 ? -1 : 1;
	return num_single(s, len, r, out, err);
}

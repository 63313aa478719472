/* Per-thread pseudo-random numbers (xoshiro256**): uniform, ranges, normal. */
#include <math.h>

#include "rng.h"

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&seed);
}

uint64_t rng_u64(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

uint64_t rng_range(struct rng *r, uint64_t lo, uint64_t hi)
{
	uint64_t span = hi - lo + 1;

	if (span == 0) /* the whole 64-bit range */
		return rng_u64(r);
	/* WHY: multiply-shift instead of modulo keeps the bias below 2^-64 * span */
	return lo + (uint64_t)(((unsigned __int128)rng_u64(r) * span) >> 64);
}

double rng_unit(struct rng *r)
{
	return (double)(rng_u64(r) >> 11) * 0x1.0p-53;
}

double rng_normal(struct rng *r)
{
	double u1 = 1.0 - rng_unit(r); /* (0, 1]: log() stays finite */
	double u2 = rng_unit(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* Per-thread pseudo-random numbers (xoshiro256**): uniform, ranges, normal. */
#ifndef HX_RNG_H
#define HX_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_u64(struct rng *r);
/* uniform in [lo, hi], both included */
uint64_t rng_range(struct rng *r, uint64_t lo, uint64_t hi);
/* uniform in [0, 1) */
double rng_unit(struct rng *r);
/* standard normal deviate */
double rng_normal(struct rng *r);

#endif

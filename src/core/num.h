/* The number language of every numeric item: decimal with k/m/g/r suffixes, A-B, P~Q, v:w+v:w+v. */
#ifndef HX_NUM_H
#define HX_NUM_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

/* Draws one value of the number language: digits with k/m/g/r suffixes,
 * A-B, P~Q and v:w+v:w+v. Returns 0 for a plain number, 1 for a random
 * form (drawn again, another value may come), or -1 with a reason in
 * <err>. */
int num_draw(const char *s, size_t len, struct rng *r, uint64_t *out,
	     const char **err);

/* A plain number: decimal digits and k/m/g suffixes, no random form.
 * Returns 0, or -1 with a reason in <err>. */
int num_plain(const char *s, size_t len, uint64_t *out, const char **err);

#endif

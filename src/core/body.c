/* Prebuilt response bodies: the 50-byte-line pattern and random bytes, sliced without copying. */
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "common.h"
#include "rng.h"

static char *pattern;  /* body_max_slice + BODY_LINE bytes of the line pattern */
static char *noise;    /* body_max_slice random bytes */
size_t body_max_slice; /* set once by body_init() */

const char body_pad[PAD_RUN] = { [0 ... PAD_RUN - 1] = 'x' };

const char body_line[BODY_LINE + 1] = ".123456789.123456789.123456789.123456789.12345678\n";

int body_init(size_t size)
{
	struct rng r;
	size_t plen = size + BODY_LINE;

	pattern = malloc(plen);
	noise = malloc(size);
	if (!pattern || !noise)
		return -1;
	for (size_t i = 0; i < plen; i++)
		pattern[i] = body_line[i % BODY_LINE];
	rng_seed(&r, 0x68787465726dULL);
	for (size_t i = 0; i < size; i += 8) {
		uint64_t v = rng_u64(&r);

		memcpy(noise + i, &v, MIN((size_t)8, size - i));
	}
	body_max_slice = size;
	return 0;
}

void body_free(void)
{
	free(pattern);
	free(noise);
	pattern = noise = NULL;
}

void body_copy(char *dst, uint64_t off, uint64_t n, int random)
{
	for (uint64_t done = 0; done < n;) {
		const char *src;
		size_t k = body_slice(off + done, (size_t)MIN(n - done, (uint64_t)SIZE_MAX), random, &src);

		memcpy(dst + done, src, k);
		done += k;
	}
}

size_t body_slice(uint64_t off, size_t want, int random, const char **ptr)
{
	size_t n = MIN(want, body_max_slice);

	if (random) {
		/* WHY: random bytes need no continuity, only variety; start
		 * somewhere that changes with the offset. */
		size_t start = (size_t)(off % body_max_slice);

		*ptr = noise + start;
		return MIN(n, body_max_slice - start);
	}
	*ptr = pattern + off % BODY_LINE;
	return n;
}

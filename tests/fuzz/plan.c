/* libFuzzer driver: the query language (items, numbers, percent-decoding) into a plan. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct plan p;
	static struct rng r;
	const struct plan_limits lim = { 1ULL << 40, 3600000, 0 };
	char *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	rng_seed(&r, size);
	plan_init(&p);
	if (plan_apply(&p, copy, size, &r, &lim) < 0) {
		/* the reason is one line */
		const char *nl = strchr(plan_err(&p), '\n');

		if (!nl || nl[1])
			abort();
	} else if (p.size > lim.max_size || p.wait_ms > lim.max_wait ||
		   p.nhdr > PLAN_MAX_FIELDS || p.ntrl > PLAN_MAX_FIELDS || (p.ext && p.ext->dec_used > PLAN_DEC_SIZE) ||
		   ((p.nhdr || p.ntrl) && !p.ext)) {
		abort();
	}
	free(copy);
	return 0;
}

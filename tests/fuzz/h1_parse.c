/* libFuzzer driver: the HTTP/1 request parser and header analysis, fed whole and in two splits. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "h1_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct h1_req req;
	const struct h1_limits lim = { 1024, 64 };
	struct h1_err err;
	struct h1_info in;
	size_t split = size ? data[0] % (size + 1) : 0;
	char *copy = malloc(size ? size : 1);
	int whole, part;

	if (!copy)
		return 0;
	memcpy(copy, data, size); /* an exact-size heap copy: ASan sees any over-read */
	whole = h1_parse_req(copy, size, &req, &lim, &err);
	if (whole > 0) {
		if ((size_t)whole > size)
			abort();
		h1_analyze(&req, &in, 1 << 20, &err);
	}
	/* a prefix must never parse to something the whole did not */
	part = h1_parse_req(copy, split, &req, &lim, &err);
	if (part > 0 && whole != part)
		abort();
	free(copy);
	return 0;
}

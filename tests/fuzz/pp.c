/* libFuzzer driver: the PROXY protocol reader, on the whole input and on each of its prefixes (each must wait, fail or give the same length). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "pp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pp_info pi;
	const char *why;
	char *buf;
	long whole;

	if (size > PP_MAX + 64 || !(buf = malloc(size ? size : 1)))
		return 0;
	memcpy(buf, data, size);
	whole = pp_parse(buf, size, &pi, &why);
	if (whole > (long)size || whole == 0)
		abort(); /* a length past the input, or nothing read */
	if (whole > 0 && (pi.version < 1 || pi.version > 2 || pi.alpn_len >= sizeof(pi.alpn)))
		abort();
	/* WHY: a prefix of a header must never be read as another header */
	for (size_t k = 0; whole > 0 && k < (size_t)whole; k++) {
		char *p = malloc(k ? k : 1);
		long r;

		if (!p)
			break;
		memcpy(p, data, k);
		r = pp_parse(p, k, &pi, &why);
		free(p);
		if (r != HX_AGAIN && r != -1)
			abort();
	}
	free(buf);
	return 0;
}

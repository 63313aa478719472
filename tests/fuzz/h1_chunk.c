/* libFuzzer driver: the chunked body decoder, fed in pieces whose sizes come from the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "h1_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct h1_chunk c;
	uint64_t got = 0;
	const char *why;
	size_t off = 1, step = size ? (size_t)data[0] % 17 + 1 : 1;

	h1_chunk_init(&c);
	while (off < size && !c.done) {
		size_t n = size - off < step ? size - off : step;
		char *piece = malloc(n);
		long r;

		if (!piece)
			return 0;
		memcpy(piece, data + off, n);
		r = h1_chunk_feed(&c, piece, n, UINT64_MAX, &got, &why);
		free(piece);
		if (r < 0)
			break;
		if ((size_t)r > n)
			abort();
		if (r == 0 && !c.done)
			break;
		off += (size_t)r;
	}
	return 0;
}

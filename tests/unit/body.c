/* Unit tests of the prebuilt bodies: any offset, any length, continuity. */
#include <stdlib.h>

#include "body.h"
#include "tap.h"

static const char line[] = ".123456789.123456789.123456789.123456789.12345678\n";

static int check_range(uint64_t off, size_t len)
{
	const char *p;
	size_t n = body_slice(off, len, 0, &p);

	if (n != (len < body_slice_max() ? len : body_slice_max()))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (p[i] != line[(off + i) % 50])
			return 0;
	return 1;
}

int main(void)
{
	const char *p;
	int good = 1;
	uint64_t off = 0;

	ok(body_init(4096) == 0, "body_init(4096)");
	is_int(body_slice_max(), 4096, "slice max is the buffer size");
	for (uint64_t o = 0; o < 120 && good; o++)
		for (size_t l = 1; l <= 4096 && good; l += 37)
			good = check_range(o, l);
	ok(good, "every offset 0..119 and length up to 4096 follows the pattern");
	ok(check_range(1ULL << 40, 4096), "offset 2^40 follows the pattern");
	is_int(body_slice(0, 100000, 0, &p), 4096, "slices are capped at the buffer size");
	/* a 1 MiB body made of successive slices is the pattern, unbroken */
	good = 1;
	while (off < (1 << 20) && good) {
		size_t n = body_slice(off, 1000 + off % 3000, 0, &p);

		for (size_t i = 0; i < n && good; i++)
			good = p[i] == line[(off + i) % 50];
		off += n;
	}
	ok(good, "successive slices continue the pattern across 1 MiB");
	body_slice(5, 100, 1, &p);
	ok(memcmp(p, line, 50) != 0, "random bytes are not the pattern");
	is_int(body_slice(4090, 100, 1, &p), 6, "random slices stay inside the buffer");
	ok(body_pad[0] == 'x' && body_pad[PAD_RUN - 1] == 'x', "padding run is x bytes");
	body_free();
	return done_testing();
}

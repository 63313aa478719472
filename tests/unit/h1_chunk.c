/* Unit tests of the chunked body decoder: valid, split at every byte, malformed. */
#include <stdlib.h>

#include "h1_parse.h"
#include "tap.h"

/* feeds <s> in pieces of <step>; returns payload bytes, -1 on error, -2 unfinished */
static long long feed(const char *s, size_t step)
{
	struct h1_chunk c;
	uint64_t data = 0;
	size_t len = strlen(s), off = 0;
	const char *why;

	h1_chunk_init(&c);
	while (off < len && !c.done) {
		size_t n = len - off < step ? len - off : step;
		const char *g = guarded(s + off, n);
		long r = h1_chunk_feed(&c, g, n, UINT64_MAX, &data, &why);

		if (r < 0)
			return -1;
		off += (size_t)r;
		if (r == 0 && !c.done)
			return -2;
	}
	return c.done ? (long long)data : -2;
}

int main(void)
{
	static const char good[] = "5\r\nhello\r\n1a;ext=1\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-T: 1\r\n\r\n";
	int all = 1;

	is_int(feed(good, 1000), 31, "a valid body with an extension and a trailer");
	for (size_t step = 1; step < sizeof(good); step++)
		all &= feed(good, step) == 31;
	ok(all, "the same split at every byte boundary");
	is_int(feed("0\r\n\r\n", 3), 0, "an empty body");
	is_int(feed("A\r\n0123456789\r\n0\r\n\r\n", 100), 10, "upper-case hex");
	is_int(feed("5\nhello\r\n0\r\n\r\n", 100), -1, "bare LF after the size");
	is_int(feed("5\r\nhello\n0\r\n\r\n", 100), -1, "bare LF after the data");
	is_int(feed("5\r\nhelloX\r\n0\r\n\r\n", 100), -1, "data longer than the size");
	is_int(feed("g\r\n", 100), -1, "non-hex size");
	is_int(feed("\r\n", 100), -1, "empty size");
	is_int(feed("5 \r\nhello\r\n0\r\n\r\n", 100), -1, "space after the size");
	is_int(feed("fffffffffffffffff\r\n", 100), -1, "size overflow");
	is_int(feed("0\r\nX: 1\n\r\n", 100), -1, "bare LF in a trailer");
	is_int(feed("0\r\n\rx", 100), -1, "bad final CRLF");
	is_int(feed("5\r\nhel", 100), -2, "a partial body is not done");
	{
		struct h1_chunk c;
		uint64_t data = 0;
		const char *why;
		long r;

		h1_chunk_init(&c);
		r = h1_chunk_feed(&c, good, strlen(good), 3, &data, &why);
		ok(r == 6 && data == 3 && !c.done, "max_data stops inside the payload");
	}
	return done_testing();
}

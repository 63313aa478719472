/* Chunked request body decoder: skips payload, validates framing strictly (CRLF only). */
#include <string.h>

#include "h1_parse.h"

#define CK_MAX_LINE 4096   /* chunk-size line with extensions */
#define CK_MAX_DIGITS 16   /* hex digits of a chunk size, leading zeros included */
#define CK_MAX_TRL  16384  /* all trailer lines */

enum {
	CK_SIZE0,    /* first hex digit */
	CK_SIZE,     /* more hex digits */
	CK_EXT,      /* extension or whitespace up to CR */
	CK_SIZE_LF,  /* LF after the size line */
	CK_DATA,
	CK_DATA_CR,
	CK_DATA_LF,
	CK_TRL,      /* start of a trailer line (or the final CRLF) */
	CK_TRL_LINE, /* inside a trailer line */
	CK_TRL_LF,   /* LF of a trailer line */
	CK_END_LF,   /* LF of the final empty line */
};

void h1_chunk_init(struct h1_chunk *c)
{
	memset(c, 0, sizeof(*c));
}

static int hexdig(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

/* one framing byte (not payload). Returns 0 or -1 with *why. */
static int ck_byte(struct h1_chunk *c, char b, const char **why)
{
	int d;

	switch (c->st) {
	case CK_SIZE0:
	case CK_SIZE:
		if ((d = hexdig(b)) >= 0) {
			/* WHY count leading zeros too: 100,000 of them and a 5 were
			 * taken, a decoder's CPU spent on nothing */
			if (++c->line > CK_MAX_DIGITS)
				return *why = "chunk size has more than 16 digits", -1;
			if (c->left >> 56)
				return *why = "chunk size too large", -1;
			c->left = c->left << 4 | (uint64_t)d;
			c->st = CK_SIZE;
			break;
		}
		if (c->st == CK_SIZE0)
			return *why = "chunk size is not hexadecimal", -1;
		if (b != ';' && b != '\r')
			return *why = "malformed chunk size line", -1;
		/* fall through */
	case CK_EXT:
		if (++c->line > CK_MAX_LINE)
			return *why = "chunk extension too long", -1;
		if (b == '\r')
			c->st = CK_SIZE_LF;
		else if (b == '\n' || ((unsigned char)b < ' ' && b != '\t'))
			return *why = "malformed chunk size line", -1;
		else
			c->st = CK_EXT;
		break;
	case CK_SIZE_LF:
		if (b != '\n')
			return *why = "chunk size line without CRLF", -1;
		c->line = 0;
		c->st = c->left ? CK_DATA : CK_TRL;
		break;
	case CK_DATA_CR:
		if (b != '\r')
			return *why = "chunk data longer than its size", -1;
		c->st = CK_DATA_LF;
		break;
	case CK_DATA_LF:
		if (b != '\n')
			return *why = "chunk data not followed by CRLF", -1;
		c->st = CK_SIZE0;
		break;
	case CK_TRL:
		if (b == '\r') {
			c->st = CK_END_LF;
			break;
		}
		c->st = CK_TRL_LINE;
		/* fall through */
	case CK_TRL_LINE:
		if (++c->trl > CK_MAX_TRL)
			return *why = "trailers too large", -1;
		if (b == '\r')
			c->st = CK_TRL_LF;
		else if (b == '\n' || ((unsigned char)b < ' ' && b != '\t'))
			return *why = "malformed trailer line", -1;
		break;
	case CK_TRL_LF:
		if (b != '\n')
			return *why = "trailer line without CRLF", -1;
		c->st = CK_TRL;
		break;
	case CK_END_LF:
		if (b != '\n')
			return *why = "chunked body not ended by CRLF", -1;
		c->done = 1;
		break;
	}
	return 0;
}

long h1_chunk_feed(struct h1_chunk *c, const char *buf, size_t len,
		   uint64_t max_data, uint64_t *data, const char **why)
{
	return h1_chunk_feed_cb(c, buf, len, max_data, data, why, NULL, NULL);
}

long h1_chunk_feed_cb(struct h1_chunk *c, const char *buf, size_t len, uint64_t max_data,
		      uint64_t *data, const char **why,
		      void (*on_data)(void *arg, const char *p, size_t n), void *arg)
{
	size_t i = 0;
	uint64_t got = 0;

	while (i < len && !c->done) {
		if (c->st == CK_DATA) {
			uint64_t n = MIN(c->left, (uint64_t)(len - i));

			n = MIN(n, max_data - got);
			if (!n)
				break;
			if (on_data)
				on_data(arg, buf + i, (size_t)n);
			c->left -= n;
			got += n;
			i += n;
			if (!c->left)
				c->st = CK_DATA_CR;
			continue;
		}
		if (ck_byte(c, buf[i++], why) < 0)
			return -1;
	}
	*data += got;
	return (long)i;
}

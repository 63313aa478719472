/* multipart/byteranges made as it is pulled: each part's head, then its slice of the pattern, never the body whole. */
#include <stdio.h>
#include <string.h>

#include "body.h"
#include "common.h"
#include "parts.h"

#define CLOSE_DELIM "\r\n--" COND_BOUNDARY "--\r\n"

/* one part's head at <b>: CRLF, the boundary, its Content-Type and Content-Range */
static size_t part_head(char *b, const struct hspan *s, uint64_t full)
{
	int n = snprintf(b, PARTS_HEAD_MAX, "\r\n--" COND_BOUNDARY "\r\nContent-Type: text/plain\r\n"
			 "Content-Range: bytes %llu-%llu/%llu\r\n\r\n", (unsigned long long)s->from,
			 (unsigned long long)(s->from + s->len - 1), (unsigned long long)full);

	return (size_t)n;
}

uint64_t parts_len(const struct hspan *sp, unsigned n, uint64_t full)
{
	char head[PARTS_HEAD_MAX];
	uint64_t at = 0;

	for (unsigned i = 0; i < n; i++)
		at += part_head(head, &sp[i], full) + sp[i].len;
	return at + sizeof(CLOSE_DELIM) - 1;
}

void parts_make(struct parts *m, const struct hspan *sp, unsigned n, uint64_t full, int random)
{
	uint64_t at = 0;
	size_t t = 0;

	memcpy(m->sp, sp, n * sizeof(*sp));
	m->n = n;
	m->random = random;
	for (unsigned i = 0; i < n; i++) {
		size_t h = part_head(m->head + t, &sp[i], full);

		m->at[i] = at;
		m->text[i] = (uint16_t)t;
		t += h;
		at += h + sp[i].len;
	}
	m->at[n] = at;
	m->text[n] = (uint16_t)t;
	memcpy(m->head + t, CLOSE_DELIM, sizeof(CLOSE_DELIM) - 1);
	m->text[n + 1] = (uint16_t)(t + sizeof(CLOSE_DELIM) - 1);
	m->at[n + 1] = at + sizeof(CLOSE_DELIM) - 1;
}

size_t parts_slice(const struct parts *m, uint64_t off, size_t want, const char **ptr)
{
	const struct hspan *sp = m->sp;
	unsigned i = 0, n = m->n;
	uint64_t in, hl;

	if (off >= m->at[n + 1])
		return 0;
	while (i < n && off >= m->at[i + 1])
		i++;
	in = off - m->at[i];
	hl = (uint64_t)(m->text[i + 1] - m->text[i]);
	if (in < hl) {
		*ptr = m->head + m->text[i] + in;
		return (size_t)MIN((uint64_t)want, hl - in);
	}
	in -= hl;
	return body_slice(sp[i].from + in, (size_t)MIN((uint64_t)want, sp[i].len - in), m->random, ptr);
}

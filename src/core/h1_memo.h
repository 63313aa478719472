/* An HTTP/1 request head's memo: the last head a worker parsed and accepted, replayed for the same bytes without parsing them again. */
#ifndef HX_H1_MEMO_H
#define HX_H1_MEMO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "h1_parse.h"

/* WHY: a load generator, and a proxy for one client, send the same head
 * again and again, and parsing and reading it was 465 of an h1 request's
 * 2,238 user-space instructions (bench/cg). A head's parse and analysis are
 * functions of its bytes and of limits fixed for the process, so the same
 * bytes give the same result: only the pointers move with the buffer. */
#define H1M_HEAD 512
struct h1_memo {
	uint16_t len;           /* bytes of the head, its empty line included; 0: none kept */
	uint16_t skipped;       /* empty lines before the request line */
	uint8_t minor;
	struct ist method, target;
	struct h1_info in;      /* its pointers into <head> */
	char head[H1M_HEAD];
};

/* whether <buf>/<len> starts with the kept head: its length then, else 0 */
static inline int h1m_hit(const struct h1_memo *m, const char *buf, size_t len)
{
	return m->len && len >= m->len && !memcmp(buf, m->head, m->len) ? m->len : 0;
}

/* the kept head's request line and analysis, pointing into <buf>. The
 * fields are not given: <r>->nhdrs is 0, as nothing after the analysis
 * reads them */
void h1m_replay(const struct h1_memo *m, const char *buf, struct h1_req *r, struct h1_info *in);

/* keeps the head of <n> bytes at <buf> that <r> and <in> describe (it was
 * accepted); one too long is not kept, and the last kept is forgotten */
void h1m_record(struct h1_memo *m, const char *buf, int n, const struct h1_req *r,
		const struct h1_info *in);

#endif

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
 * bytes give the same result: only the pointers move with the buffer.
 * Where no head repeats (a proxy's request id in each), a miss costs the
 * compare, and keeping each head would cost more: after a run of misses,
 * fewer are kept (h1m_record) */
#define H1M_HEAD 512
struct h1_memo {
	uint16_t len;           /* bytes of the head, its empty line included; 0: none kept */
	uint16_t skipped;       /* empty lines before the request line */
	uint8_t minor;
	uint32_t misses;        /* heads parsed since the last hit */
	uintptr_t at;           /* where the head was when parsed: the pointers below are into it */
	struct ist method, target;
	struct h1_info in;
	char head[H1M_HEAD];
};

/* whether <buf>/<len> starts with the kept head: its length then, else 0.
 * WHY its last eight bytes first: a field that changes each time (a
 * proxy's request id, a counter) is often the last, and a miss then costs
 * no call (memcmp's was 21 instructions) */
static inline int h1m_hit(const struct h1_memo *m, const char *buf, size_t len)
{
	uint64_t a, b;

	if (!m->len || len < m->len)
		return 0;
	memcpy(&a, buf + m->len - 8, 8);
	memcpy(&b, m->head + m->len - 8, 8);
	return a == b && !memcmp(buf, m->head, m->len) ? m->len : 0;
}

/* the kept head's request line and analysis, pointing into <buf>. The
 * fields are not given: <r>->nhdrs is 0, as nothing after the analysis
 * reads them */
void h1m_replay(struct h1_memo *m, const char *buf, struct h1_req *r, struct h1_info *in);

/* keeps the head of <n> bytes at <buf> that <r> and <in> describe, the
 * last forgotten; one too long is not kept */
void h1m_store(struct h1_memo *m, const char *buf, int n, const struct h1_req *r,
	       const struct h1_info *in);

/* a head of <n> bytes at <buf> was parsed (<r>) and accepted (<in>): it is
 * stored, unless heads have missed many times in a row, then only the 1st,
 * 2nd, 4th, 8th... and every 1024th of the run. WHY: keeping a head that
 * never comes again was 145 instructions a request where each differs (a
 * pipelined one with a unique X-Id, callgrind); inline, as the test alone
 * runs in most misses */
static inline void h1m_record(struct h1_memo *m, const char *buf, int n, const struct h1_req *r,
			      const struct h1_info *in)
{
	uint32_t k = ++m->misses;

	if (k <= 2 || !(k & (k - 1)) || !(k & 1023))
		h1m_store(m, buf, n, r, in);
}

#endif

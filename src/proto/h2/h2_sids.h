/* The client's stream ids below the highest it opened: which it used, so that a new stream below them is told from a closed one (RFC 9113 5.1.1). */
#ifndef HX_H2_SIDS_H
#define HX_H2_SIDS_H

#include <stdint.h>

#define H2_SIDS 1024 /* the ids remembered below the highest: a ring of bits */

struct h2_sids {
	int32_t last;                  /* the highest stream the client opened, 0: none */
	uint64_t used[H2_SIDS / 64];   /* bit (sid / 2) % H2_SIDS: sid was opened */
};

static inline void h2_sids_bit(struct h2_sids *t, int32_t sid, int on)
{
	uint32_t k = ((uint32_t)sid >> 1) % H2_SIDS;

	if (on)
		t->used[k / 64] |= 1ULL << (k % 64);
	else
		t->used[k / 64] &= ~(1ULL << (k % 64));
}

static inline void h2_sids_reset(struct h2_sids *t)
{
	*t = (struct h2_sids){ 0 };
}

/* <sid> (odd, above t->last) opened: the ids it skipped are marked unused */
static inline void h2_sids_open(struct h2_sids *t, int32_t sid)
{
	int32_t from = t->last ? t->last + 2 : 1;

	if (sid - from > 2 * H2_SIDS)
		from = sid - 2 * H2_SIDS;
	for (int32_t k = from; k < sid; k += 2)
		h2_sids_bit(t, k, 0);
	h2_sids_bit(t, sid, 1);
	t->last = sid;
}

/* 1: <sid> (odd, at most t->last) is an id the client skipped, never a
 * stream: a HEADERS frame there opens a stream below one already open.
 * 0: it was a stream, or it is too far below to know (then not said) */
static inline int h2_sids_skipped(const struct h2_sids *t, int32_t sid)
{
	uint32_t k = ((uint32_t)sid >> 1) % H2_SIDS;

	if (sid > t->last || t->last - sid >= 2 * H2_SIDS)
		return 0;
	return !(t->used[k / 64] >> (k % 64) & 1);
}

#endif

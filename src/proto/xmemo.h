/* A request head's memo for h2 and h3: the last header block that decodes alike wherever it comes, and its fields, replayed without decoding. */
#ifndef HX_XMEMO_H
#define HX_XMEMO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "xstream.h"

/* Load generators and proxies send the same block per request, again and
 * again: its fields are recorded as the decoder gives them the first time,
 * then replayed for each block of the same bytes. The caller decides which
 * blocks decode alike anywhere (HPACK: no table change, while the table
 * stays; QPACK: no dynamic reference) and which were accepted. */
#define XM_BLOCK  255
#define XM_FIELDS 32
#define XM_BYTES  2048
struct xmemo {
	uint8_t valid, rec;      /* it may be replayed; it is being recorded */
	uint8_t blen, nf;
	uint16_t used;
	uint8_t block[XM_BLOCK];
	struct xs_at f[XM_FIELDS];
	uint8_t bytes[XM_BYTES]; /* the fields' lines, as xs_header() writes them */
};

/* whether <in> is the recorded block, which may be replayed */
static inline int xm_hit(const struct xmemo *m, const uint8_t *in, size_t n)
{
	return m->valid && m->blen == n && !memcmp(m->block, in, n);
}

/* the recorded fields, to <x> (xs_header_lines) */
void xm_replay(const struct xmemo *m, struct xstream *x);

/* records <in> (at most XM_BLOCK bytes), the last memo forgotten */
void xm_record(struct xmemo *m, const uint8_t *in, size_t n);

/* one decoded field of the block being recorded; past the memo's room, the
 * recording stops and the block is not kept */
void xm_field(struct xmemo *m, const uint8_t *name, size_t nl, const uint8_t *value, size_t vl);

/* the recording ends: the block may be replayed when <ok> (its fields broke no rule) */
void xm_end(struct xmemo *m, int ok);

#endif

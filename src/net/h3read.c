/* An HTTP/3 response stream read as it comes (RFC 9114 7): frames split anywhere, HEADERS decoded by core/qpack_dec, DATA handed on in place, unknown frames passed over. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "h3frame.h"
#include "h3read.h"

enum { ST_HEAD, ST_DATA, ST_FIELDS, ST_SKIP };

#define SCRATCH    2048 /* a section's Huffman strings, on the stack up to this */

/* Frame types a request stream may not carry (RFC 9114 7.2): CANCEL_PUSH,
 * SETTINGS, GOAWAY, MAX_PUSH_ID, and HTTP/2's reserved 0x2, 0x6, 0x8, 0x9;
 * PUSH_PROMISE too, as we never allow a push (no MAX_PUSH_ID). */
static int forbidden(uint64_t type)
{
	return type < 64 && ((1ull << type) & (1ull << 0x2 | 1ull << 0x3 | 1ull << 0x4 | 1ull << 0x5 | 1ull << 0x6 |
					       1ull << 0x7 | 1ull << 0x8 | 1ull << 0x9 | 1ull << 0xd));
}

/* a whole field section decoded: 0, or -1 */
static int fields(const uint8_t *p, size_t n, const struct h3r_ops *ops, void *arg)
{
	uint8_t stack[SCRATCH], *scr = stack;
	size_t need = QPK_SCRATCH(n);
	int rv;

	if (need > sizeof(stack) && !(scr = malloc(need)))
		return -1;
	rv = qpk_decode(p, n, scr, MAX(need, sizeof(stack)), ops->line, arg);
	if (scr != stack)
		free(scr);
	return rv ? -1 : 0;
}

/* the frame whose head was just read: 0, or -1 */
static int frame(struct h3r *r, uint64_t type, uint64_t len)
{
	r->left = len;
	if (type == H3F_DATA) {
		r->st = ST_DATA;
	} else if (type == H3F_HEADERS) {
		if (!len || len > H3R_FIELDS_MAX)
			return -1;
		r->st = ST_FIELDS;
	} else if (forbidden(type)) {
		return -1;
	} else {
		r->st = ST_SKIP;
	}
	return 0;
}

/* bytes the frame head in hb[] needs in all, as far as its first bytes tell */
static size_t head_need(const struct h3r *r)
{
	size_t t = (size_t)1 << (r->hb[0] >> 6);

	return r->hn <= t ? t + 1 : t + ((size_t)1 << (r->hb[t] >> 6));
}

/* a frame head from <*p>: whole in place, or gathered in hb[] over calls;
 * 1 when read (the frame begun), 0 when more is wanted, -1 an error */
static int head(struct h3r *r, const uint8_t **p, const uint8_t *end)
{
	const uint8_t *q = *p, *hq;
	uint64_t type = 0, len = 0;

	if (!r->hn && !qv_get(&q, end, &type) && !qv_get(&q, end, &len)) {
		*p = q;
		return frame(r, type, len) < 0 ? -1 : 1;
	}
	while (*p < end && (!r->hn || r->hn < head_need(r)))
		r->hb[r->hn++] = *(*p)++;
	if (r->hn < head_need(r))
		return 0;
	hq = r->hb;
	qv_get(&hq, r->hb + r->hn, &type);
	qv_get(&hq, r->hb + r->hn, &len);
	r->hn = 0;
	return frame(r, type, len) < 0 ? -1 : 1;
}

/* a HEADERS frame's payload: decoded in place when it is all here, else
 * gathered; 0, or -1 */
static int headers(struct h3r *r, const uint8_t **p, const uint8_t *end, const struct h3r_ops *ops, void *arg)
{
	size_t have = (size_t)(end - *p), len = (size_t)r->left;
	int rv;

	if (!r->fb && have >= len) {
		*p += len;
		r->st = ST_HEAD;
		return fields(*p - len, len, ops, arg);
	}
	if (!r->fb && !(r->fb = malloc(len)))
		return -1;
	have = MIN(have, len - r->fn);
	memcpy(r->fb + r->fn, *p, have);
	*p += have;
	r->fn += (uint32_t)have;
	if (r->fn < len)
		return 0;
	r->st = ST_HEAD;
	rv = fields(r->fb, len, ops, arg);
	free(r->fb);
	r->fb = NULL;
	r->fn = 0;
	return rv;
}

int h3r_feed(struct h3r *r, const uint8_t *p, size_t n, const struct h3r_ops *ops, void *arg)
{
	const uint8_t *end = p + n;

	while (p < end) {
		size_t k;
		int rv;

		switch (r->st) {
		case ST_HEAD:
			if ((rv = head(r, &p, end)) <= 0)
				return rv;
			break;
		case ST_FIELDS:
			if (headers(r, &p, end, ops, arg) < 0)
				return -1;
			break;
		default: /* DATA, or a frame passed over */
			k = (size_t)MIN(r->left, (uint64_t)(end - p));
			if (r->st == ST_DATA && k)
				ops->data(arg, p, k);
			p += k;
			r->left -= k;
			break;
		}
		if (r->st != ST_HEAD && r->st != ST_FIELDS && !r->left)
			r->st = ST_HEAD;
	}
	return 0;
}

int h3r_at_end(const struct h3r *r)
{
	return r->st == ST_HEAD && !r->hn;
}

void h3r_reset(struct h3r *r)
{
	free(r->fb);
	memset(r, 0, sizeof(*r));
}

/* A QPACK field section decoder (RFC 9204 4.5) for a peer that may use no dynamic table: static-table references and literals, Huffman-coded or not, each line handed to the caller. */
#include "common.h"
#include "qpack.h"
#include "qpack_dec.h"
#include "hdr_rd.h"

#define QPK_STATIC_N 99

/* static entry <i>'s name into <l>, and its value when <value> */
static int from_static(struct qpk_line *l, uint64_t i, int value)
{
	const char *n, *v;
	size_t vlen;

	if (i >= QPK_STATIC_N || qpk_static_field((unsigned)i, &n, &l->nlen, &v, &vlen))
		return -1;
	l->sidx = (int)i;
	l->name = (const uint8_t *)n;
	if (value) {
		l->value = (const uint8_t *)v;
		l->vlen = vlen;
	}
	return 0;
}

/* one field line (RFC 9204 4.5.2 to 4.5.6): 0, -1 malformed, -2 dynamic */
static int line(struct rd *r, struct qpk_line *l)
{
	uint8_t b = *r->p;
	uint64_t i;

	if (b & 0x80) { /* indexed: 1 T index(6) */
		if (!(b & 0x40))
			return -2;
		return qint(r, 6, &i) || from_static(l, i, 1) ? -1 : 0;
	}
	if (b & 0x40) { /* literal, name by reference: 01 N T index(4) */
		if (!(b & 0x10))
			return -2;
		if (qint(r, 4, &i) || from_static(l, i, 0))
			return -1;
		return rd_str(r, 7, 0x80, &l->value, &l->vlen);
	}
	if (b & 0x20) { /* literal name: 001 N H length(3) */
		l->sidx = -1;
		return rd_str(r, 3, 0x08, &l->name, &l->nlen) || rd_str(r, 7, 0x80, &l->value, &l->vlen) ? -1 : 0;
	}
	return -2; /* 0001: indexed post-base; 0000: post-base name reference */
}

int qpk_decode(const uint8_t *p, size_t n, uint8_t *scratch, size_t cap, qpk_line_fn fn, void *arg)
{
	struct rd r = { p, p + n, scratch, scratch + cap };
	uint64_t ric, base;

	/* the prefix: Required Insert Count, then the sign and Delta Base */
	if (qint(&r, 8, &ric) || qint(&r, 7, &base))
		return -1;
	if (ric)
		return -2;
	while (r.p < r.end) {
		struct qpk_line l;
		int rv;

		r.scr = scratch; /* WHY: a line's strings are handed on before the next */
		if ((rv = line(&r, &l)))
			return rv;
		fn(arg, &l);
	}
	return 0;
}

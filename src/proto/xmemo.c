/* A request head's memo for h2 and h3: the last header block that decodes alike wherever it comes, and its fields, replayed without decoding. */
#include <string.h>

#include "xmemo.h"

void xm_replay(const struct xmemo *m, struct xstream *x)
{
	xs_header_lines(x, m->bytes, m->used, m->f, m->nf);
}

void xm_record(struct xmemo *m, const uint8_t *in, size_t n)
{
	m->valid = 0;
	m->rec = n <= XM_BLOCK;
	m->blen = (uint8_t)n;
	m->nf = 0;
	m->used = 0;
	if (m->rec)
		memcpy(m->block, in, n);
}

void xm_field(struct xmemo *m, const uint8_t *name, size_t nl, const uint8_t *value, size_t vl)
{
	if (!m->rec)
		return;
	if (m->nf == XM_FIELDS || m->used + nl + vl + 4 > XM_BYTES) {
		m->rec = 0;
		return;
	}
	m->f[m->nf].no = m->used;
	m->f[m->nf].nl = (uint16_t)nl;
	m->f[m->nf].vo = (uint16_t)(m->used + xs_line_put(m->bytes + m->used, name, nl, value, vl));
	m->f[m->nf].vl = (uint16_t)vl;
	m->used = (uint16_t)(m->used + nl + vl + 4);
	m->nf++;
}

void xm_end(struct xmemo *m, int ok)
{
	m->valid = m->rec && ok;
	m->rec = 0;
}

/* An HTTP/1 request head's memo: the last head a worker parsed and accepted, replayed for the same bytes without parsing them again. */
#include "h1_memo.h"

/* <s>, which pointed into the head where it was parsed (at <from>), into
 * the same bytes at <to>. WHY as integers: that first buffer may be gone */
static inline struct ist moved(struct ist s, uintptr_t from, const char *to)
{
	return s.ptr ? (struct ist){ to + ((uintptr_t)s.ptr - from), s.len } : s;
}

void h1m_replay(struct h1_memo *m, const char *buf, struct h1_req *r, struct h1_info *in)
{
	const struct h1_info *k = &m->in;

	m->misses = 0;
	r->method = moved(m->method, m->at, buf);
	r->target = moved(m->target, m->at, buf);
	r->minor = m->minor;
	r->skipped = m->skipped;
	r->nhdrs = 0;
	/* WHY field by field: a copy of the whole, then a second pass over
	 * its pointers, was 85 instructions a request (bench/cg) */
	in->flags = k->flags;
	in->clen = k->clen;
	in->xhx = moved(k->xhx, m->at, buf);
	in->settings = moved(k->settings, m->at, buf);
	in->ws_key = moved(k->ws_key, m->at, buf);
	in->ws_ver = moved(k->ws_ver, m->at, buf);
	if (likely(!(k->flags & H1I_COND)))
		return;
	in->c.inm = moved(k->c.inm, m->at, buf);
	in->c.im = moved(k->c.im, m->at, buf);
	in->c.ims = moved(k->c.ims, m->at, buf);
	in->c.ius = moved(k->c.ius, m->at, buf);
	in->c.range = moved(k->c.range, m->at, buf);
	in->c.if_range = moved(k->c.if_range, m->at, buf);
}

void h1m_store(struct h1_memo *m, const char *buf, int n, const struct h1_req *r,
	       const struct h1_info *in)
{
	m->len = 0;
	if (n < 8 || n > H1M_HEAD)
		return;
	memcpy(m->head, buf, (size_t)n);
	m->at = (uintptr_t)buf;
	m->method = r->method;
	m->target = r->target;
	m->minor = r->minor;
	m->skipped = (uint16_t)r->skipped;
	m->in.flags = in->flags;
	m->in.clen = in->clen;
	m->in.xhx = in->xhx;
	m->in.settings = in->settings;
	m->in.ws_key = in->ws_key;
	m->in.ws_ver = in->ws_ver;
	if (in->flags & H1I_COND)
		m->in.c = in->c;
	m->len = (uint16_t)n;
}

/* An HTTP/1 request head's memo: the last head a worker parsed and accepted, replayed for the same bytes without parsing them again. */
#include "h1_memo.h"

static struct ist moved(struct ist s, const char *from, const char *to)
{
	return s.ptr ? (struct ist){ to + (s.ptr - from), s.len } : s;
}

/* <src>'s analysis to <dst>, its pointers from the head at <from> to the
 * same bytes at <to>. WHY field by field: a copy of the whole, then a
 * second pass over its pointers, was 85 instructions a request (bench/cg) */
static inline __attribute__((always_inline)) void move_info(struct h1_info *dst, const struct h1_info *src, const char *from, const char *to)
{
	dst->flags = src->flags;
	dst->clen = src->clen;
	dst->xhx = moved(src->xhx, from, to);
	dst->settings = moved(src->settings, from, to);
	dst->ws_key = moved(src->ws_key, from, to);
	dst->ws_ver = moved(src->ws_ver, from, to);
	if (likely(!(src->flags & H1I_COND)))
		return;
	dst->c.inm = moved(src->c.inm, from, to);
	dst->c.im = moved(src->c.im, from, to);
	dst->c.ims = moved(src->c.ims, from, to);
	dst->c.ius = moved(src->c.ius, from, to);
	dst->c.range = moved(src->c.range, from, to);
	dst->c.if_range = moved(src->c.if_range, from, to);
}

void h1m_replay(const struct h1_memo *m, const char *buf, struct h1_req *r, struct h1_info *in)
{
	r->method = moved(m->method, m->head, buf);
	r->target = moved(m->target, m->head, buf);
	r->minor = m->minor;
	r->skipped = m->skipped;
	r->nhdrs = 0;
	move_info(in, &m->in, m->head, buf);
}

void h1m_record(struct h1_memo *m, const char *buf, int n, const struct h1_req *r,
		const struct h1_info *in)
{
	m->len = 0;
	if (n <= 0 || n > H1M_HEAD)
		return;
	memcpy(m->head, buf, (size_t)n);
	m->method = moved(r->method, buf, m->head);
	m->target = moved(r->target, buf, m->head);
	m->minor = r->minor;
	m->skipped = (uint16_t)r->skipped;
	move_info(&m->in, in, buf, m->head);
	m->len = (uint16_t)n;
}

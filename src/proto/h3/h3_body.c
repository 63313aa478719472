/* HTTP/3 bodies for either engine: the generator's slices as DATA frames' worth, its pauses and faults marked. */
#include "body.h"
#include "h3_eng.h"
#include "xstream.h"

size_t h3s_gather(struct h3s *s, nghttp3_vec *vec, size_t veccnt, struct ex_action *a)
{
	struct exch *x = &s->x.ex;
	uint64_t frame = ex_frame(x), budget = frame ? frame : UINT64_MAX;
	size_t n = 0;

	a->act = EXA_DATA;
	while (n < veccnt && budget) {
		const char *ptr;
		/* one vec each: what follows contiguously at the cursor */
		size_t want = ex_slice(x, x->out_off, (size_t)MIN(budget, (uint64_t)body_slice_max()), &ptr);

		if (ex_next(x, want, s->c->q.w->loop.now_us, a) != EXA_DATA)
			break;
		vec[n++] = (nghttp3_vec){ (uint8_t *)ptr, (size_t)a->len };
		budget -= a->len;
	}
	if (a->act == EXA_DATA && !ex_left(x) && x->out_end == x->rs.body)
		a->act = EXA_END;
	return n;
}

int h3s_halt(struct h3s *s, const struct ex_action *a)
{
	if (a->act == EXA_PAUSE) {
		if (xs_pause(&s->x, a->until_us) < 0) {
			s->x.ops->fail(&s->x);
			return -1;
		}
		return 0;
	}
	s->c->nfaults += !s->fault;
	s->fault = 1; /* acted upon once the writes are done */
	s->fault_act = (uint8_t)a->act;
	return 0;
}


/* HTTP/3 responses framed by nghttp3 (--h3-engine nghttp3): its HEADERS and DATA frames over the generator's slices, read in place. */
#include "h3_eng.h"
#include "xstream.h"

/* the trailers, if any, close the stream after the body */
static void h3s_trailers(nghttp3_conn *h3, struct h3s *s, uint32_t *flags)
{
	struct xs_nv nv[PLAN_MAX_FIELDS];
	char lbuf[PLAN_DEC_SIZE];
	size_t nt = xs_trailers_nv(&s->x, nv, lbuf);

	*flags |= NGHTTP3_DATA_FLAG_EOF;
	if (!nt)
		return;
	*flags |= NGHTTP3_DATA_FLAG_NO_END_STREAM;
	if (nghttp3_conn_submit_trailers(h3, s->id, (nghttp3_nv *)nv, nt))
		s->x.ops->fail(&s->x);
}

/* DATA for the stream (--h3-engine nghttp3): the generator's actions as
 * slices of the prebuilt buffers, never copied (k= bounds one call, which
 * is one DATA frame) */
static nghttp3_ssize read_data(nghttp3_conn *h3, int64_t id, nghttp3_vec *vec, size_t veccnt,
			       uint32_t *flags, void *cud, void *sud)
{
	struct h3s *s = sud;
	struct ex_action a;
	size_t n = h3s_gather(s, vec, veccnt, &a);

	(void)cud, (void)id;
	if (a.act == EXA_END)
		h3s_trailers(h3, s, flags);
	else if (!n && a.act != EXA_DATA) /* these bytes first; the halt at the next call */
		return h3s_halt(s, &a) < 0 ? NGHTTP3_ERR_CALLBACK_FAILURE : NGHTTP3_ERR_WOULDBLOCK;
	return (nghttp3_ssize)n;
}

static int ng_respond(struct h3s *s, const struct xs_nv *nv, size_t n, int body)
{
	nghttp3_data_reader dr = { read_data };

	return nghttp3_conn_submit_response(s->c->h3, s->id, (const nghttp3_nv *)nv, n, body ? &dr : NULL);
}

static int ng_info(struct h3s *s, const struct xs_nv *nv, size_t n)
{
	return nghttp3_conn_submit_info(s->c->h3, s->id, (const nghttp3_nv *)nv, n);
}

static void ng_resume(struct h3s *s)
{
	nghttp3_conn_resume_stream(s->c->h3, s->id);
}

const struct h3_eng h3_eng_ng = {
	.name = "nghttp3",
	.slot = 1,
	.ssize = sizeof(struct h3s),
	.respond = ng_respond,
	.info = ng_info,
	.resume = ng_resume,
};

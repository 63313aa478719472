/* What hxload's two HTTP/2 clients share: a stream's exchange found, a response field read, a stream's end, the server's stream limit and GOAWAY, a request's fields. */
#include <string.h>

#include "lc_h2_int.h"
#include "lc_hits.h"
#include "lc_record.h"

struct lc_ex *lc_h2_ex_scan(struct lc_conn *c, int32_t id)
{
	size_t step = (size_t)c->t->nconns;
	struct lc_ex *e = c->ex;

	for (uint32_t k = 0; k < c->ex_used; k++, e += step)
		if (e->id == id) {
			c->ex_hint = k;
			return e;
		}
	return NULL;
}

void lc_h2_field(struct lc_conn *c, struct lc_ex *e, const uint8_t *n, size_t nl, const uint8_t *v, size_t vl)
{
	if (!e)
		return;
	if (nl == 7 && !memcmp(n, ":status", 7) && vl == 3 && v[0] == '1') /* an interim head: 103, 100 */
		c->t->st.interim++;
	else if (nl == 7 && !memcmp(n, ":status", 7) && vl == 3)
		lc_head(c, e, (unsigned)((v[0] - '0') * 100 + (v[1] - '0') * 10 + (v[2] - '0')));
	else if (nl == 5 && !memcmp(n, "x-rsp", 5))
		lc_xrsp(e, (const char *)v, vl);
	else if (nl == 13 && !memcmp(n, "x-hxterm-made", 13))
		lc_made(e, (const char *)v, vl);
	else if (nl == 16 && !memcmp(n, "x-hxterm-ignored", 16))
		lc_ignored(c->t, (const char *)v, vl);
	else if (unlikely(lc_rd->head != NULL))
		lc_rd->head(e, (const char *)n, nl, (const char *)v, vl);
}

void lc_h2_closed(struct lc_conn *c, struct lc_ex *e, uint32_t code)
{
	/* WHY a retry: REFUSED_STREAM (RFC 9113 8.7) and a stream above a
	 * GOAWAY's last id (6.8; both clients close those with it) were never
	 * processed, so they go again on a new connection: nginx's
	 * http2_max_requests recycling is no error */
	if (code == LC_H2_REFUSED)
		lc_retry(c, e);
	else if (code)
		lc_fail(c, e, E_RESET);
	else
		lc_record(c, e);
	e->id = -1;
	c->inflight--;
}

void lc_h2_limit(struct lc_conn *c, uint32_t v)
{
	struct lc_stats *st = &c->t->st;

	if (c->h2_set && v != c->h2_streams) {
		st->limit_min = st->limit_changes ? MIN(st->limit_min, (uint64_t)v) : v;
		st->limit_last = v;
		st->limit_changes++;
	}
	c->h2_streams = v;
}

int lc_h2_ended(struct lc_conn *c, long n)
{
	/* WHY no error: the server closes once a graceful GOAWAY's streams are done */
	if (n != LC_RECV_REFUSED && c->goaway == 1 && !c->inflight)
		return 1;
	if (n != LC_RECV_REFUSED)
		lc_error(c, E_RESET);
	return -1;
}

void lc_h2_goaway(struct lc_conn *c, uint32_t code, int32_t last)
{
	if (c->goaway)
		return;
	c->goaway = code ? 2 : 1;
	c->goaway_sid = last;
	c->t->st.goaways += c->goaway == 1 && c->up == 2;
}

size_t lc_h2_fields(const struct lc_ex *e, struct hpk_field *f)
{
	const struct lc_opts *o = lc_o;
	const struct lc_target *tg = lc_tg;
	static __thread char lname[32][128];
	size_t n = 0;

#define FLD(a, b, bl) f[n++] = (struct hpk_field){ (const uint8_t *)(a), (const uint8_t *)(b), strlen(a), (bl), 0 }
	FLD(":method", o->method, strlen(o->method));
	FLD(":scheme", tg->tls ? "https" : "http", tg->tls ? 5u : 4u);
	FLD(":authority", tg->authority, strlen(tg->authority));
	FLD(":path", tg->paths[e->path].path, strlen(tg->paths[e->path].path));
	if (tg->grpc) {
		FLD("content-type", "application/grpc", 16);
		FLD("te", "trailers", 8);
		if (tg->paths[e->path].meta)
			FLD("x-hxterm", tg->paths[e->path].meta, strlen(tg->paths[e->path].meta));
	}
#undef FLD
	for (int i = 0; i < o->nhdrs; i++) {
		const char *colon = strchr(o->hdrs[i], ':');
		const char *v = colon + 1 + (colon[1] == ' ');
		size_t nl = MIN((size_t)(colon - o->hdrs[i]), (size_t)127);

		for (size_t k = 0; k < nl; k++)
			lname[i][k] = (char)(o->hdrs[i][k] | 0x20);
		lname[i][nl] = 0;
		f[n++] = (struct hpk_field){ (const uint8_t *)lname[i], (const uint8_t *)v, nl, strlen(v), 0 };
	}
	return n;
}

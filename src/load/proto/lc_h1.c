/* hxload's HTTP/1.1 client: pipelined keep-alive requests, responses parsed and verified in place. */
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "common.h"
#include "h1_parse.h"
#include "lc_conn.h"
#include "lc_fate.h"
#include "lc_record.h"
#include "lc_thread.h"
#include "lc_hits.h"
#include "words.h"

/* where the response being read is: HTTP/1's state, behind c->proto_state */
struct lc_h1 {
	uint8_t body;                /* reading a body */
	uint8_t chunked;
	uint8_t close;               /* close-delimited body, or Connection: close */
	uint64_t left;               /* Content-Length left */
	struct h1_chunk ck;
};

/* a Content-Length: decimal digits that fit in 63 bits, nothing else;
 * a malformed one is a protocol error, not a body that never ends */
static int clen_parse(struct ist v, uint64_t *out)
{
	uint64_t n = 0;

	if (!v.len)
		return -1;
	for (size_t k = 0; k < v.len; k++) {
		if (v.ptr[k] < '0' || v.ptr[k] > '9' || n > (UINT64_MAX / 2 - 9) / 10)
			return -1;
		n = n * 10 + (uint64_t)(v.ptr[k] - '0');
	}
	*out = n;
	return 0;
}

/* sends as many requests as the pipeline depth allows */
static int h1_fill(struct lc_conn *c)
{
	while (c->inflight < (uint32_t)lc_o->depth && oq_iov_room(&c->oq) > 2) {
		struct lc_ex *e = LC_EX(c, (c->ex_head + c->inflight) % (uint32_t)lc_o->depth);
		const struct lc_path *p;

		if (!lc_take(c, e))
			break;
		p = &lc_tg->paths[e->path];
		oq_ref(&c->oq, p->req, p->reqlen);
		c->inflight++;
	}
	return 0;
}

static void h1_chunk_data(void *arg, const char *p, size_t n)
{
	lc_verify(arg, p, n);
}

/* the response head: status, framing, X-rsp */
static int h1_head(struct lc_conn *c, struct lc_ex *e, const struct h1_resp *r)
{
	struct lc_h1 *h1 = c->proto_state;

	lc_head(c, e, r->status);
	h1->chunked = 0;
	h1->close = r->minor == 0;
	h1->left = UINT64_MAX;
	for (unsigned i = 0; i < r->nhdrs; i++) {
		const struct h1_hdr *h = &r->hdrs[i];

		if (ieq(h->n, "content-length")) {
			if (clen_parse(h->v, &h1->left) < 0)
				return -1;
		} else if (ieq(h->n, "transfer-encoding")) {
			h1->chunked = 1;
		} else if (ieq(h->n, "x-rsp")) {
			lc_xrsp(e, h->v.ptr, h->v.len);
		} else if (ieq(h->n, "x-hxterm-made")) {
			lc_made(e, h->v.ptr, h->v.len);
		} else if (ieq(h->n, "x-hxterm-ignored")) {
			lc_ignored(c->t, h->v.ptr, h->v.len);
		} else if (ieq(h->n, "connection")) {
			h1->close = ieq(h->v, "close");
		} else if (unlikely(lc_rd->head != NULL)) {
			lc_rd->head(e, h->n.ptr, h->n.len, h->v.ptr, h->v.len);
		}
	}
	if (h1->chunked)
		h1_chunk_init(&h1->ck);
	/* WHY the first letter first: a strcmp a response was 32 instructions */
	if (r->status == 204 || r->status == 304 || (lc_o->method[0] == 'H' && !strcmp(lc_o->method, "HEAD")))
		h1->left = 0, h1->chunked = 0;
	if (!h1->chunked && h1->left == UINT64_MAX && !h1->close)
		h1->left = 0;
	h1->body = 1;
	return 0;
}

/* consumes body bytes at <p>; returns bytes used, -1 on bad framing */
static long h1_body(struct lc_conn *c, struct lc_ex *e, const char *p, size_t n, int *done)
{
	struct lc_h1 *h1 = c->proto_state;
	const char *why;
	uint64_t got = 0;
	long used;

	if (h1->chunked) {
		used = h1_chunk_feed_cb(&h1->ck, p, n, UINT64_MAX, &got, &why, h1_chunk_data, e);
		*done = h1->ck.done;
		return used;
	}
	used = (long)MIN((uint64_t)n, h1->left);
	lc_verify(e, p, (size_t)used);
	if (h1->left != UINT64_MAX)
		h1->left -= (uint64_t)used;
	*done = h1->left == 0;
	return used;
}

/* parses what is buffered; returns -1 on a protocol error, 1 when a
 * response said Connection: close */
static int h1_parse(struct lc_conn *c)
{
	struct lc_h1 *h1 = c->proto_state;
	uint32_t off = 0;

	while (off < c->in_len && c->inflight) {
		struct lc_ex *e = LC_EX(c, c->ex_head);
		int done = 0;
		long n;

		if (!h1->body) {
			struct h1_resp r;
			struct h1_err err;

			n = h1_parse_resp(c->in + off, c->in_len - off, &r, &err);
			if (n == HX_AGAIN)
				break;
			if (n > 0 && r.status >= 100 && r.status < 200 && r.status != 101) {
				c->t->st.interim++; /* WHY passed over: 103 Early Hints, 100 Continue */
				off += (uint32_t)n;
				continue;
			}
			if (n < 0 || h1_head(c, e, &r) < 0)
				return -1;
			lc_status_line(e, c->in + off, (size_t)n);
			off += (uint32_t)n;
			if (h1->left != 0 || h1->chunked)
				continue;
			done = 1;
		} else {
			n = h1_body(c, e, c->in + off, c->in_len - off, &done);
			if (n < 0)
				return -1;
			off += (uint32_t)n;
		}
		if (done) {
			h1->body = 0;
			lc_record(c, e);
			lc_ex_shift(c);
			if (h1->close) { /* WHY counted: HTTP/1's graceful end, as a GOAWAY */
				c->t->st.goaways += c->up == 2;
				return 1;
			}
		}
	}
	memmove(c->in, c->in + off, c->in_len - off);
	c->in_len -= off;
	return 0;
}

/* WHY calloc'd, not in struct lc_conn: a connection holds only its
 * protocol's state (h2's and h3's are their libraries' sessions) */
static int lc_h1_start(struct lc_conn *c)
{
	if (!(c->proto_state = calloc(1, sizeof(struct lc_h1)))) {
		lc_fatal_set("hxload is out of memory: no HTTP/1 state for a connection (fewer -c?)");
		lc_error(c, E_RESET);
		return -1;
	}
	c->in_len = 0;
	c->ex_head = 0;
	return h1_fill(c);
}

static void lc_h1_free(struct lc_conn *c)
{
	free(c->proto_state);
	c->proto_state = NULL;
}

/* reads and parses, then sends; returns -1 to reset the connection, 1 when
 * the server closes it after a complete response (a new one at once) */
static int lc_h1_io(struct lc_conn *c)
{
	struct lc_h1 *h1 = c->proto_state;
	uint64_t sent;
	int r;

	while (c->nc.flags & NC_RD_READY) {
		long n = lc_conn_recv(c, c->in + c->in_len, c->in_size - c->in_len);

		if (n == XPRT_AGAIN)
			break;
		if (n == 0 && h1->body && h1->close && c->inflight) {
			int done;

			h1_body(c, LC_EX(c, c->ex_head), NULL, 0, &done);
			c->inflight--;
			lc_record(c, LC_EX(c, c->ex_head));
			return 1; /* close-delimited: a new connection for the next */
		}
		if (n == LC_RECV_REFUSED)
			return -1;
		if (n <= 0) {
			lc_error(c, E_RESET);
			return -1;
		}
		c->in_len += (uint32_t)n;
		if ((r = h1_parse(c)) < 0 || (!r && c->in_len == c->in_size)) {
			lc_error(c, E_PROTOCOL);
			return -1;
		}
		if (r)
			return 1;
	}
	h1_fill(c);
	if (oq_pending(&c->oq) && (c->nc.flags & NC_WR_READY)) {
		r = oq_flush(&c->oq, &c->nc.x, &sent);

		if (r == -1) {
			lc_error(c, E_RESET);
			return -1;
		}
		if (r == HX_AGAIN)
			c->nc.flags &= ~NC_WR_READY;
	}
	return 0;
}

const struct lc_protocol lc_h1 = {
	.name = "h1",
	.fifo = 1,
	.start = lc_h1_start,
	.io = lc_h1_io,
	.free = lc_h1_free,
};

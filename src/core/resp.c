/* The response generator: plan + request -> status, header fields, body plan. */
#include <string.h>

#include "body.h"
#include "clock.h"
#include "fmt.h"
#include "resp.h"

#define PAD_NAME     "X-Pad"
#define PAD_OVERHEAD (sizeof(PAD_NAME ": \r\n") - 1)

struct ist resp_reason(unsigned status)
{
	switch (status) {
	case 200: return IST("OK");
	case 201: return IST("Created");
	case 202: return IST("Accepted");
	case 204: return IST("No Content");
	case 206: return IST("Partial Content");
	case 301: return IST("Moved Permanently");
	case 302: return IST("Found");
	case 303: return IST("See Other");
	case 304: return IST("Not Modified");
	case 307: return IST("Temporary Redirect");
	case 308: return IST("Permanent Redirect");
	case 400: return IST("Bad Request");
	case 401: return IST("Unauthorized");
	case 403: return IST("Forbidden");
	case 404: return IST("Not Found");
	case 405: return IST("Method Not Allowed");
	case 408: return IST("Request Timeout");
	case 409: return IST("Conflict");
	case 410: return IST("Gone");
	case 411: return IST("Length Required");
	case 413: return IST("Content Too Large");
	case 414: return IST("URI Too Long");
	case 417: return IST("Expectation Failed");
	case 421: return IST("Misdirected Request");
	case 425: return IST("Too Early");
	case 429: return IST("Too Many Requests");
	case 431: return IST("Request Header Fields Too Large");
	case 500: return IST("Internal Server Error");
	case 501: return IST("Not Implemented");
	case 502: return IST("Bad Gateway");
	case 503: return IST("Service Unavailable");
	case 504: return IST("Gateway Timeout");
	case 505: return IST("HTTP Version Not Supported");
	}
	return IST("Unknown");
}

static void add_field(struct hresp *rs, const char *name, const char *lname,
		      const char *val, size_t vlen)
{
	rs->f[rs->nf++] = (struct hfield){
		.name = name, .lname = lname, .val = val,
		.nlen = (uint32_t)strlen(name), .vlen = (uint32_t)vlen,
	};
}

#define ADD_STATIC(rs, n, ln, v) add_field((rs), (n), (ln), (v), sizeof(v) - 1)

/* FNV-1a over the target: the same target gives the same ETag */
static uint64_t etag_hash(struct ist t)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < t.len; i++)
		h = (h ^ (unsigned char)t.ptr[i]) * 0x100000001b3ULL;
	return h;
}

/* writes "<hash>" with quotes, returns its end */
static char *etag_fmt(char *p, struct ist target)
{
	*p++ = '"';
	p = fmt_hex(p, etag_hash(target));
	*p++ = '"';
	return p;
}

static int etag_matches(struct ist inm, const char *tag, size_t len)
{
	if (inm.len == 1 && inm.ptr[0] == '*')
		return 1;
	for (size_t i = 0; i + len <= inm.len; i++)
		if (!memcmp(inm.ptr + i, tag, len))
			return 1;
	return 0;
}

/* the pauses the body will take between its pieces (p=, d=), in ms: one
 * after each piece but the last, the same d= each (drawn once per request),
 * up to a fault's cut when it comes first. Known at the head, so it goes in
 * X-rsp: a client tells the server's pacing from the path's slowness. */
static uint64_t planned_pace(const struct plan *p, uint64_t body)
{
	uint64_t n = body;

	if (!(p->flags & PF_PIECE) || !p->piece || !p->drip_ms || !n)
		return 0;
	if ((p->flags & (PF_RESET | PF_TRUNC)) && p->fault_at < n)
		n = p->fault_at;
	return n ? (n - 1) / p->piece * p->drip_ms : 0;
}

/* the three timing headers, all from the same two measured intervals (and
 * the body's planned pacing, when it has any) */
static char *add_timing(struct hresp *rs, char *b, const struct hreq *rq,
			uint64_t wait_ms, uint64_t pace_ms, struct ist id, int64_t real_ns)
{
	char *v = b;

	b = fmt_lit(b, "size=");
	b = fmt_u64(b, rq->head_size);
	b = fmt_lit(b, ", time=");
	b = fmt_ms3(b, rq->t_head - rq->t_first);
	b = fmt_lit(b, " ms");
	add_field(rs, "X-req", "x-req", v, (size_t)(b - v));

	v = b;
	b = fmt_lit(b, "id=");
	b = fmt_mem(b, id.ptr, id.len);
	b = fmt_lit(b, ", code=");
	b = fmt_u64(b, rs->status);
	b = rs->cache ? fmt_lit(b, ", cache=1, ") : fmt_lit(b, ", cache=0, ");
	if (rq->flags & RQ_EARLY)
		b = fmt_lit(b, "early=1, ");
	if (rs->chunked)
		b = fmt_lit(b, "chunked, ");
	b = fmt_lit(b, "size=");
	b = fmt_u64(b, rs->body);
	b = fmt_lit(b, ", time=");
	b = fmt_u64(b, wait_ms);
	b = fmt_lit(b, " ms (");
	b = fmt_ms3(b, real_ns);
	b = fmt_lit(b, " real)");
	if (pace_ms) {
		b = fmt_lit(b, ", pace=");
		b = fmt_u64(b, pace_ms);
		b = fmt_lit(b, " ms");
	}
	add_field(rs, "X-rsp", "x-rsp", v, (size_t)(b - v));

	v = b;
	b = fmt_lit(b, "wait;dur=");
	b = fmt_u64(b, wait_ms);
	b = fmt_lit(b, ", gen;dur=");
	b = fmt_ms3(b, real_ns);
	if (pace_ms) {
		b = fmt_lit(b, ", pace;dur=");
		b = fmt_u64(b, pace_ms);
	}
	add_field(rs, "Server-Timing", "server-timing", v, (size_t)(b - v));
	return b;
}

static int status_has_body(unsigned status)
{
	return status >= 200 && status != 204 && status != 304;
}

/* framing: how long the body is and how it is announced */
static void resp_frame(struct hresp *rs, const struct hreq *rq,
		       const struct plan *p, uint64_t size)
{
	int body_ok = status_has_body(rs->status);

	rs->body = (body_ok && !(rq->flags & RQ_HEAD)) ? size : 0;
	rs->chunked = body_ok && (p->flags & PF_CHUNK) && (rq->flags & RQ_CAN_CHUNK);
	if (!body_ok)
		rs->clen = -1;
	else if (p->flags & PF_LIE)
		rs->clen = (int64_t)p->announce;
	else if ((p->flags & PF_NOLEN) || rs->chunked)
		rs->clen = -1;
	else
		rs->clen = (int64_t)size;
}

/* estimates the head so far, so that z=N pads the whole head to about N */
static void resp_pad_plan(struct hresp *rs, uint64_t want)
{
	uint64_t have = 17 + 20 + 2;

	for (int i = 0; i < rs->nf; i++)
		have += rs->f[i].nlen + rs->f[i].vlen + 4;
	rs->pad = want > have ? want - have : 0;
}

/* a response with no plan behind it: the help page, or a 400 naming a bad item */
static void resp_text(struct hresp *rs, const struct hreq *rq, uint16_t status,
		      struct ist text, struct ist id, int64_t now_ns)
{
	struct plan p;

	p.flags = PF_NOCACHE;
	p.status = status;
	p.nhdr = 0;
	p.ign_len = 0; /* WHY: unset, a stale length named garbage in X-Hxterm-Ignored and curl dropped the answer */
	p.pad = 0;
	p.wait_ms = 0;
	p.size = text.len;
	resp_build(rs, rq, &p, id, now_ns);
	rs->src = BODY_TEXT;
	rs->text = text;
}

void resp_build(struct hresp *rs, const struct hreq *rq, const struct plan *p,
		struct ist id, int64_t now_ns)
{
	char *b = rs->buf, *tag = NULL;
	size_t taglen = 0;
	uint64_t size = p->size;

	if (p->flags & PF_BAD)
		return resp_text(rs, rq, p->status, (struct ist){ p->err, strlen(p->err) }, id, now_ns);
	if (p->flags & PF_HELP)
		return resp_text(rs, rq, 200, help_page, id, now_ns);
	rs->status = p->status;
	rs->nf = 0;
	rs->cache = !(p->flags & PF_NOCACHE);
	rs->src = (p->flags & PF_RANDOM) ? BODY_RANDOM : BODY_PATTERN;
	if (p->flags & PF_ECHO) {
		rs->src = BODY_TEXT;
		rs->text = rq->echo;
		size = rq->echo.len;
	}
	if (p->flags & PF_ETAG) {
		tag = b;
		b = etag_fmt(b, rq->target);
		taglen = (size_t)(b - tag);
		if (rq->inm.len && etag_matches(rq->inm, tag, taglen))
			rs->status = 304;
	}
	rs->reason = resp_reason(rs->status);
	resp_frame(rs, rq, p, size);
	if (status_has_body(rs->status))
		ADD_STATIC(rs, "Content-Type", "content-type", "text/plain");
	if (!rs->cache)
		ADD_STATIC(rs, "Cache-Control", "cache-control", "no-cache");
	if (tag)
		add_field(rs, "ETag", "etag", tag, taglen);
	b = add_timing(rs, b, rq, p->wait_ms, (rq->flags & RQ_HEAD) ? 0 : planned_pace(p, rs->body), id,
		       now_ns - rq->t_head);
	if (rq->alt_port) {
		char *v = b;

		b = fmt_lit(b, "h3=\":");
		b = fmt_u64(b, rq->alt_port);
		*b++ = '"';
		add_field(rs, "Alt-Svc", "alt-svc", v, (size_t)(b - v));
	}
	if (rq->client.len)
		add_field(rs, "X-Client", "x-client", rq->client.ptr, rq->client.len);
	if (p->ign_len)
		add_field(rs, "X-Hxterm-Ignored", "x-hxterm-ignored", p->ignored, p->ign_len);
	for (int i = 0; i < p->nhdr; i++)
		rs->f[rs->nf++] = p->hdr[i];
	rs->pad = 0;
	if (p->pad)
		resp_pad_plan(rs, p->pad);
}

int resp_pad_next(struct hresp *rs, struct hfield *f)
{
	uint64_t v;

	if (!rs->pad)
		return 0;
	v = rs->pad > PAD_OVERHEAD ? rs->pad - PAD_OVERHEAD : 1;
	if (v > PAD_RUN)
		v = PAD_RUN;
	*f = (struct hfield){ .name = PAD_NAME, .lname = "x-pad", .val = body_pad,
			      .nlen = sizeof(PAD_NAME) - 1, .vlen = (uint32_t)v };
	rs->pad -= MIN(rs->pad, v + PAD_OVERHEAD);
	return 1;
}

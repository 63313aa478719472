/* The response generator: plan + request -> status, header fields, body plan. */
#include <string.h>
#include <strings.h>
#include <time.h>

#include "body.h"
#include "clock.h"
#include "cond.h"
#include "fmt.h"
#include "num.h"
#include "parts.h"
#include "plan.h"
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
	case 412: return IST("Precondition Failed");
	case 413: return IST("Content Too Large");
	case 414: return IST("URI Too Long");
	case 416: return IST("Range Not Satisfiable");
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

/* the head being built: its fields, their formatted values, a Range's
 * spans. WHY per thread: every adapter reads them at once after
 * resp_build (h1 stages the head in the same turn, h2 and h3 encode it),
 * where per stream they were 1.9 KB of each held open */
static __thread struct {
	struct hfield f[RESP_MAX_FIELDS];
	char buf[1024];      /* formatted values of f[]: a 255-byte --name, every timing field, the cache's;
			      * the common fields as whole HTTP/1 lines */
	struct hspan spans[COND_SPANS];
} hs;

static void add_field(struct hresp *rs, const char *name, const char *lname,
		      const char *val, size_t vlen)
{
	hs.f[rs->nf++] = (struct hfield){
		.name = name, .lname = lname, .val = val,
		.nlen = (uint32_t)strlen(name), .vlen = (uint32_t)vlen,
	};
}

#define ADD_STATIC(rs, n, ln, v) add_field((rs), (n), (ln), (v), sizeof(v) - 1)

/* the field whose HTTP/1 line "<name>: " starts at <line> and whose value
 * ends at <e>, where its "\r\n" goes. WHY lines: h1 copies the run of them
 * at once (resp_build marks it), where a copy of each name and value was
 * 47 instructions a field, 200 of a small h1 answer's (bench/cg) */
static inline __attribute__((always_inline)) void set_line(struct hresp *rs, char *line, const char *name,
							   size_t nlen, const char *lname, char *e)
{
	char *v = line + nlen + 2;

	hs.f[rs->nf++] = (struct hfield){
		.name = name, .lname = lname, .val = v, .nlen = (uint32_t)nlen, .vlen = (uint32_t)(e - v),
	};
}

/* set_line, and the line's "\r\n": returns its end */
static inline __attribute__((always_inline)) char *add_line(struct hresp *rs, char *line, const char *name,
							    size_t nlen, const char *lname, char *e)
{
	set_line(rs, line, name, nlen, lname, e);
	return fmt_lit(e, "\r\n");
}

/* a whole line "<N>: <V>" at <b>, of a fixed value */
#define ADD_LINE_STATIC(rs, b, N, ln, V) add_line((rs), (b), N, sizeof(N) - 1, (ln), fmt_lit((b), N ": " V))

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

/* Cache-Control from cc=, m= and M= (and c=0): "no-cache, private, max-age=60, s-maxage=600" */
static char *cache_control(struct hresp *rs, char *b, const struct plan *p)
{
	char *v = b;

	static const char *const names[] = PLAN_CC_NAMES;

	if (p->flags & PF_NOCACHE)
		b = fmt_lit(b, "no-cache, ");
	/* WHY PF_CC first: plan_init leaves cc, a previous request's */
	for (size_t i = 0; (p->flags & PF_CC) && i < ARRAY_SIZE(names); i++)
		if (p->cc & (1u << i)) {
			b = fmt_mem(b, names[i], strlen(names[i]));
			b = fmt_lit(b, ", ");
		}
	if (p->flags & PF_MAXAGE) {
		b = fmt_lit(b, "max-age=");
		b = fmt_u64(b, p->max_age);
		b = fmt_lit(b, ", ");
	}
	if (p->flags & PF_SMAXAGE) {
		b = fmt_lit(b, "s-maxage=");
		b = fmt_u64(b, p->s_maxage);
		b = fmt_lit(b, ", ");
	}
	add_field(rs, "Cache-Control", "cache-control", v, (size_t)(b - v - 2));
	return b;
}

/* a body that a Range may cut: the pattern or random bytes, in one piece,
 * with its true length and no fault */
static int rangeable(const struct plan *p, const struct hresp *rs)
{
	return rs->src < BODY_TEXT &&
	       !(p->flags & (PF_CHUNK | PF_LIE | PF_NOLEN | PF_RESET | PF_TRUNC | PF_PIECE));
}

/* A Range of <*size> bytes: 206 with <*size> its part (rs->from its start),
 * 416 with none; 1 when a Content-Range follows, 0 when the Range is ignored */
static int ranged(struct hresp *rs, struct ist range, uint64_t *size)
{
	struct hspan sp[COND_SPANS];
	unsigned n;
	uint64_t m;

	switch (cond_range(range, *size, sp, &n)) {
	case COND_PART:
		rs->status = 206;
		rs->from = sp[0].from;
		*size = sp[0].len;
		return 1;
	case COND_MULTI:
		/* WHY no bound on its size: the generator makes it as it is
		 * pulled (parts.c), the parts sliced from the pattern */
		m = parts_len(sp, n, *size);
		rs->status = 206;
		rs->full = *size;
		rs->multi_random = rs->src == BODY_RANDOM;
		rs->src = BODY_MULTI;
		rs->nspans = (uint8_t)n;
		memcpy(hs.spans, sp, n * sizeof(*sp));
		rs->spans = hs.spans;
		*size = m;
		return 0;
	case COND_NONE:
		rs->status = 416;
		*size = 0;
		return 1;
	default:
		return 0;
	}
}

/* Content-Range: "bytes 0-99/1000" for a 206, "bytes *\/1000" for a 416 */
static char *content_range(struct hresp *rs, char *b, uint64_t full)
{
	char *v = b;

	b = fmt_lit(b, "bytes ");
	if (rs->status == 206) {
		b = fmt_u64(b, rs->from);
		*b++ = '-';
		b = fmt_u64(b, rs->from + rs->body - 1);
	} else {
		*b++ = '*';
	}
	*b++ = '/';
	b = fmt_u64(b, full);
	add_field(rs, "Content-Range", "content-range", v, (size_t)(b - v));
	return b;
}

/* the pauses the body will take between its pieces (p=, d=), in ms: one
 * after each piece but the last, the same d= each (drawn once per request),
 * up to a fault's cut when it comes first. Known at the head, so it goes in
 * X-rsp: a client tells the server's pacing from the path's slowness. */
static uint64_t planned_pace(const struct plan *p, uint64_t body)
{
	uint64_t n = body, first = 0;

	/* ttft= on a body that is no event stream: its first byte's pause */
	if (unlikely(p->flags & PF_TTFT) && !(p->flags & PF_SSE) && body)
		first = p->ttft_ms;
	if (!(p->flags & PF_PIECE) || !p->piece || !p->drip_ms || !n)
		return first;
	/* WHY none for events d= apart or s= sized drawn per event, or after
	 * ttft=: not known at the head (or not one d= per piece) */
	if ((p->flags & PF_SSE) && (plan_spec_d(p)[0] || plan_spec_s(p)[0] || p->ttft_ms))
		return 0;
	if ((p->flags & (PF_RESET | PF_TRUNC)) && p->fault_at < n)
		n = p->fault_at;
	return first + (n ? (n - 1) / p->piece * p->drip_ms : 0);
}

/* the three timing headers, all from the same two measured intervals (and
 * the body's planned pacing, when it has any) */
static char *add_timing(struct hresp *rs, char *b, const struct hreq *rq,
			uint64_t wait_ms, uint64_t pace_ms, struct ist id, int64_t real_ns)
{
	char *v = b, *e;

	/* WHY a line's end and the next one's start in one literal: each
	 * literal is its own moves (bench/cg) */
	b = fmt_lit(b, "X-req: size=");
	b = fmt_u64(b, rq->head_size);
	b = fmt_lit(b, ", time=");
	b = fmt_ms3(b, rq->t_head - rq->t_first);
	e = b + 3;
	b = fmt_lit(b, " ms\r\nX-rsp: id=");
	set_line(rs, v, "X-req", 5, "x-req", e);

	v = e + 2;
	b = fmt_mem(b, id.ptr, id.len);
	b = fmt_lit(b, ", code=");
	b = fmt_u64(b, rs->status);
	if (likely(!(rq->flags & RQ_EARLY) && !rs->chunked)) {
		b = rs->cache ? fmt_lit(b, ", cache=1, size=") : fmt_lit(b, ", cache=0, size=");
	} else {
		b = rs->cache ? fmt_lit(b, ", cache=1, ") : fmt_lit(b, ", cache=0, ");
		if (rq->flags & RQ_EARLY)
			b = fmt_lit(b, "early=1, ");
		if (rs->chunked)
			b = fmt_lit(b, "chunked, ");
		b = fmt_lit(b, "size=");
	}
	b = fmt_u64(b, rs->body);
	b = fmt_lit(b, ", time=");
	b = fmt_u64(b, wait_ms);
	b = fmt_lit(b, " ms (");
	b = fmt_ms3(b, real_ns);
	if (likely(!pace_ms)) {
		e = b + 6;
		b = fmt_lit(b, " real)\r\nServer-Timing: wait;dur=");
	} else {
		b = fmt_lit(b, " real), pace=");
		b = fmt_u64(b, pace_ms);
		e = b + 3;
		b = fmt_lit(b, " ms\r\nServer-Timing: wait;dur=");
	}
	set_line(rs, v, "X-rsp", 5, "x-rsp", e);

	v = e + 2;
	b = fmt_u64(b, wait_ms);
	b = fmt_lit(b, ", gen;dur=");
	b = fmt_ms3(b, real_ns); /* WHY formatted again: from the table, a move, the same digits */
	if (pace_ms) {
		b = fmt_lit(b, ", pace;dur=");
		b = fmt_u64(b, pace_ms);
	}
	return add_line(rs, v, "Server-Timing", 13, "server-timing", b);
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
	struct hreq r = *rq;
	struct plan p;

	/* WHY without the conditions: a refusal or the help page has no
	 * validators to hold them against, and a Range of a text body was
	 * answered with its first bytes whatever the offset */
	r.flags &= ~RQ_COND;
	p.flags = PF_NOCACHE;
	p.status = status;
	p.nhdr = 0;
	p.ext = NULL;
	p.ign_len = 0; /* WHY: unset, a stale length named garbage in X-Hxterm-Ignored and curl dropped the answer */
	p.pad = 0;
	p.wait_ms = 0;
	p.size = text.len;
	resp_build(rs, &r, &p, id, now_ns);
	rs->src = BODY_TEXT;
	rs->text = text;
}

struct ist resp_field(struct ist head, const char *name, size_t nl)
{
	const char *at = head.ptr;

	return cond_field_next(head, name, nl, &at);
}

/* E=2: the request's Content-Type goes back with its body (none: octets);
 * sse=1: events */
__attribute__((cold, noinline)) static void content_type_of(struct hresp *rs, const struct hreq *rq,
							       const struct plan *p)
{
	struct ist ct = resp_field(rq->echo, "content-type", 12);

	if (!status_has_body(rs->status))
		return;
	if (p->flags & PF_SSE)
		ADD_STATIC(rs, "Content-Type", "content-type", "text/event-stream");
	else if (p->flags & PF_GRPC)
		ADD_STATIC(rs, "Content-Type", "content-type", "application/grpc");
	else if (ct.len)
		add_field(rs, "Content-Type", "content-type", ct.ptr, ct.len);
	else
		ADD_STATIC(rs, "Content-Type", "content-type", "application/octet-stream");
}

/* the keys of a cache test: their fields, and Accept-Ranges */
#define PF_CACHE (PF_ETAG | PF_LASTMOD | PF_MAXAGE | PF_SMAXAGE | PF_VARY | PF_CC | PF_AGE)

/* what the validators and a Range decided, for the fields that say it */
struct vd {
	char *tag, *date;            /* ETag (e=1), Last-Modified (L=1), or NULL */
	size_t taglen;
	uint64_t full;               /* the whole body's size */
	int crange;                  /* a Content-Range follows (206, 416) */
	int refused;                 /* a failed precondition's 412: its reason is the body */
};

/* the request's preconditions and Range against the answer <rep>: 304, 412,
 * 206 or 416, the Range's part in <*size>; 1 when a Content-Range follows.
 * WHY none unless the answer would be a 2xx: RFC 9110 13.2.1 */
static int conditions(struct hresp *rs, const struct hreq *rq, const struct plan *p, uint64_t *size,
		      const struct cond_rep *rep, int *refused)
{
	int64_t now = (int64_t)time(NULL);
	enum cond_pre pre;

	if (rs->status < 200 || rs->status > 299)
		return 0;
	pre = cond_pre(rq, rep, now);
	if (pre == COND_304) {
		rs->status = 304;
	} else if (pre != COND_GO) {
		rs->status = 412;
		/* WHY not for events: their framing stays, as with r=412 */
		if (!(p->flags & PF_SSE)) {
			rs->src = BODY_TEXT;
			rs->text = cond_why(pre);
			*size = rs->text.len;
			*refused = 1;
		}
	} else if (rq->c.range.len && rs->status == 200 && (rq->flags & RQ_GET) && rangeable(p, rs) &&
		   cond_if_range(rq->c.if_range, rep, now)) {
		return ranged(rs, rq->c.range, size);
	}
	return 0;
}

/* e=, L=, preconditions, a Range: the validators formatted at <b>, the
 * answer's status and <*size> as the request's conditions say. WHY a
 * function of its own: most requests have none, and resp_build stays lean */
__attribute__((cold, noinline)) static char *validate(struct hresp *rs, const struct hreq *rq, const struct plan *p, char *b, uint64_t *size,
		      struct vd *v)
{
	struct cond_rep rep = { NULL, 0, COND_NO_DATE };

	*v = (struct vd){ NULL, NULL, 0, 0, 0, 0 };
	if (p->flags & PF_ETAG) {
		v->tag = b;
		b = etag_fmt(b, rq->target);
		v->taglen = (size_t)(b - v->tag);
		rep.tag = v->tag;
		rep.taglen = v->taglen;
	}
	if (p->flags & PF_LASTMOD) {
		rep.lm = cond_lastmod(rq->target);
		v->date = b;
		cond_date(b, rep.lm);
		b += COND_DATE_LEN;
	}
	v->full = *size;
	/* WHY not a gRPC call's: its answer is an HTTP 200 whatever happens,
	 * the outcome in grpc-status, planned with its messages */
	if ((rq->flags & RQ_COND) && !(p->flags & PF_GRPC))
		v->crange = conditions(rs, rq, p, size, &rep, &v->refused);
	return b;
}

/* X-Hxterm-Made: when this answer was made (epoch us), so that one a cache
 * kept tells itself from a fresh one */
static char *made(struct hresp *rs, char *b)
{
	struct timespec ts;
	char *v = b;

	clock_gettime(CLOCK_REALTIME, &ts);
	b = fmt_u64(b, (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
	add_field(rs, "X-Hxterm-Made", "x-hxterm-made", v, (size_t)(b - v));
	return b;
}

/* the fields of a cache's keys: Cache-Control, ETag, Last-Modified,
 * Content-Range or Accept-Ranges */
__attribute__((cold, noinline)) static char *cache_fields(struct hresp *rs, const struct hreq *rq, const struct plan *p,
							     char *b, const struct vd *v)
{
	if (rs->src == BODY_MULTI) /* WHY here: several ranges are rare, the plain type costs nothing */
		for (int i = 0; i < rs->nf; i++)
			if (hs.f[i].lname && !strcmp(hs.f[i].lname, "content-type")) {
				hs.f[i].val = "multipart/byteranges; boundary=" COND_BOUNDARY;
				hs.f[i].vlen = sizeof("multipart/byteranges; boundary=" COND_BOUNDARY) - 1;
			}
	if (p->flags & PF_VARY) {
		struct ist seen = resp_field(rq->echo, p->vary, p->vary_len);

		add_field(rs, "Vary", "vary", p->vary, p->vary_len);
		/* WHY its value too: a cache that keeps one answer for every value
		 * shows as the wrong value coming back */
		if (seen.len)
			add_field(rs, "X-Hxterm-Vary", "x-hxterm-vary", seen.ptr, seen.len);
		else
			ADD_STATIC(rs, "X-Hxterm-Vary", "x-hxterm-vary", "-");
	}
	if (p->flags & (PF_MAXAGE | PF_SMAXAGE | PF_CC))
		b = cache_control(rs, b, p);
	else if (!rs->cache)
		ADD_STATIC(rs, "Cache-Control", "cache-control", "no-cache");
	if (p->flags & PF_AGE) {
		char *a = b;

		b = fmt_u64(b, p->age);
		add_field(rs, "Age", "age", a, (size_t)(b - a));
	}
	b = made(rs, b);
	if (v->tag)
		add_field(rs, "ETag", "etag", v->tag, v->taglen);
	if (v->date)
		add_field(rs, "Last-Modified", "last-modified", v->date, COND_DATE_LEN);
	if (v->crange)
		b = content_range(rs, b, v->full);
	/* WHY only with a cache's keys: a cache (nginx's) serves ranges of what
	 * it keeps when the origin said it takes them; plain answers keep their
	 * head short */
	else if (rs->status == 200 && rangeable(p, rs))
		ADD_STATIC(rs, "Accept-Ranges", "accept-ranges", "bytes");
	return b;
}

void resp_build(struct hresp *rs, const struct hreq *rq, const struct plan *p,
		struct ist id, int64_t now_ns)
{
	char *b = hs.buf;
	uint64_t size = p->size;
	struct vd v;
	int cache;

	if (p->flags & PF_BAD)
		return resp_text(rs, rq, p->status, (struct ist){ plan_err(p), strlen(plan_err(p)) }, id, now_ns);
	if (p->flags & PF_HELP)
		return resp_text(rs, rq, 200, help_page, id, now_ns);
	rs->f = hs.f;
	rs->h1 = hs.buf;
	rs->h1_nf = 0;
	rs->h1_len = 0;
	rs->status = p->status;
	rs->nf = 0;
	rs->from = 0;
	rs->cache = !(p->flags & PF_NOCACHE);
	rs->src = (p->flags & PF_RANDOM) ? BODY_RANDOM : BODY_PATTERN;
	if (p->flags & (PF_ECHO | PF_ECHOBODY | PF_SSE | PF_GRPC)) {
		rs->src = BODY_TEXT;
		if (p->flags & PF_ECHO)
			rs->text = rq->echo; /* WHY not E=2's nor sse=1's: ex_respond set them */
		/* WHY a gRPC call's size from its plan: its messages are made as pulled */
		if (p->flags & PF_GRPC)
			rs->src = BODY_GRPC;
		else
			size = rs->text.len;
	}
	/* WHY one test for the cache's keys and the conditions: most requests have
	 * none, and these cost them no more (bench/cg) */
	if (unlikely((cache = (p->flags & PF_CACHE) || (rq->flags & RQ_COND))))
		b = validate(rs, rq, p, b, &size, &v);
	resp_frame(rs, rq, p, size);
	if (unlikely(p->flags & (PF_ECHOBODY | PF_SSE | PF_GRPC)) && !(cache && v.refused))
		content_type_of(rs, rq, p);
	else if (status_has_body(rs->status))
		b = ADD_LINE_STATIC(rs, b, "Content-Type", "content-type", "text/plain");
	if (unlikely(cache))
		b = cache_fields(rs, rq, p, b, &v);
	else if (!rs->cache)
		b = ADD_LINE_STATIC(rs, b, "Cache-Control", "cache-control", "no-cache");
	b = add_timing(rs, b, rq, p->wait_ms, (rq->flags & RQ_HEAD) ? 0 : planned_pace(p, rs->body), id,
		       now_ns - rq->t_head);
	/* WHY after the fact: with no cache keys, conditions, echo, events nor
	 * gRPC, every field so far is a line of add_line's, from the
	 * scratch's start: HTTP/1's run */
	if (likely(!cache && !(p->flags & (PF_ECHOBODY | PF_SSE | PF_GRPC)))) {
		rs->h1_nf = rs->nf;
		rs->h1_len = (uint16_t)(b - hs.buf);
	}
	if (rq->alt_port) {
		char *a = b;

		b = fmt_lit(b, "h3=\":");
		b = fmt_u64(b, rq->alt_port);
		*b++ = '"';
		add_field(rs, "Alt-Svc", "alt-svc", a, (size_t)(b - a));
	}
	if (rq->client.len)
		add_field(rs, "X-Client", "x-client", rq->client.ptr, rq->client.len);
	if (p->ign_len)
		add_field(rs, "X-Hxterm-Ignored", "x-hxterm-ignored", p->ignored, p->ign_len);
	for (int i = 0; i < p->nhdr; i++)
		hs.f[rs->nf++] = p->ext->hdr[i];
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

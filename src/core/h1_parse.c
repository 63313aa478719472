/* HTTP/1.x request head parser: allocates nothing, points into the caller's buffer. */
#include <string.h>
#include <strings.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "h1_parse.h"
#include "words.h"

/* token characters of RFC 9110, as a 256-entry table */
static const uint8_t tchar[256] = {
	['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1,
	['*'] = 1, ['+'] = 1, ['-'] = 1, ['.'] = 1, ['^'] = 1, ['_'] = 1,
	['`'] = 1, ['|'] = 1, ['~'] = 1,
	['0' ... '9'] = 1, ['A' ... 'Z'] = 1, ['a' ... 'z'] = 1,
};


static int fail(struct h1_err *err, uint16_t status, const char *why)
{
	err->status = status;
	err->why = why;
	return -1;
}

/* Finds the end of the line at <p>: returns the byte after its LF and sets
 * <*eol> to where its content ends (before CR LF or LF), NULL if partial. */
static const char *line_end(const char *p, const char *end, const char **eol)
{
	const char *lf = memchr(p, '\n', (size_t)(end - p));

	if (!lf)
		return NULL;
	*eol = (lf > p && lf[-1] == '\r') ? lf - 1 : lf;
	return lf + 1;
}

static int parse_version(const char *p, const char *eol, struct h1_req *r,
			 struct h1_err *err)
{
	/* WHY the usual one first, as one word: its byte tests were 17 of an
	 * h1 request's instructions (bench/cg) */
	if (eol - p == 8 && !memcmp(p, "HTTP/1.1", 8)) {
		r->minor = 1;
		return 0;
	}
	if (eol - p != 8 || memcmp(p, "HTTP/", 5) || p[6] != '.' ||
	    p[5] < '0' || p[5] > '9' || p[7] < '0' || p[7] > '9')
		return fail(err, 400, "malformed HTTP version in request line");
	if (p[5] != '1')
		return fail(err, 505, "only HTTP/1.0 and HTTP/1.1 are served here");
	r->minor = p[7] == '0' ? 0 : 1;
	return 0;
}

/* the top bit of each byte among the eight at <p> that is at or under ' '
 * or is 0x7f; exact for the first such byte, the others may be too many
 * (a borrow runs upward), so only the lowest is read */
static inline uint64_t stop_in(const char *p)
{
	uint64_t x, d;

	memcpy(&x, p, 8);
	d = x ^ ONES * 0x7f;
	return ((x - ONES * 0x21) & ~x & ONES * 0x80) | ((d - ONES) & ~d & ONES * 0x80);
}

/* where the target that starts at <p> ends: its first byte at or under ' '
 * or 0x7f, or <eol>. WHY: bytes >= 0x80 are let through, clients do send
 * raw UTF-8. WHY eight at a time: a byte test each was 54 of an h1
 * request's instructions for "/?s=100" (bench/cg) */
static const char *target_end(const char *p, const char *eol)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (uint64_t m; eol - p >= 8; p += 8)
		if ((m = stop_in(p)))
			return p + __builtin_ctzll(m) / 8;
#endif
	while (p < eol && (unsigned char)*p > ' ' && *p != 0x7f)
		p++;
	return p;
}

static int parse_reqline(const char *p, const char *eol, struct h1_req *r,
			 struct h1_err *err)
{
	const char *s = p;

	/* WHY GET first, as one word: a table test a byte was 22 of an h1
	 * request's instructions (bench/cg) */
	if (eol - p > 4 && !memcmp(p, "GET ", 4))
		p += 3;
	else
		while (p < eol && tchar[(unsigned char)*p])
			p++;
	if (p == s || p == eol || *p != ' ')
		return fail(err, 400, "malformed method in request line");
	r->method = (struct ist){ s, (size_t)(p - s) };
	s = ++p;
	p = target_end(p, eol);
	if (p == s || p == eol || *p != ' ')
		return fail(err, 400, "malformed target in request line");
	r->target = (struct ist){ s, (size_t)(p - s) };
	if (s[0] != '/' && s[0] != '*' && !(p - s > 7 && !strncasecmp(s, "http", 4)))
		return fail(err, 400, "target must be a path or an absolute URI");
	return parse_version(p + 1, eol, r, err);
}

/* a byte under 0x20 or 0x7f among the eight at <p>: the top bit of each,
 * exact for the lowest (a borrow runs upward), so only that one is read */
static inline uint64_t ctl_in(const char *p)
{
	uint64_t x;

	memcpy(&x, p, 8);
	return ((x - ONES * 0x20) & ~x & ONES * 0x80) | (((x ^ ONES * 0x7f) - ONES) & ~(x ^ ONES * 0x7f) & ONES * 0x80);
}

/* the first byte from <p> under 0x20 (a tab, CR and LF among them) or 0x7f,
 * or <end>; nothing at or past <end> is read. WHY sixteen at a time: a
 * value is most of a line and its CR is what ends the scan, so one pass
 * both checks it and finds the line's end (bench/cg: hxload parsing
 * hxterm's five response fields, a memchr a line and a word test each
 * 8 bytes were 1,150 of its 3,166 instructions a request) */
static const char *ctl_first(const char *p, const char *end)
{
#ifdef __SSE2__
	const __m128i top = _mm_set1_epi8(0x1f), del = _mm_set1_epi8(0x7f);

	for (; end - p >= 16; p += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i c = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(x, top), x), _mm_cmpeq_epi8(x, del));
		unsigned m = (unsigned)_mm_movemask_epi8(c);

		if (m)
			return p + __builtin_ctz(m);
	}
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (uint64_t m; end - p >= 8; p += 8)
		if ((m = ctl_in(p)))
			return p + __builtin_ctzll(m) / 8;
#endif
	while (p < end && (unsigned char)*p >= ' ' && *p != 0x7f)
		p++;
	return p;
}

#ifdef __SSE2__
/* the bytes among the sixteen at <p> that are neither a letter, a digit nor
 * '-', what nearly every field name is made of, as a mask (bit i: p[i]) */
static inline unsigned name_stops(const char *p)
{
	const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p), top = _mm_set1_epi8((char)0x80);
	/* WHY each against 0x80 moved: SSE2 compares signed bytes, and a
	 * range test is an unsigned (x - first) below the range's width */
	__m128i l = _mm_xor_si128(_mm_sub_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)), _mm_set1_epi8('a')), top);
	__m128i d = _mm_xor_si128(_mm_sub_epi8(x, _mm_set1_epi8('0')), top);
	__m128i ok = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(l, _mm_set1_epi8((char)(0x80 + 26))),
					       _mm_cmplt_epi8(d, _mm_set1_epi8((char)(0x80 + 10)))),
				  _mm_cmpeq_epi8(x, _mm_set1_epi8('-')));

	return ~(unsigned)_mm_movemask_epi8(ok) & 0xffff;
}
#endif

/* where the token at <p> ends: its first byte that tchar refuses, or <end>.
 * WHY sixteen at a time, then four table reads: a name is 5 to 15 bytes of
 * letters, digits and '-', and a test and a branch a byte were a third of
 * a response field's cost (bench/cg); the rarer token bytes ('_', '.', ...)
 * are the table's */
static const char *token_end(const char *p, const char *end)
{
#ifdef __SSE2__
	for (unsigned m; end - p >= 16; p += 16)
		if ((m = name_stops(p))) {
			p += __builtin_ctz(m);
			if (!tchar[(unsigned char)*p])
				return p;
			break;
		}
#endif
	while (end - p >= 4 && (tchar[(unsigned char)p[0]] & tchar[(unsigned char)p[1]] &
				tchar[(unsigned char)p[2]] & tchar[(unsigned char)p[3]]))
		p += 4;
	while (p < end && tchar[(unsigned char)*p])
		p++;
	return p;
}

/* a CR anywhere but before the LF is refused: bare CR is a smuggling vector */
static int bare_cr(const char *p, const char *eol)
{
	return memchr(p, '\r', (size_t)(eol - p)) != NULL;
}

/* the header line at <s> refused for <why>, or, where it holds a CR
 * anywhere but before its LF, for that: the smuggling vector is named
 * whatever else is wrong with the line */
static int refuse(const char *s, const char *end, const char *why, struct h1_err *err)
{
	const char *lf = memchr(s, '\n', (size_t)(end - s)), *eol = lf ? lf : end;

	if (lf && lf > s && lf[-1] == '\r')
		eol--;
	return fail(err, 400, bare_cr(s, eol) ? "bare CR in header line" : why);
}

/* the line from <s> ending at <p> (CR LF, or a bare LF): sets <*next> to
 * the byte after it; HX_AGAIN when its LF has not come, -1 for a CR before
 * something else or any other control byte */
static int line_break(const char *s, const char *p, const char *end, const char **next, struct h1_err *err)
{
	if (*p == '\n') {
		*next = p + 1;
		return 0;
	}
	if (*p != '\r')
		return refuse(s, end, "control character in header value", err);
	if (p + 1 == end)
		return HX_AGAIN;
	if (p[1] != '\n')
		return fail(err, 400, "bare CR in header line");
	*next = p + 2;
	return 0;
}

/* One header line at <p>, checked as it is scanned: name, colon, value up
 * to the line's end. Returns 0 with <h> and <*next> (the next line) set,
 * HX_AGAIN when the line is not all there, -1 with <err> filled. */
static int header_line(const char *p, const char *end, struct h1_hdr *h, const char **next,
		       struct h1_err *err)
{
	const char *s = p, *v, *e;
	int rc;

	if (*p == ' ' || *p == '\t')
		return refuse(s, end, "obsolete header line folding", err);
	p = token_end(p, end);
	if (p == end)
		return HX_AGAIN;
	if (p == s || *p != ':')
		return *p == '\r' && p + 1 == end ? HX_AGAIN : refuse(s, end, "malformed header name", err);
	h->n = (struct ist){ s, (size_t)(p - s) };
	for (p++; p < end && (*p == ' ' || *p == '\t'); p++)
		;
	v = p;
	/* a tab is let through inside a value, any other control byte ends it */
	while ((e = ctl_first(p, end)) < end && *e == '\t')
		p = e + 1;
	if (e == end)
		return HX_AGAIN;
	if ((rc = line_break(s, e, end, next, err)) != 0)
		return rc;
	while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	h->v = (struct ist){ v, (size_t)(e - v) };
	return 0;
}

/* at <p>, the empty line that ends a head: 1 with <*next> past it, 0 when
 * a field's line starts here, HX_AGAIN when its LF has not come, -1 for a
 * bare CR */
static int head_end(const char *p, const char *end, const char **next, struct h1_err *err)
{
	if (p == end)
		return HX_AGAIN;
	if (*p != '\r' && *p != '\n')
		return 0;
	return line_break(p, p, end, next, err) ?: 1;
}

int h1_parse_req(const char *buf, size_t len, struct h1_req *r,
		 const struct h1_limits *lim, struct h1_err *err)
{
	const char *p = buf, *end = buf + len, *eol, *next;

	r->nhdrs = 0;
	r->skipped = 0;
	/* RFC 9112 2.2: empty lines before the request line are ignored */
	while (p < end && (*p == '\r' || *p == '\n')) {
		if (*p == '\r' && (p + 1 < end && p[1] != '\n'))
			return fail(err, 400, "bare CR before request line");
		p++;
	}
	r->skipped = (uint32_t)(p - buf);
	next = line_end(p, end, &eol);
	if (!next)
		return (size_t)(end - p) > lim->max_uri ?
		       fail(err, 414, "request line too long") : HX_AGAIN;
	if ((size_t)(eol - p) > lim->max_uri)
		return fail(err, 414, "request line too long");
	/* WHY the CR looked for only after a failure: a CR anywhere in a line
	 * fails its parse (no token, target, version or value takes one), and
	 * the search cost every request a memchr per line (bench/cg) */
	if (parse_reqline(p, eol, r, err) < 0)
		return bare_cr(p, eol) ? fail(err, 400, "bare CR in request line") : -1;
	for (p = next; ; p = next) {
		struct h1_hdr spare;
		int rc = head_end(p, end, &next, err);

		if (rc)
			return rc > 0 ? (int)(next - buf) : rc;
		/* WHY the line read all the same past the limit: what is wrong
		 * with it is named before the count */
		rc = header_line(p, end, r->nhdrs < lim->max_hdrs ? &r->hdrs[r->nhdrs] : &spare, &next, err);
		if (rc)
			return rc;
		if (r->nhdrs >= lim->max_hdrs)
			return fail(err, 431, "too many header fields");
		r->nhdrs++;
	}
}

static int parse_statusline(const char *p, const char *eol, struct h1_resp *r,
			    struct h1_err *err)
{
	if (eol - p < 12 || memcmp(p, "HTTP/1.", 7) || p[7] < '0' || p[7] > '9' || p[8] != ' ' ||
	    p[9] < '1' || p[9] > '9' || p[10] < '0' || p[10] > '9' || p[11] < '0' || p[11] > '9' ||
	    (eol - p > 12 && p[12] != ' '))
		return fail(err, 502, "malformed status line");
	r->minor = (uint8_t)(p[7] - '0');
	r->status = (uint16_t)((p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0'));
	return 0;
}

int h1_parse_resp(const char *buf, size_t len, struct h1_resp *r, struct h1_err *err)
{
	const char *p = buf, *end = buf + len, *eol, *next;

	r->nhdrs = 0;
	if (!(next = line_end(p, end, &eol)))
		return len > 8192 ? fail(err, 502, "status line too long") : HX_AGAIN;
	if (parse_statusline(p, eol, r, err) < 0)
		return -1;
	for (p = next; ; p = next) {
		int rc = head_end(p, end, &next, err);

		if (!rc && r->nhdrs >= H1_MAX_HDRS)
			return fail(err, 502, "too many response header fields");
		if (!rc)
			rc = header_line(p, end, &r->hdrs[r->nhdrs], &next, err);
		if (rc == HX_AGAIN && len > 65536)
			return fail(err, 502, "response head too long");
		if (rc)
			return rc > 0 ? (int)(next - buf) : rc;
		r->nhdrs++;
	}
}


/* calls <fn> on each comma-separated, trimmed element of <v> */
static int each_token(struct ist v, int (*fn)(struct ist tok, void *arg), void *arg)
{
	const char *p = v.ptr, *end = v.ptr + v.len;

	while (p < end) {
		const char *s, *e;

		while (p < end && (*p == ' ' || *p == '\t' || *p == ','))
			p++;
		s = p;
		while (p < end && *p != ',')
			p++;
		e = p;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (e > s && fn((struct ist){ s, (size_t)(e - s) }, arg) < 0)
			return -1;
	}
	return 0;
}

static int conn_token(struct ist tok, void *arg)
{
	uint32_t *flags = arg;

	if (ieq(tok, "close"))
		*flags |= H1I_CLOSE;
	else if (ieq(tok, "keep-alive"))
		*flags |= H1I_KEEPALIVE;
	else if (ieq(tok, "upgrade"))
		*flags |= H1I_CONN_UPG;
	return 0;
}

/* counts codings; remembers whether the last one is chunked */
struct te_state {
	unsigned n;
	int last_chunked;
};

static int te_token(struct ist tok, void *arg)
{
	struct te_state *te = arg;

	te->n++;
	te->last_chunked = ieq(tok, "chunked");
	return 0;
}

static int parse_clen(struct ist v, struct h1_info *in, struct h1_err *err)
{
	uint64_t n = 0;

	if (!v.len)
		return fail(err, 400, "empty Content-Length");
	for (size_t i = 0; i < v.len; i++) {
		if (v.ptr[i] < '0' || v.ptr[i] > '9')
			return fail(err, 400, "Content-Length is not a decimal number");
		if (n > (UINT64_MAX - 9) / 10)
			return fail(err, 400, "Content-Length too large");
		n = n * 10 + (uint64_t)(v.ptr[i] - '0');
	}
	if ((in->flags & H1I_CLEN) && n != in->clen)
		return fail(err, 400, "conflicting Content-Length values");
	in->flags |= H1I_CLEN;
	in->clen = n;
	return 0;
}

/* the first field of a conditional request: the others are absent so far
 * (WHY here, not for each request: most have none, bench/cg) */
static void cond_seen(struct h1_info *in)
{
	if (!(in->flags & H1I_COND)) {
		in->flags |= H1I_COND;
		in->c = (struct hcond){ 0 };
	}
}

/* a list field's line: the first kept, the others read from the head */
static void cond_list(struct ist *f, struct ist v, struct h1_info *in)
{
	cond_seen(in);
	if (f->ptr)
		in->flags |= H1I_LISTS;
	else
		*f = v;
}

/* a single-valued field's line: a second makes it empty, which no value
 * matches (a date that is a list is ignored, RFC 9110 13.1.3-4) */
static void cond_one(struct ist *f, struct ist v, struct h1_info *in)
{
	cond_seen(in);
	*f = f->ptr ? (struct ist){ v.ptr, 0 } : v;
}

/* a field of a conditional request: If-None-Match, If-Match, If-Range,
 * If-Modified-Since, If-Unmodified-Since */
static void cond_field(const struct h1_hdr *h, struct h1_info *in)
{
	if (ieq(h->n, "if-none-match"))
		cond_list(&in->c.inm, h->v, in);
	else if (ieq(h->n, "if-match"))
		cond_list(&in->c.im, h->v, in);
	else if (ieq(h->n, "if-range"))
		cond_one(&in->c.if_range, h->v, in);
	else if (ieq(h->n, "if-modified-since"))
		cond_one(&in->c.ims, h->v, in);
	else if (ieq(h->n, "if-unmodified-since"))
		cond_one(&in->c.ius, h->v, in);
}

static int analyze_one(const struct h1_hdr *h, struct h1_info *in,
		       struct te_state *te, unsigned *hosts, struct h1_err *err)
{
	if (ieq(h->n, "content-length"))
		return parse_clen(h->v, in, err);
	if (ieq(h->n, "transfer-encoding"))
		return each_token(h->v, te_token, te);
	if (ieq(h->n, "connection"))
		return each_token(h->v, conn_token, &in->flags);
	if (ieq(h->n, "host"))
		++*hosts;
	else if (ieq(h->n, "expect")) {
		if (!ieq(h->v, "100-continue"))
			return fail(err, 417, "only Expect: 100-continue is supported");
		in->flags |= H1I_EXPECT;
	} else if (ieq(h->n, "x-hxterm") && !in->xhx.len)
		in->xhx = h->v;
	/* WHY the validators by their first letter: each costs the other
	 * headers no compare of its own (bench/cg) */
	else if ((h->n.ptr[0] | 0x20) == 'i')
		cond_field(h, in);
	else if (h->n.len == 5 && ieq(h->n, "range")) {
		cond_seen(in);
		in->c.range = h->v;
	}
	else if (ieq(h->n, "upgrade"))
		in->flags |= ieq(h->v, "h2c") ? H1I_UPGRADE : ieq(h->v, "websocket") ? H1I_WS : 0;
	else if (ieq(h->n, "http2-settings"))
		in->settings = h->v;
	/* WHY the length first: the two WebSocket names cost every other
	 * header a compare (bench/cg: 2.5 % of an h1 request before) */
	else if (h->n.len > 16 && ieq(h->n, "sec-websocket-key"))
		in->ws_key = h->v;
	else if (h->n.len > 16 && ieq(h->n, "sec-websocket-version"))
		in->ws_ver = h->v;
	return 0;
}

static int analyze_te(const struct h1_req *r, struct h1_info *in,
		      const struct te_state *te, struct h1_err *err)
{
	if (!te->n)
		return 0;
	if (r->minor == 0)
		return fail(err, 400, "Transfer-Encoding in an HTTP/1.0 request");
	if (in->flags & H1I_CLEN)
		return fail(err, 400, "both Content-Length and Transfer-Encoding");
	if (te->n != 1 || !te->last_chunked)
		return fail(err, 501, "only Transfer-Encoding: chunked is supported");
	in->flags |= H1I_CHUNKED;
	return 0;
}

int h1_analyze(const struct h1_req *r, struct h1_info *in, uint64_t max_body,
	       struct h1_err *err)
{
	struct te_state te = { 0, 0 };
	unsigned hosts = 0;

	/* WHY GET by memcmp: a method is case-sensitive (RFC 9110 9.1), and
	 * strncasecmp cost each request 40 instructions */
	in->flags = r->method.len == 3 && !memcmp(r->method.ptr, "GET", 3) ? H1I_GET :
		    ieq(r->method, "HEAD") ? H1I_HEAD : 0;
	in->clen = 0;
	in->xhx = in->settings = in->ws_key = in->ws_ver = (struct ist){ NULL, 0 };
	if (ieq(r->method, "CONNECT"))
		return fail(err, 501, "CONNECT is not supported");
	for (unsigned i = 0; i < r->nhdrs; i++)
		if (analyze_one(&r->hdrs[i], in, &te, &hosts, err) < 0)
			return -1;
	if (analyze_te(r, in, &te, err) < 0)
		return -1;
	if (hosts > 1 || (r->minor == 1 && hosts == 0))
		return fail(err, 400, hosts ? "more than one Host header"
					    : "HTTP/1.1 request without Host");
	if (!in->settings.len)
		in->flags &= ~H1I_UPGRADE;
	if ((in->flags & H1I_WS) && !(in->flags & H1I_CONN_UPG))
		in->flags &= ~H1I_WS; /* WHY: no Connection: upgrade, no upgrade (RFC 9110 7.8) */
	if ((in->flags & H1I_WS) && (!ieq(r->method, "GET") || r->minor != 1))
		return fail(err, 400, "a WebSocket handshake is a GET in HTTP/1.1");
	if ((in->flags & H1I_WS) && in->ws_key.len != 24)
		return fail(err, 400, "Sec-WebSocket-Key missing or not 16 bytes in base64");
	if ((in->flags & H1I_WS) && !ieq(in->ws_ver, "13"))
		return fail(err, 400, "Sec-WebSocket-Version must be 13");
	if ((in->flags & H1I_CLEN) && in->clen > max_body)
		return fail(err, 413, "request body larger than --max-body");
	return 0;
}

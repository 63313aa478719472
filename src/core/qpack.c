/* A QPACK encoder for response heads (RFC 9204): static-table references and raw literals, no dynamic table, no Huffman; and a walk that counts a request field section's lines without decoding them. */
#include <string.h>

#include "common.h"
#include "qpack.h"
#include "stab.h"

#define STATIC_N 99

/* the static table (RFC 9204 Appendix A): names, then values */
static const char *const static_names[STATIC_N] = {
	":authority", ":path", "age", "content-disposition", "content-length", "cookie", "date", "etag",
	"if-modified-since", "if-none-match", "last-modified", "link", "location", "referer",
	"set-cookie", ":method", ":method", ":method", ":method", ":method", ":method", ":method",
	":scheme", ":scheme", ":status", ":status", ":status", ":status", ":status", "accept", "accept",
	"accept-encoding", "accept-ranges", "access-control-allow-headers",
	"access-control-allow-headers", "access-control-allow-origin", "cache-control",
	"cache-control", "cache-control", "cache-control", "cache-control", "cache-control",
	"content-encoding", "content-encoding", "content-type", "content-type", "content-type",
	"content-type", "content-type", "content-type", "content-type", "content-type", "content-type",
	"content-type", "content-type", "range", "strict-transport-security",
	"strict-transport-security", "strict-transport-security", "vary", "vary",
	"x-content-type-options", "x-xss-protection", ":status", ":status", ":status", ":status",
	":status", ":status", ":status", ":status", ":status", "accept-language",
	"access-control-allow-credentials", "access-control-allow-credentials",
	"access-control-allow-headers", "access-control-allow-methods",
	"access-control-allow-methods", "access-control-allow-methods",
	"access-control-expose-headers", "access-control-request-headers",
	"access-control-request-method", "access-control-request-method", "alt-svc", "authorization",
	"content-security-policy", "early-data", "expect-ct", "forwarded", "if-range", "origin",
	"purpose", "server", "timing-allow-origin", "upgrade-insecure-requests", "user-agent",
	"x-forwarded-for", "x-frame-options", "x-frame-options",
};

static const char *const static_values[STATIC_N] = {
	"", "/", "0", "", "0", "", "", "", "", "", "", "", "", "", "", "CONNECT", "DELETE", "GET",
	"HEAD", "OPTIONS", "POST", "PUT", "http", "https", "103", "200", "304", "404", "503", "*/*",
	"application/dns-message", "gzip, deflate, br", "bytes", "cache-control", "content-type", "*",
	"max-age=0", "max-age=2592000", "max-age=604800", "no-cache", "no-store",
	"public, max-age=31536000", "br", "gzip", "application/dns-message", "application/javascript",
	"application/json", "application/x-www-form-urlencoded", "image/gif", "image/jpeg",
	"image/png", "text/css", "text/html; charset=utf-8", "text/plain", "text/plain;charset=utf-8",
	"bytes=0-", "max-age=31536000", "max-age=31536000; includesubdomains",
	"max-age=31536000; includesubdomains; preload", "accept-encoding", "origin", "nosniff",
	"1; mode=block", "100", "204", "206", "302", "400", "403", "421", "425", "500", "", "FALSE",
	"TRUE", "*", "get", "get, post, options", "options", "content-length", "content-type", "get",
	"post", "clear", "", "script-src 'none'; object-src 'none'; base-uri 'none'", "1", "", "", "",
	"", "prefetch", "", "*", "1", "", "", "deny", "sameorigin",
};

static struct stab names;
static uint8_t value_len[STATIC_N];

/* WHY before main: a decoder asks for a static entry's lengths for each
 * field line, and a pthread_once there cost ~10 instructions a line (108 a
 * request in hxload's h3) */
__attribute__((constructor)) static void names_build(void)
{
	stab_build(&names, static_names, STATIC_N);
	for (unsigned i = 0; i < STATIC_N; i++)
		value_len[i] = (uint8_t)strlen(static_values[i]);
}

int qpk_static_entry(unsigned i, const char **name, const char **value)
{
	if (i >= STATIC_N)
		return -1;
	*name = static_names[i];
	*value = static_values[i];
	return 0;
}

size_t qpk_bound(const struct hpk_field *f, size_t n)
{
	size_t b = 2; /* the prefix: no dynamic table, so one byte each */

	for (size_t i = 0; i < n; i++)
		b += 10 + f[i].nlen + 10 + f[i].vlen;
	return b;
}

/* the entry + 1 that has <f>'s name and value both, from its name's first
 * entry + 1 <e>; 0 when none has */
static unsigned whole_of(unsigned e, const struct hpk_field *f)
{
	for (unsigned i = e; i; i = stab_next(&names, i))
		if (value_len[i - 1] == f->vlen && !memcmp(static_values[i - 1], f->value, f->vlen))
			return i;
	return 0;
}

/* WHY a memo of literal names: a response head names the same fields each
 * time (:status, content-type, x-req, x-rsp...). Each was found by a hash
 * and a compare in the static table, then its value compared with each of
 * the name's static values (eleven for content-type): 324 and 163
 * instructions an h3 response (callgrind). A literal's address names its
 * bytes for the process's life, so its lookup is kept by address, with the
 * last value seen and the entry that has both. WHY 64 slots and four probes:
 * with 16 slots direct-mapped, the six names of a head shared a slot as
 * often as not, and a moved literal undid the gain (9,300 -> 9,738) */
#define NM_SLOTS  64
#define NM_PROBES 4
#define NM_VMAX   30 /* value bytes kept: a longer value is looked up each time */
struct name_memo {
	const uint8_t *name; /* a literal name, or NULL */
	size_t nlen;         /* WHY too: a literal's address may start a longer one */
	uint8_t e;           /* its first entry + 1, 0: none */
	uint8_t whole;       /* the entry + 1 with the value below too, 0: none */
	uint8_t vlen;        /* the value's length, NM_VMAX + 1: none kept */
	uint8_t v[NM_VMAX];
};
static __thread struct name_memo memo[NM_SLOTS];

/* <f>'s slot: the one that has its name, else a free one of the probes,
 * else the first probe's, taken over */
static struct name_memo *memo_of(const struct hpk_field *f)
{
	unsigned h = hpk_lit_hash(f->name, 6);
	struct name_memo *m;

	for (unsigned k = 0; k < NM_PROBES; k++) {
		m = &memo[(h + k) % NM_SLOTS];
		if (m->name == f->name && m->nlen == f->nlen)
			return m;
		if (!m->name)
			break;
	}
	if (m->name)
		m = &memo[h];
	m->name = f->name;
	m->nlen = f->nlen;
	m->e = (uint8_t)stab_find(&names, f->name, f->nlen);
	m->vlen = NM_VMAX + 1;
	return m;
}

static unsigned memo_whole(struct name_memo *m, const struct hpk_field *f)
{
	unsigned w;

	if (!m->e)
		return 0;
	if (m->vlen == f->vlen && !memcmp(m->v, f->value, f->vlen))
		return m->whole;
	w = whole_of(m->e, f);
	if (f->vlen <= NM_VMAX) {
		m->vlen = (uint8_t)f->vlen;
		memcpy(m->v, f->value, f->vlen);
		m->whole = (uint8_t)w;
	}
	return w;
}

/* one field line: indexed when the static table has all of it (and it may
 * be indexed), else a literal with the name referenced when it has the
 * name, else a literal name (4.5.2, 4.5.4, 4.5.6) */
static uint8_t *put_field(uint8_t *o, const struct hpk_field *f)
{
	uint8_t never = (f->flags & HPK_NO_INDEX) ? 1 : 0;
	struct name_memo *m = (f->flags & HPK_LITERAL_NAME) && f->nlen ? memo_of(f) : NULL;
	unsigned e = m ? m->e : stab_find(&names, f->name, f->nlen), whole;

	/* WHY not for a never-indexed field: only a literal carries the N bit */
	whole = never ? 0 : m ? memo_whole(m, f) : whole_of(e, f);
	if (whole)
		return hpk_int(o, 0xc0, 6, whole - 1); /* 1 T=1 index */
	if (e)
		o = hpk_int(o, (uint8_t)(0x50 | never << 5), 4, e - 1); /* 0 1 N T=1 index */
	else {
		o = hpk_int(o, (uint8_t)(0x20 | never << 4), 3, f->nlen); /* 0 0 1 N H=0 length */
		memcpy(o, f->name, f->nlen);
		o += f->nlen;
	}
	return hpk_str(o, f->value, f->vlen);
}

int qpk_static_field(unsigned i, const char **name, size_t *nlen, const char **value, size_t *vlen)
{
	if (i >= STATIC_N)
		return -1;
	*name = static_names[i];
	*nlen = names.len[i];
	*value = static_values[i];
	*vlen = value_len[i];
	return 0;
}

size_t qpk_encode(uint8_t *out, const struct hpk_field *f, size_t n)
{
	uint8_t *o = out;

	*o++ = 0; /* Required Insert Count 0 (4.5.1.1) */
	*o++ = 0; /* Delta Base 0, sign 0 */
	for (size_t i = 0; i < n; i++)
		o = put_field(o, &f[i]);
	return (size_t)(o - out);
}

/* ---------- the walk of a request's field section ---------- */

enum { QW_FTYPE, QW_FLEN, QW_FSKIP, QW_INT, QW_SKIP, QW_RIC, QW_BASE, QW_LINE, QW_STR, QW_NEXT,
       QW_DONE, QW_ERR };

void qpk_walk_init(struct qpk_walk *w)
{
	*w = (struct qpk_walk){ .st = QW_FTYPE };
}

/* the next string of the field line, or the next line */
static void str_done(struct qpk_walk *w)
{
	w->st = w->strs ? QW_STR : QW_LINE;
	w->strs -= !!w->strs;
}

static void int_done(struct qpk_walk *w)
{
	if (w->is_len) {
		w->skip = w->val;
		w->st = QW_SKIP;
		if (!w->skip)
			str_done(w);
	} else if (w->after == QW_NEXT) {
		str_done(w);
	} else {
		w->st = w->after;
	}
}

/* an integer with a <bits>-bit prefix (RFC 9204 4.1.1) starts with <b> */
static void int_start(struct qpk_walk *w, uint8_t b, unsigned bits, int is_len, uint8_t after)
{
	uint8_t mask = (uint8_t)((1u << bits) - 1);

	w->val = b & mask;
	w->is_len = (uint8_t)is_len;
	w->after = after;
	w->shift = 0;
	w->st = QW_INT;
	if (w->val < mask)
		int_done(w);
}

static void int_more(struct qpk_walk *w, uint8_t b)
{
	if (w->shift > 56) {
		w->st = QW_ERR;
		return;
	}
	w->val += (uint64_t)(b & 0x7f) << w->shift;
	w->shift += 7;
	if (!(b & 0x80))
		int_done(w);
}

/* a field line's first byte (4.5.2 to 4.5.6): its index or name's length,
 * then as many strings as it has */
static void line_start(struct qpk_walk *w, uint8_t b)
{
	w->lines++;
	if (b & 0x80) { /* indexed */
		w->strs = 0;
		int_start(w, b, 6, 0, QW_NEXT);
	} else if (b & 0x40) { /* literal, name referenced */
		w->strs = 1;
		int_start(w, b, 4, 0, QW_NEXT);
	} else if (b & 0x20) { /* literal name, then the value */
		w->strs = 1;
		int_start(w, b, 3, 1, QW_NEXT);
	} else if (b & 0x10) { /* indexed, post-base */
		w->strs = 0;
		int_start(w, b, 4, 0, QW_NEXT);
	} else { /* literal, post-base name reference */
		w->strs = 1;
		int_start(w, b, 3, 0, QW_NEXT);
	}
}

/* a frame's type or length, a QUIC varint, one byte */
static void varint_byte(struct qpk_walk *w, uint8_t b)
{
	if (!w->shift) {
		w->shift = (uint8_t)(1u << (b >> 6));
		w->val = b & 0x3f;
	} else {
		w->val = w->val << 8 | b;
	}
	if (--w->shift)
		return;
	if (w->st == QW_FTYPE) {
		w->hdrs = w->val == 0x01;
		w->st = QW_FLEN;
		return;
	}
	w->left = w->val;
	if (w->hdrs)
		w->st = w->left ? QW_RIC : QW_ERR;
	else
		w->st = w->left ? QW_FSKIP : QW_FTYPE;
}

/* one byte of the field section */
static void section_byte(struct qpk_walk *w, uint8_t b)
{
	switch (w->st) {
	case QW_RIC: int_start(w, b, 8, 0, QW_BASE); break;
	case QW_BASE: int_start(w, b, 7, 0, QW_LINE); break;
	case QW_LINE: line_start(w, b); break;
	case QW_STR: int_start(w, b, 7, 1, QW_NEXT); break;
	case QW_INT: int_more(w, b); break;
	}
}

int qpk_walk(struct qpk_walk *w, const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n;

	while (p < end && w->st < QW_DONE) {
		if (w->st <= QW_FLEN) {
			varint_byte(w, *p++);
		} else if (w->st == QW_FSKIP || w->st == QW_SKIP) {
			uint64_t k = MIN((uint64_t)(end - p), w->st == QW_FSKIP ? w->left : MIN(w->skip, w->left));

			p += k;
			w->left -= k;
			if (w->st == QW_FSKIP) {
				w->st = w->left ? QW_FSKIP : QW_FTYPE;
				continue;
			}
			if (!(w->skip -= k))
				str_done(w);
		} else {
			section_byte(w, *p++);
			w->left--;
		}
		if (w->st > QW_FSKIP && !w->left && w->st < QW_DONE)
			w->st = w->st == QW_LINE ? QW_DONE : QW_ERR;
	}
	return w->st == QW_DONE ? 1 : w->st == QW_ERR ? -1 : 0;
}

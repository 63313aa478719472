/* Conditional and range requests: Last-Modified per target and its IMF-fixdate, If-Modified-Since, one Range (bytes=a-b, a-, -n) and If-Range. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cond.h"

#define COND_BASE 1767225600 /* 2026-01-01T00:00:00Z */

int64_t cond_lastmod(struct ist target)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < target.len; i++)
		h = (h ^ (unsigned char)target.ptr[i]) * 0x100000001b3ULL;
	return COND_BASE - 1 - (int64_t)(h % (365 * 86400));
}

void cond_date(char *out, int64_t t)
{
	char buf[COND_DATE_LEN + 1];
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	memcpy(out, buf, COND_DATE_LEN);
}

/* ---------- HTTP-dates (RFC 9110 5.6.7) ---------- */

static const char wdays[7][10] = { "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday" };
static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
				    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

/* <n> decimal digits at <p>, or -1 */
static int num(const char *p, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	return v;
}

/* the month named at <p> (3 letters, case as the grammar has it), 1-12, or -1 */
static int month_at(const char *p)
{
	for (int i = 0; i < 12; i++)
		if (!memcmp(p, months[i], 3))
			return i + 1;
	return -1;
}

/* whether [p, p + n) is a day name: its 3 letters, or the whole (RFC 850's, 6 letters or more) */
static int wday_at(const char *p, size_t n)
{
	for (int i = 0; i < 7; i++)
		if (n == 3 ? !memcmp(p, wdays[i], 3) : n == strlen(wdays[i]) && !memcmp(p, wdays[i], n))
			return 1;
	return 0;
}

/* days from 1970-01-01 to <y>-<m>-<d> of the proleptic Gregorian calendar
 * (H. Hinnant's days_from_civil): no libc, no time zone */
static int64_t civil_days(int64_t y, int m, int d)
{
	int64_t era, yoe, doy;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

static int month_days(int64_t y, int m)
{
	static const unsigned char n[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) ? 29 : n[m - 1];
}

/* "HH:MM:SS" at <p>: the seconds of the day, or -1 (60 seconds: a leap one) */
static int64_t hms(const char *p)
{
	int h = num(p, 2), m = num(p + 3, 2), s = num(p + 6, 2);

	if (p[2] != ':' || p[5] != ':' || h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 60)
		return -1;
	return h * 3600 + m * 60 + s;
}

/* a broken-down date as epoch seconds in <*t>: 0, or -1 when it is none */
static int stamp(int64_t y, int m, int d, int64_t sec, int64_t *t)
{
	if (m < 1 || y < 0 || sec < 0 || d < 1 || d > month_days(y, m))
		return -1;
	*t = civil_days(y, m, d) * 86400 + sec;
	return 0;
}

/* RFC 850's two-digit year <yy> (RFC 9110 5.6.7: one that appears more than
 * 50 years in the future is the most recent past year with those digits):
 * the latest year ending in <yy> whose date is not more than 50 years after
 * <now> */
static int64_t year2(int yy, int m, int d, int64_t sec, int64_t now)
{
	int64_t days = now >= 0 ? now / 86400 : (now - 86399) / 86400;
	time_t tt = (time_t)now;
	struct tm tm;
	int64_t y, limit;

	gmtime_r(&tt, &tm);
	/* WHY civil_days unchecked: 29 Feb + 50 years may be none, and rolls on */
	limit = civil_days(tm.tm_year + 1900 + 50, tm.tm_mon + 1, tm.tm_mday) * 86400 + (now - days * 86400);
	for (y = (tm.tm_year + 1900) / 100 * 100 + 100 + yy; civil_days(y, m, d) * 86400 + sec > limit;)
		y -= 100;
	return y;
}

/* "Sun, 06 Nov 1994 08:49:37 GMT" */
static int imf_fixdate(const char *p, int64_t *t)
{
	int d = num(p + 5, 2), m = month_at(p + 8), y = num(p + 12, 4);

	if (!wday_at(p, 3) || memcmp(p + 3, ", ", 2) || p[7] != ' ' || p[11] != ' ' || p[16] != ' ' ||
	    memcmp(p + 25, " GMT", 4) || d < 0 || y < 0)
		return -1;
	return stamp(y, m, d, hms(p + 17), t);
}

/* "Sun Nov  6 08:49:37 1994" (the day: two digits, or a space and one) */
static int asctime_date(const char *p, int64_t *t)
{
	int m = month_at(p + 4), d = p[8] == ' ' ? num(p + 9, 1) : num(p + 8, 2), y = num(p + 20, 4);

	if (!wday_at(p, 3) || p[3] != ' ' || p[7] != ' ' || p[10] != ' ' || p[19] != ' ' || d < 0 || y < 0)
		return -1;
	return stamp(y, m, d, hms(p + 11), t);
}

/* "Sunday, 06-Nov-94 08:49:37 GMT": <n> bytes, the day's name <w> long */
static int rfc850_date(const char *p, size_t n, size_t w, int64_t now, int64_t *t)
{
	const char *q = p + w + 2;
	int d = num(q, 2), m, yy = num(q + 7, 2);
	int64_t sec;

	if (n != w + 24 || w < 6 || !wday_at(p, w) || p[w + 1] != ' ' || q[2] != '-' || q[6] != '-' || q[9] != ' ' ||
	    memcmp(q + 18, " GMT", 4) || d < 0 || yy < 0 || (m = month_at(q + 3)) < 0 || (sec = hms(q + 10)) < 0)
		return -1;
	return stamp(year2(yy, m, d, sec, now), m, d, sec, t);
}

int cond_parse_date(struct ist v, int64_t now, int64_t *t)
{
	const char *comma;

	if (v.len == COND_DATE_LEN && v.ptr[3] == ',')
		return imf_fixdate(v.ptr, t);
	if (v.len == 24 && v.ptr[3] == ' ')
		return asctime_date(v.ptr, t);
	if (v.len > 24 && (comma = memchr(v.ptr, ',', v.len)))
		return rfc850_date(v.ptr, v.len, (size_t)(comma - v.ptr), now, t);
	return -1;
}

/* the digits at [*p, end) as a number; 0, or -1 when none or too many */
static int digits(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	for (; *p < end && **p >= '0' && **p <= '9'; (*p)++) {
		if (*p - s >= 18)
			return -1;
		*v = *v * 10 + (uint64_t)(**p - '0');
	}
	return *p > s ? 0 : -1;
}

/* one range spec of <size> bytes in [p, end): "a-b", "a-", "-n" */
static enum cond_range one(const char *p, const char *end, uint64_t size, uint64_t *from, uint64_t *len)
{
	uint64_t a, b;

	if (p < end && *p == '-') { /* the last n bytes */
		p++;
		if (digits(&p, end, &b) < 0 || p != end)
			return COND_WHOLE;
		if (!b || !size)
			return COND_NONE;
		*len = MIN(b, size);
		*from = size - *len;
		return COND_PART;
	}
	if (digits(&p, end, &a) < 0 || p >= end || *p++ != '-')
		return COND_WHOLE;
	b = UINT64_MAX;
	if (p < end && digits(&p, end, &b) < 0)
		return COND_WHOLE;
	if (p != end || b < a)
		return COND_WHOLE;
	if (a >= size)
		return COND_NONE;
	*from = a;
	*len = MIN(b, size - 1) - a + 1;
	return COND_PART;
}

enum cond_range cond_range(struct ist range, uint64_t size, struct hspan *sp, unsigned *n)
{
	const char *p = range.ptr, *end = range.ptr + range.len;
	unsigned specs = 0;

	*n = 0;
	if (range.len < 7 || strncasecmp(p, "bytes=", 6))
		return COND_WHOLE;
	for (p += 6; p < end; specs++) {
		const char *e = memchr(p, ',', (size_t)(end - p)), *q = e ? e : end, *t = q;
		uint64_t from = 0, len = 0;
		enum cond_range r;

		while (p < q && (*p == ' ' || *p == '\t'))
			p++;
		while (t > p && (t[-1] == ' ' || t[-1] == '\t'))
			t--;
		r = one(p, t, size, &from, &len);
		if (r == COND_WHOLE || (r == COND_PART && *n == COND_SPANS))
			return COND_WHOLE; /* WHY whole: a bad spec, or more parts than we make, RFC 9110 lets us ignore */
		if (r == COND_PART)
			sp[(*n)++] = (struct hspan){ from, len };
		p = e ? e + 1 : end;
	}
	if (!*n)
		return specs ? COND_NONE : COND_WHOLE;
	return *n == 1 ? COND_PART : COND_MULTI;
}

/* ---------- preconditions (RFC 9110 13) ---------- */

/* one entity-tag at <*p>: its opaque part with its quotes in <*o>, <*w>
 * whether weak; <*p> moved past it. 0, or -1 when none is there */
static int etag_at(const char **p, const char *end, struct ist *o, int *w)
{
	const char *s = *p, *q;

	*w = end - s >= 2 && s[0] == 'W' && s[1] == '/';
	s += *w ? 2 : 0;
	if (s >= end || *s != '"' || !(q = memchr(s + 1, '"', (size_t)(end - s - 1))))
		return -1;
	*o = (struct ist){ s, (size_t)(q + 1 - s) };
	*p = q + 1;
	return 0;
}

static int ows_or_comma(char c)
{
	return c == ' ' || c == '\t' || c == ',';
}

int cond_tag_in(struct ist list, const char *tag, size_t taglen, int weak)
{
	const char *p = list.ptr, *end = list.ptr + list.len;
	struct ist o;
	int w;

	for (;;) {
		while (p < end && ows_or_comma(*p))
			p++;
		if (p == end)
			return 0;
		if (*p == '*')
			return p + 1 == end || ows_or_comma(p[1]);
		/* WHY stop at a malformed member: where the next one starts is unknown */
		if (etag_at(&p, end, &o, &w) < 0)
			return 0;
		if (tag && (weak || !w) && o.len == taglen && !memcmp(o.ptr, tag, taglen))
			return 1;
	}
}

struct ist cond_field_next(struct ist head, const char *name, size_t nl, const char **at)
{
	const char *p = *at, *end = head.ptr + head.len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *v;

		eol = eol ? eol : end;
		*at = eol < end ? eol + 1 : end;
		if ((size_t)(eol - p) > nl && p[nl] == ':' && !strncasecmp(p, name, nl)) {
			for (v = p + nl + 1; v < eol && (*v == ' ' || *v == '\t'); v++)
				;
			while (eol > v && (eol[-1] == '\r' || eol[-1] == ' ' || eol[-1] == '\t'))
				eol--;
			return (struct ist){ v, (size_t)(eol - v) };
		}
		p = *at;
	}
	return (struct ist){ NULL, 0 };
}

/* whether a list field (first line <first>, all its lines <name> in the
 * head when several came) holds the answer's tag: its lines are one list
 * (RFC 9110 5.3) */
static int listed(const struct hreq *rq, struct ist first, const char *name, size_t nl,
		  const struct cond_rep *rep, int weak)
{
	const char *at = rq->echo.ptr;
	struct ist v;

	if (!(rq->flags & RQ_LISTS))
		return cond_tag_in(first, rep->tag, rep->taglen, weak);
	while ((v = cond_field_next(rq->echo, name, nl, &at)).ptr)
		if (cond_tag_in(v, rep->tag, rep->taglen, weak))
			return 1;
	return 0;
}

/* a date field against the answer's Last-Modified: -1 when it is ignored
 * (absent, not an HTTP-date, no Last-Modified), else whether the answer was
 * modified after it */
static int modified_since(struct ist v, const struct cond_rep *rep, int64_t now)
{
	int64_t t;

	if (!v.ptr || rep->lm == COND_NO_DATE || cond_parse_date(v, now, &t) < 0)
		return -1;
	return rep->lm > t;
}

enum cond_pre cond_pre(const struct hreq *rq, const struct cond_rep *rep, int64_t now)
{
	int safe = !!(rq->flags & (RQ_GET | RQ_HEAD));

	if (rq->c.im.ptr) {
		if (!listed(rq, rq->c.im, "if-match", 8, rep, 0))
			return COND_412_IM;
	} else if (modified_since(rq->c.ius, rep, now) == 1) {
		return COND_412_IUS;
	}
	if (rq->c.inm.ptr) {
		if (listed(rq, rq->c.inm, "if-none-match", 13, rep, 1))
			return safe ? COND_304 : COND_412_INM;
	} else if (safe && modified_since(rq->c.ims, rep, now) == 0) {
		return COND_304;
	}
	return COND_GO;
}

struct ist cond_why(enum cond_pre pre)
{
	switch (pre) {
	case COND_412_IM:
		return IST("If-Match: none of its entity tags is this answer's (e=1 sends one)\n");
	case COND_412_IUS:
		return IST("If-Unmodified-Since: this answer's Last-Modified (L=1) is later\n");
	case COND_412_INM:
		return IST("If-None-Match matched: a method other than GET or HEAD is refused, not answered 304\n");
	default:
		return IST("");
	}
}

int cond_if_range(struct ist v, const struct cond_rep *rep, int64_t now)
{
	int64_t t;

	if (!v.ptr)
		return 1;
	if (v.len && v.ptr[0] == '"')
		return rep->tag && v.len == rep->taglen && !memcmp(v.ptr, rep->tag, rep->taglen);
	return rep->lm != COND_NO_DATE && cond_parse_date(v, now, &t) == 0 && t == rep->lm;
}

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

/* an IMF-fixdate (RFC 9110 5.6.7) as epoch seconds, or -1 */
static int64_t parse_date(struct ist v)
{
	char buf[64];
	struct tm tm = { 0 };
	const char *end;

	if (v.len != COND_DATE_LEN)
		return -1;
	memcpy(buf, v.ptr, v.len);
	buf[v.len] = 0;
	end = strptime(buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
	return end && !*end ? (int64_t)timegm(&tm) : -1;
}

int cond_not_modified(struct ist ims, int64_t lm)
{
	int64_t t = parse_date(ims);

	return t >= 0 && lm <= t;
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

int cond_if_range(struct ist v, const char *tag, size_t taglen, const char *date)
{
	if (!v.len)
		return 1;
	if (v.ptr[0] == '"')
		return tag && v.len == taglen && !memcmp(v.ptr, tag, taglen);
	return date && v.len == COND_DATE_LEN && !memcmp(v.ptr, date, COND_DATE_LEN);
}

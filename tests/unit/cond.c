/* Conditional and range requests (core/cond.c): Last-Modified per target, IMF-fixdates, If-Modified-Since, one Range, If-Range. */
#include "cond.h"
#include "parts.h"
#include "tap.h"

#define S(s) ((struct ist){ (s), sizeof(s) - 1 })

static void dates(void)
{
	char d[COND_DATE_LEN + 1] = { 0 };
	int64_t a = cond_lastmod(S("/?s=1&L=1")), b = cond_lastmod(S("/?s=2&L=1"));

	ok(a == cond_lastmod(S("/?s=1&L=1")) && a != b, "Last-Modified: the same for a target, another for another");
	ok(a < 1767225600 && a >= 1767225600 - 365 * 86400, "... within the year before 2026");
	cond_date(d, 784111777);
	is_str(d, "Sun, 06 Nov 1994 08:49:37 GMT", "an IMF-fixdate (RFC 9110's example)");
	ok(cond_not_modified(S("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777), "If-Modified-Since: the same date: not modified");
	ok(cond_not_modified(S("Mon, 07 Nov 1994 08:49:37 GMT"), 784111777), "... a later one: not modified");
	ok(!cond_not_modified(S("Sat, 05 Nov 1994 08:49:37 GMT"), 784111777), "... an earlier one: modified");
	ok(!cond_not_modified(S("Sunday, 06-Nov-94 08:49:37 GMT"), 784111777), "... the obsolete RFC 850 form: ignored");
	ok(!cond_not_modified(S("garbage"), 0), "... garbage: ignored");
}

static void ranges(void)
{
	struct hspan sp[COND_SPANS];
	unsigned n = 0;

#define R(h, size) cond_range(S(h), size, sp, &n)
	ok(R("bytes=0-9", 100) == COND_PART && sp[0].from == 0 && sp[0].len == 10, "bytes=0-9");
	ok(R("bytes=90-", 100) == COND_PART && sp[0].from == 90 && sp[0].len == 10, "bytes=90-");
	ok(R("bytes=-5", 100) == COND_PART && sp[0].from == 95 && sp[0].len == 5, "bytes=-5");
	ok(R("bytes=-500", 100) == COND_PART && sp[0].from == 0 && sp[0].len == 100, "bytes=-500: all");
	ok(R("bytes=50-5000", 100) == COND_PART && sp[0].from == 50 && sp[0].len == 50, "an end past it: cut");
	ok(R("BYTES= 1-1", 100) == COND_PART && sp[0].from == 1 && sp[0].len == 1, "the unit in any case, a space");
	ok(R("bytes=100-", 100) == COND_NONE, "a start at the end: none (416)");
	ok(R("bytes=-0", 100) == COND_NONE, "the last 0 bytes: none");
	ok(R("bytes=0-", 0) == COND_NONE, "an empty body: none");
	ok(R("bytes=0-1,5-6", 100) == COND_MULTI && n == 2 && sp[1].from == 5 && sp[1].len == 2, "two ranges: both");
	ok(R("bytes=0-1, 500-600, -3", 100) == COND_MULTI && n == 2 && sp[1].from == 97, "one past the end: left out");
	ok(R("bytes=500-600,0-4", 100) == COND_PART && n == 1 && sp[0].len == 5, "one of two left: a single part");
	ok(R("bytes=500-600,700-", 100) == COND_NONE, "none left: 416");
	ok(R("bytes=0-0,1-1,2-2,3-3,4-4,5-5,6-6,7-7,8-8", 100) == COND_WHOLE, "nine parts: the whole");
	ok(R("bytes=0-1,x", 100) == COND_WHOLE, "a bad one among them: the whole");
	ok(parts_len(sp, 0, 100) == sizeof("\r\n--" COND_BOUNDARY "--\r\n") - 1, "no part: the close delimiter");
	ok(R("bytes=5-1", 100) == COND_WHOLE, "an end before the start: ignored");
	ok(R("bytes=a-1", 100) == COND_WHOLE, "not a number: ignored");
	ok(R("items=0-1", 100) == COND_WHOLE, "another unit: ignored");
	ok(R("bytes=99999999999999999999-", 100) == COND_WHOLE, "a number too long: ignored");
#undef R
}

static void if_range(void)
{
	ok(cond_if_range(S(""), NULL, 0, NULL), "no If-Range: the range holds");
	ok(cond_if_range(S("\"abc\""), "\"abc\"", 5, NULL), "its entity tag");
	ok(!cond_if_range(S("\"abd\""), "\"abc\"", 5, NULL), "another tag");
	ok(!cond_if_range(S("W/\"abc\""), "\"abc\"", 5, NULL), "a weak tag never matches");
	ok(!cond_if_range(S("\"abc\""), NULL, 0, "Sun, 06 Nov 1994 08:49:37 GMT"), "a tag when none was sent");
	ok(cond_if_range(S("Sun, 06 Nov 1994 08:49:37 GMT"), NULL, 0, "Sun, 06 Nov 1994 08:49:37 GMT"), "its date, exactly");
	ok(!cond_if_range(S("Sun, 06 Nov 1994 08:49:38 GMT"), NULL, 0, "Sun, 06 Nov 1994 08:49:37 GMT"), "another date");
}

int main(void)
{
	dates();
	ranges();
	if_range();
	return done_testing();
}

/* Conditional and range requests (core/cond.c): Last-Modified per target, HTTP-dates in their three forms, entity-tag lists, the preconditions by method, Ranges, If-Range. */
#include <string.h>

#include "cond.h"
#include "parts.h"
#include "tap.h"

#define S(s) ((struct ist){ (s), sizeof(s) - 1 })
#define NOW  ((int64_t)1796400000) /* 2026-12-04T16:00:00Z: the clock a two-digit year is placed by */
#define T94  ((int64_t)784111777)  /* Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example */

/* the date <v> as epoch seconds, -2 when it is not one */
static int64_t date(const char *v)
{
	int64_t t;

	return cond_parse_date((struct ist){ v, strlen(v) }, NOW, &t) < 0 ? -2 : t;
}

static void dates(void)
{
	char d[COND_DATE_LEN + 1] = { 0 };
	int64_t a = cond_lastmod(S("/?s=1&L=1")), b = cond_lastmod(S("/?s=2&L=1"));

	ok(a == cond_lastmod(S("/?s=1&L=1")) && a != b, "Last-Modified: the same for a target, another for another");
	ok(a < 1767225600 && a >= 1767225600 - 365 * 86400, "... within the year before 2026");
	cond_date(d, 784111777);
	is_str(d, "Sun, 06 Nov 1994 08:49:37 GMT", "an IMF-fixdate (RFC 9110's example)");
	is_int(date(d), T94, "... read back");
	is_int(date("Sun, 06 Nov 1994 08:49:37 GMT"), T94, "IMF-fixdate");
	is_int(date("Sunday, 06-Nov-94 08:49:37 GMT"), T94, "RFC 850's form, a two-digit year");
	is_int(date("Sun Nov  6 08:49:37 1994"), T94, "asctime's form, the day after a space");
	is_int(date("Sun Nov 06 08:49:37 1994"), T94, "... or in two digits");
	is_int(date("Wed, 31 Dec 2025 23:59:59 GMT"), 1767225599, "IMF-fixdate: the last second of 2025");
	is_int(date("Wednesday, 31-Dec-25 23:59:59 GMT"), 1767225599, "RFC 850: the same second");
	is_int(date("Wed Dec 31 23:59:59 2025"), 1767225599, "asctime: the same second");
	is_int(date("Thu, 29 Feb 2024 12:00:00 GMT"), 1709208000, "29 February of a leap year");
	is_int(date("Thu, 01 Jan 1970 00:00:00 GMT"), 0, "the epoch itself");
	is_int(date("Mon, 01 Jan 1900 00:00:00 GMT"), -2208988800LL, "a date before the epoch");
	/* RFC 9110 5.6.7: a two-digit year more than 50 years ahead is the last
	 * past one with those digits; NOW is in December 2026 */
	is_int(date("Wednesday, 01-Jan-76 00:00:00 GMT"), 3345062400LL, "two digits 76: 2076, under 50 years ahead");
	is_int(date("Saturday, 01-Jan-77 00:00:00 GMT"), 220924800, "two digits 77: 1977, 2077 is over 50 years ahead");
	is_int(date("Friday, 04-Dec-76 16:00:00 GMT"), 3374323200LL, "50 years ahead to the second: 2076");
	is_int(date("Saturday, 04-Dec-76 16:00:01 GMT"), 218563201, "a second more: 1976");
	is_int(date("Wednesday, 01-Jan-70 00:00:00 GMT"), 3155760000LL, "two digits 70: 2070");
	is_int(date("Saturday, 01-Jan-00 00:00:00 GMT"), 946684800, "two digits 00: 2000");
	is_int(date("Tuesday, 29-Feb-00 00:00:00 GMT"), 951782400, "29-Feb-00: 2000 is a leap year");
	is_int(date("Sun, 31 Nov 1994 08:49:37 GMT"), -2, "31 November: none");
	is_int(date("Sat, 29 Feb 2025 00:00:00 GMT"), -2, "29 February of a common year: none");
	is_int(date("Sun, 06 Nov 1994 24:00:00 GMT"), -2, "hour 24: none");
	is_int(date("Sun, 06 Nov 1994 08:60:00 GMT"), -2, "minute 60: none");
	is_int(date("Sun, 06 Nov 1994 08:49:37 UTC"), -2, "not GMT: none");
	is_int(date("sun, 06 nov 1994 08:49:37 GMT"), -2, "lower-case names: none (the grammar is case-sensitive)");
	is_int(date("Sun, 6 Nov 1994 08:49:37 GMT"), -2, "IMF-fixdate with a one-digit day: none");
	is_int(date("Sun, 06 Nov 94 08:49:37 GMT"), -2, "IMF-fixdate with a two-digit year: none");
	is_int(date("Sun, 06-Nov-94 08:49:37 GMT"), -2, "RFC 850 with a short day name: none");
	is_int(date("Sunday, 06-Nov-1994 08:49:37 GMT"), -2, "RFC 850 with four digits: none");
	is_int(date("Sun Nov 6 08:49:37 1994"), -2, "asctime without the day's space: none");
	is_int(date("Xyz, 06 Nov 1994 08:49:37 GMT"), -2, "not a day name: none");
	is_int(date(""), -2, "empty: none");
	is_int(date("garbage"), -2, "garbage: none");
	is_int(date("Sunday, 06-Nov-94 08:49:37 GMTX"), -2, "a byte after it: none");
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
	const struct cond_rep tag = { "\"abc\"", 5, COND_NO_DATE }, lm = { NULL, 0, T94 }, both = { "\"abc\"", 5, T94 };

	ok(cond_if_range((struct ist){ NULL, 0 }, &both, NOW), "no If-Range: the range holds");
	ok(cond_if_range(S("\"abc\""), &tag, NOW), "its entity tag");
	ok(!cond_if_range(S("\"abd\""), &tag, NOW), "another tag");
	ok(!cond_if_range(S("W/\"abc\""), &both, NOW), "a weak tag never matches");
	ok(!cond_if_range(S("\"abc\""), &lm, NOW), "a tag when none was sent");
	ok(cond_if_range(S("Sun, 06 Nov 1994 08:49:37 GMT"), &lm, NOW), "its date, exactly");
	ok(cond_if_range(S("Sunday, 06-Nov-94 08:49:37 GMT"), &lm, NOW), "its date in RFC 850's form");
	ok(cond_if_range(S("Sun Nov  6 08:49:37 1994"), &lm, NOW), "its date in asctime's form");
	ok(!cond_if_range(S("Sun, 06 Nov 1994 08:49:38 GMT"), &lm, NOW), "another date");
	ok(!cond_if_range(S("Sun, 06 Nov 1994 08:49:37 GMT"), &tag, NOW), "a date when none was sent");
	ok(!cond_if_range(S(""), &both, NOW), "empty: neither a tag nor a date, the whole body");
	ok(!cond_if_range(S("abc"), &both, NOW), "a bare word: the whole body");
	ok(!cond_if_range(S("*"), &both, NOW), "*: the whole body");
}

static void tag_lists(void)
{
	const char *t = "\"abc\"";

	ok(cond_tag_in(S("\"abc\""), t, 5, 0), "a list of one: its tag");
	ok(cond_tag_in(S("\"x\", \"abc\""), t, 5, 0), "the second of two");
	ok(cond_tag_in(S("\"x\",\"abc\""), t, 5, 0), "... without a space");
	ok(cond_tag_in(S(" , \"x\" ,, \"abc\" "), t, 5, 0), "... among empty members");
	ok(!cond_tag_in(S("\"x\", \"y\""), t, 5, 1), "none of two");
	ok(cond_tag_in(S("\"a,b\", \"abc\""), t, 5, 0), "a comma inside a tag is no separator");
	ok(!cond_tag_in(S("\"ab\""), t, 5, 1), "a tag that is a prefix of it: no");
	ok(!cond_tag_in(S("\"abcd\""), t, 5, 1), "a tag that holds it: no");
	ok(!cond_tag_in(S("x\"abc\""), t, 5, 1), "a malformed member: what follows is not read");
	ok(cond_tag_in(S("W/\"abc\""), t, 5, 1), "weak comparison: W/ ignored");
	ok(!cond_tag_in(S("W/\"abc\""), t, 5, 0), "strong comparison: a weak tag never matches");
	ok(cond_tag_in(S("*"), t, 5, 0), "*: any");
	ok(cond_tag_in(S("*"), NULL, 0, 0), "*: an answer without an ETag too");
	ok(!cond_tag_in(S("\"abc\""), NULL, 0, 1), "a tag, no ETag: no");
	ok(!cond_tag_in(S("*x"), t, 5, 1), "*x: not *");
	ok(!cond_tag_in(S(""), t, 5, 1), "empty: no member");
}

/* the field lines of a request head, for lists of several lines */
static void field_lines(void)
{
	struct ist head = S("GET / HTTP/1.1\r\nIf-None-Match: \"a\"\r\nHost: x\r\nif-none-match:\t\"b\" \r\nIf-None-Matches: c\r\n");
	const char *at = head.ptr;
	struct ist a = cond_field_next(head, "if-none-match", 13, &at), b = cond_field_next(head, "if-none-match", 13, &at);

	is_mem(a.ptr, a.len, "\"a\"", "the first line's value");
	is_mem(b.ptr, b.len, "\"b\"", "the second, in any case, trimmed");
	ok(!cond_field_next(head, "if-none-match", 13, &at).ptr, "no third (a longer name is another field)");
}

/* the preconditions, by method (GET, HEAD, and two others), field and match
 * (RFC 9110 13.1, 13.2.2) */
static void preconditions(void)
{
	static const struct {
		const char *im, *inm, *ims, *ius;
		enum cond_pre get, other; /* on GET and HEAD; on POST and DELETE */
		const char *what;
	} t[] = {
#define MATCH  "\"t\""
#define OTHER  "\"u\""
#define BEFORE "Sat, 05 Nov 1994 08:49:37 GMT"
#define AFTER  "Mon, 07 Nov 1994 08:49:37 GMT"
		{ NULL, NULL, NULL, NULL, COND_GO, COND_GO, "none" },
		{ MATCH, NULL, NULL, NULL, COND_GO, COND_GO, "If-Match, its tag" },
		{ OTHER, NULL, NULL, NULL, COND_412_IM, COND_412_IM, "If-Match, another tag" },
		{ "*", NULL, NULL, NULL, COND_GO, COND_GO, "If-Match: *" },
		{ "W/" MATCH, NULL, NULL, NULL, COND_412_IM, COND_412_IM, "If-Match, its tag weak (strong comparison)" },
		{ "", NULL, NULL, NULL, COND_412_IM, COND_412_IM, "If-Match, empty: no tag" },
		{ NULL, MATCH, NULL, NULL, COND_304, COND_412_INM, "If-None-Match, its tag" },
		{ NULL, "W/" MATCH, NULL, NULL, COND_304, COND_412_INM, "If-None-Match, its tag weak (weak comparison)" },
		{ NULL, "*", NULL, NULL, COND_304, COND_412_INM, "If-None-Match: *" },
		{ NULL, OTHER, NULL, NULL, COND_GO, COND_GO, "If-None-Match, another tag" },
		{ NULL, NULL, AFTER, NULL, COND_304, COND_GO, "If-Modified-Since, after it (ignored but on GET, HEAD)" },
		{ NULL, NULL, "Sunday, 06-Nov-94 08:49:37 GMT", NULL, COND_304, COND_GO, "If-Modified-Since, its date (RFC 850)" },
		{ NULL, NULL, BEFORE, NULL, COND_GO, COND_GO, "If-Modified-Since, before it" },
		{ NULL, NULL, "not a date", NULL, COND_GO, COND_GO, "If-Modified-Since, not a date" },
		{ NULL, NULL, NULL, AFTER, COND_GO, COND_GO, "If-Unmodified-Since, after it" },
		{ NULL, NULL, NULL, "Sun Nov  6 08:49:37 1994", COND_GO, COND_GO, "If-Unmodified-Since, its date (asctime)" },
		{ NULL, NULL, NULL, BEFORE, COND_412_IUS, COND_412_IUS, "If-Unmodified-Since, before it" },
		{ NULL, NULL, NULL, "", COND_GO, COND_GO, "If-Unmodified-Since, empty (ignored)" },
		/* the order of 13.2.2 */
		{ OTHER, MATCH, NULL, NULL, COND_412_IM, COND_412_IM, "a failed If-Match before If-None-Match" },
		{ MATCH, NULL, NULL, BEFORE, COND_GO, COND_GO, "If-Unmodified-Since ignored with If-Match" },
		{ NULL, MATCH, NULL, BEFORE, COND_412_IUS, COND_412_IUS, "a failed If-Unmodified-Since before If-None-Match" },
		{ NULL, OTHER, AFTER, NULL, COND_GO, COND_GO, "If-Modified-Since ignored with If-None-Match" },
		{ MATCH, MATCH, NULL, NULL, COND_304, COND_412_INM, "If-Match holds, then If-None-Match" },
	};
	static const uint32_t methods[] = { RQ_GET, RQ_HEAD, 0, 0 };
	static const char *const names[] = { "GET", "HEAD", "POST", "DELETE" };
	const struct cond_rep rep = { MATCH, 3, T94 }, bare = { NULL, 0, COND_NO_DATE };
	struct hreq rq = { 0 };

#define IS(v) ((v) ? (struct ist){ (v), strlen(v) } : (struct ist){ NULL, 0 })
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		for (size_t m = 0; m < ARRAY_SIZE(methods); m++) {
			rq.flags = RQ_COND | methods[m];
			rq.c = (struct hcond){ .im = IS(t[i].im), .inm = IS(t[i].inm), .ims = IS(t[i].ims), .ius = IS(t[i].ius) };
			is_int(cond_pre(&rq, &rep, NOW), m < 2 ? t[i].get : t[i].other, "%s %s", names[m], t[i].what);
		}
	/* an answer without validators (no e=1, no L=1) */
	rq.flags = RQ_COND | RQ_GET;
	rq.c = (struct hcond){ .im = IS(MATCH) };
	is_int(cond_pre(&rq, &bare, NOW), COND_412_IM, "no ETag: If-Match with a tag fails");
	rq.c = (struct hcond){ .im = IS("*"), .inm = IS(MATCH) };
	is_int(cond_pre(&rq, &bare, NOW), COND_GO, "no ETag: If-Match: * holds, a tag in If-None-Match does not match");
	rq.c = (struct hcond){ .ims = IS(AFTER), .ius = IS(BEFORE) };
	is_int(cond_pre(&rq, &bare, NOW), COND_GO, "no Last-Modified: both dates ignored");
	/* If-None-Match and If-Match in several lines: one list (RFC 9110 5.3) */
	rq.flags = RQ_COND | RQ_LISTS;
	rq.echo = S("DELETE / HTTP/1.1\r\nIf-None-Match: \"t\"\r\nIf-None-Match: \"x\"\r\n\r\n");
	rq.c = (struct hcond){ .inm = IS("\"t\"") };
	is_int(cond_pre(&rq, &rep, NOW), COND_412_INM, "DELETE, If-None-Match in two lines, its tag in the first");
	rq.echo = S("GET / HTTP/1.1\r\nIf-None-Match: \"x\"\r\nIf-None-Match: \"y\", \"t\"\r\n\r\n");
	rq.flags |= RQ_GET;
	rq.c = (struct hcond){ .inm = IS("\"x\"") };
	is_int(cond_pre(&rq, &rep, NOW), COND_304, "GET, its tag in the second line");
	rq.echo = S("PUT / HTTP/1.1\r\nIf-Match: \"x\"\r\nIf-Match: \"t\"\r\n\r\n");
	rq.flags = RQ_COND | RQ_LISTS;
	rq.c = (struct hcond){ .im = IS("\"x\"") };
	is_int(cond_pre(&rq, &rep, NOW), COND_GO, "PUT, If-Match in two lines, its tag in the second");
	rq.echo = S("PUT / HTTP/1.1\r\nIf-Match: \"x\"\r\nIf-Match: \"y\"\r\n\r\n");
	is_int(cond_pre(&rq, &rep, NOW), COND_412_IM, "... in neither");
#undef IS
	ok(strchr(cond_why(COND_412_IM).ptr, '\n') == cond_why(COND_412_IM).ptr + cond_why(COND_412_IM).len - 1,
	   "a 412's reason: one line");
}

int main(void)
{
	dates();
	ranges();
	if_range();
	tag_lists();
	field_lines();
	preconditions();
	return done_testing();
}

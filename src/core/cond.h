/* Conditional and range requests for a cache in front: Last-Modified from the target, HTTP-dates, the preconditions in RFC 9110's order, Ranges with If-Range. */
#ifndef HX_COND_H
#define HX_COND_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "msg-t.h"

#define COND_DATE_LEN 29 /* "Sun, 06 Nov 1994 08:49:37 GMT" */

/* The Last-Modified of <target>, epoch seconds: the same target gives the
 * same date, within the year before 2026-01-01. */
int64_t cond_lastmod(struct ist target);
/* <t> as an IMF-fixdate at <out> (COND_DATE_LEN bytes, no NUL) */
void cond_date(char *out, int64_t t);
/* An HTTP-date in any of its three forms (RFC 9110 5.6.7: IMF-fixdate,
 * RFC 850's with a two-digit year, asctime's) as epoch seconds in <*t>: 0,
 * or -1 when <v> is none of them. <now> (epoch seconds) places a two-digit
 * year: the latest year with those digits not more than 50 years after it. */
int cond_parse_date(struct ist v, int64_t now, int64_t *t);

/* The validators of the answer a request's preconditions are held against:
 * its ETag (<tag>, NULL: none, e=1 not asked) and its Last-Modified (<lm>,
 * COND_NO_DATE: none, L=1 not asked). */
#define COND_NO_DATE INT64_MIN
struct cond_rep {
	const char *tag;
	size_t taglen;
	int64_t lm;
};

/* Whether the entity-tag list <list> ("*", or tags with commas between)
 * holds <tag>: by the weak comparison (W/ ignored) when <weak>, else the
 * strong one (If-Match). "*" holds any, <tag> NULL too: the target has a
 * current answer. */
int cond_tag_in(struct ist list, const char *tag, size_t taglen, int weak);

/* What a request's preconditions decide, evaluated in RFC 9110 13.2.2's
 * order: If-Match (else If-Unmodified-Since), then If-None-Match (else, on
 * GET and HEAD, If-Modified-Since). A failed If-None-Match is a 304 on GET
 * and HEAD, a 412 on any other method (13.1.2); a date field is ignored
 * when it is not an HTTP-date or the answer has no Last-Modified. */
enum cond_pre { COND_GO, COND_304, COND_412_IM, COND_412_IUS, COND_412_INM };
enum cond_pre cond_pre(const struct hreq *rq, const struct cond_rep *rep, int64_t now);
/* a 412's one-line reason (with its newline) */
struct ist cond_why(enum cond_pre pre);

/* The next line of the field <name> (lower case, <nl> long) in a request
 * head's text <head> ("Name: value" lines) from <*at> on, <*at> moved past
 * it: its value trimmed, ptr NULL when no line is left. */
struct ist cond_field_next(struct ist head, const char *name, size_t nl, const char **at);

/* A Range of <size> bytes: COND_WHOLE (none, or not one we serve: another
 * unit, a bad syntax, over COND_SPANS parts, all of which RFC 9110 lets a
 * server ignore), COND_PART with one part in <sp>, COND_MULTI with <*n>
 * (several ranges, a multipart/byteranges answer), or COND_NONE (every
 * range starts at or past the end: 416). */
enum cond_range { COND_WHOLE, COND_PART, COND_NONE, COND_MULTI };
#define COND_SPANS 8
enum cond_range cond_range(struct ist range, uint64_t size, struct hspan *sp, unsigned *n);
/* several ranges' multipart/byteranges separator (parts.c makes the body) */
#define COND_BOUNDARY "hxterm-byteranges"
/* If-Range (RFC 9110 13.1.5): whether <v> names the answer <rep>, by its
 * strong entity tag or its exact Last-Modified date (an HTTP-date of any
 * form, placed by <now>); no If-Range (ptr NULL) keeps the range too. An
 * empty value, a weak tag or anything else names nothing: the whole body. */
int cond_if_range(struct ist v, const struct cond_rep *rep, int64_t now);

#endif

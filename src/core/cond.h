/* Conditional and range requests for a cache in front: Last-Modified from the target, If-Modified-Since, a single Range with If-Range. */
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
/* An If-Modified-Since value: 1 when <lm> is not later than it (the answer
 * is a 304), 0 otherwise or when it is not a date. */
int cond_not_modified(struct ist ims, int64_t lm);

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
/* If-Range: whether <v> names this representation, by its strong entity
 * tag (<tag>, NULL: none sent) or its exact Last-Modified date (<date>,
 * NULL: none sent); no If-Range matches too. */
int cond_if_range(struct ist v, const char *tag, size_t taglen, const char *date);

#endif

/* A gRPC call answered from the query language: length-prefixed messages of one bytes field, grpc-status in trailers. */
#ifndef HX_GRPC_H
#define HX_GRPC_H

#include <stddef.h>
#include <stdint.h>

#include "msg-t.h"
#include "plan.h"
#include "sse.h"

/* the gRPC status code r= maps to (200: OK, 503: UNAVAILABLE, ...) */
unsigned grpc_code(unsigned status);

/* The call <p> asks for <rq> (X-Hxterm metadata, grpc-timeout): HTTP 200,
 * its messages (none after an error), each a piece when d= spaces them,
 * grpc-status and grpc-message in its trailers; <*bytes> their size,
 * s->len one message's, s->data its field's. NULL, or the one-line reason
 * to answer 400 with. */
const char *grpc_plan(struct ex_sse *s, struct plan *p, const struct hreq *rq, const struct plan_limits *lim,
		      uint64_t *bytes);
/* The call's messages at <off>, each s->data bytes of the pattern in field
 * 1: points <*ptr> at those that follow contiguously (a message's head in
 * <s>, or the pattern) and returns how many, at most <want>. Nothing is
 * made ahead: an unread call holds no message. */
size_t grpc_slice(const struct ex_sse *s, uint64_t off, size_t want, const char **ptr);

#endif

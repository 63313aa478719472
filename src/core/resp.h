/* The response generator: plan + request -> status, header fields, body plan. */
#ifndef HX_RESP_H
#define HX_RESP_H

#include "msg-t.h"
#include "plan-t.h"

/* Builds the neutral response for <rq> under <p>. <now_ns> is the moment
 * the head is handed to the transport (monotonic clock), so X-rsp's real
 * time is true. <id> is the server name for X-rsp. */
void resp_build(struct hresp *rs, const struct hreq *rq, const struct plan *p,
		struct ist id, int64_t now_ns);


/* Writes into <f> the next header-padding field, taking up to its size from
 * rs->pad. Returns 0 when no padding is left. */
int resp_pad_next(struct hresp *rs, struct hfield *f);

/* the value of the request's field <name> (lower case, <nl> long) in its
 * head's text <head> ("Name: value" lines), empty when absent: a scan, for
 * the few requests that ask */
struct ist resp_field(struct ist head, const char *name, size_t nl);

/* The reason phrase of <status> ("Unknown" when none is registered) */
struct ist resp_reason(unsigned status);

/* The help page served at /? and /?h */
extern const struct ist help_page;

#endif

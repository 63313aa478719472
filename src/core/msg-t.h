/* The protocol-neutral request and response that every adapter (h1, h2, h3) speaks. */
#ifndef HX_MSG_T_H
#define HX_MSG_T_H

#include <stdint.h>

#include "common.h"
#include "plan-t.h"

/* request flags */
#define RQ_HEAD      0x01 /* HEAD: no body, same headers */
#define RQ_CAN_CHUNK 0x02 /* the protocol can frame a body without a length */
#define RQ_EARLY     0x04 /* it came in TLS early data (0-RTT): X-rsp says early=1 */
#define RQ_GET       0x08 /* GET: a Range applies (RFC 9110 14.2); GET and HEAD alone get a 304 (13.1) */
#define RQ_GRPC      0x10 /* Content-Type application/grpc (h2, h3): answered as gRPC */
#define RQ_COND      0x20 /* a precondition or a Range came: <c> holds them (unset without it) */
#define RQ_LISTS     0x40 /* If-Match or If-None-Match came in several field lines: each is read from <echo> */

/* A conditional request's fields (RFC 9110 13.1, 14.2); ptr NULL: absent.
 * A list field (If-Match, If-None-Match) keeps its first line here; a
 * single-valued one sent twice is kept empty, which no value matches. */
struct hcond {
	struct ist inm;      /* If-None-Match */
	struct ist im;       /* If-Match */
	struct ist ims;      /* If-Modified-Since */
	struct ist ius;      /* If-Unmodified-Since */
	struct ist range;    /* Range */
	struct ist if_range; /* If-Range */
};

struct hreq {
	uint32_t flags;
	uint32_t head_size;  /* bytes of request head, as received */
	uint16_t alt_port;   /* announce h3 on this UDP port (Alt-Svc), 0: no */
	int64_t t_first;     /* ns: first byte of the request */
	int64_t t_head;      /* ns: end of the request head */
	struct ist target;
	struct ist xhx;      /* X-Hxterm header value, empty if none */
	struct hcond c;      /* with RQ_COND only */
	struct ist echo;     /* request headers as text, for E=1 */
	struct ist client;   /* X-Client's value (PROXY header, certificate), empty: none */
};

#define RESP_MAX_FIELDS (13 + PLAN_MAX_FIELDS)

/* a part of a body: a Range's */
struct hspan { uint64_t from, len; };

/* body sources */
enum body_src {
	BODY_PATTERN = 0,    /* the 50-byte-line pattern */
	BODY_RANDOM,         /* R=1 */
	BODY_TEXT,           /* <text>: help page, echo, error reason */
	BODY_MULTI,          /* several ranges: multipart/byteranges of the spans, made as pulled (parts.c) */
	BODY_GRPC,           /* a gRPC call's messages, made as pulled (grpc.c) */
};

struct hresp {
	uint16_t status;
	uint8_t nf;
	uint8_t chunked;     /* body framed by the protocol, no length */
	uint8_t cache;       /* cacheable (no c=0) */
	enum body_src src;
	int64_t clen;        /* Content-Length to announce, -1 none */
	uint64_t body;       /* body bytes to send */
	uint64_t from;       /* the offset of the first in the whole body (a Range's), else 0 */
	uint8_t nspans;      /* BODY_MULTI: the multipart/byteranges parts */
	uint8_t multi_random; /* ... of random bytes (R=1) */
	const struct hspan *spans; /* ... (their copy in struct parts is what lasts) */
	uint64_t full;       /* ... of a body this long */
	uint64_t pad;        /* header padding bytes still to emit */
	struct ist text;     /* body for BODY_TEXT (E=2: the request body, set before resp_build) */
	/* the head's fields and <spans>, in the thread's scratch (resp.c):
	 * valid until the thread's next resp_build, so read at once. WHY:
	 * 1.9 KB of every open stream and connection for a head sent once */
	const struct hfield *f;
	/* the first <h1_nf> fields of <f> as HTTP/1 text, "Name: value\r\n"
	 * each, <h1_len> bytes at <h1> (the same scratch, where their values
	 * lie): HTTP/1 copies them as one run */
	const char *h1;
	uint16_t h1_len;
	uint8_t h1_nf;
};

#endif

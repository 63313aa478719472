/* HTTP/1.x request head parser: allocates nothing, points into the caller's buffer. */
#ifndef HX_H1_PARSE_H
#define HX_H1_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "msg-t.h"

#define H1_MAX_HDRS 128

struct h1_hdr {
	struct ist n;
	struct ist v;
};

struct h1_req {
	struct ist method;
	struct ist target;
	uint8_t minor;       /* HTTP/1.<minor>, 0 or 1 (1.2+ read as 1.1) */
	uint16_t nhdrs;
	uint32_t skipped;    /* empty lines before the request line */
	struct h1_hdr hdrs[H1_MAX_HDRS];
};

/* what went wrong: the status to answer and a one-line reason */
struct h1_err {
	uint16_t status;
	const char *why;
};

struct h1_limits {
	size_t max_uri;      /* longest request line (414) */
	unsigned max_hdrs;   /* most header fields (431), <= H1_MAX_HDRS */
};

/* Parses the request head at <buf>/<len>.
 * Returns the bytes of the head (> 0) once complete, HX_AGAIN when more
 * bytes are needed, -1 on a malformed head with <err> filled. Nothing is copied: <r>
 * points into <buf>. */
int h1_parse_req(const char *buf, size_t len, struct h1_req *r,
		 const struct h1_limits *lim, struct h1_err *err);

struct h1_resp {
	uint8_t minor;
	uint16_t status;
	uint16_t nhdrs;
	struct h1_hdr hdrs[H1_MAX_HDRS];
};

/* Parses a response head (for hxload): same contract as h1_parse_req. */
int h1_parse_resp(const char *buf, size_t len, struct h1_resp *r, struct h1_err *err);

/* info flags from the framing headers */
#define H1I_CLOSE     0x01 /* Connection: close */
#define H1I_KEEPALIVE 0x02 /* Connection: keep-alive */
#define H1I_CLEN      0x04 /* Content-Length present */
#define H1I_CHUNKED   0x08 /* Transfer-Encoding: chunked */
#define H1I_EXPECT    0x10 /* Expect: 100-continue */
#define H1I_HEAD      0x20 /* method HEAD */
#define H1I_UPGRADE   0x40 /* Upgrade: h2c with HTTP2-Settings */
#define H1I_WS        0x80 /* Upgrade: websocket with a key, version 13 (RFC 6455) */
#define H1I_CONN_UPG  0x100 /* Connection: upgrade */
#define H1I_GET       0x200 /* method GET */
#define H1I_COND      0x400 /* a conditional request's field or a Range: <c> set (unset without it) */
#define H1I_LISTS     0x800 /* If-Match or If-None-Match in several lines */

struct h1_info {
	uint32_t flags;
	uint64_t clen;
	struct ist xhx;      /* X-Hxterm */
	struct hcond c;      /* with H1I_COND only */
	struct ist settings; /* HTTP2-Settings */
	struct ist ws_key;   /* Sec-WebSocket-Key */
	struct ist ws_ver;   /* Sec-WebSocket-Version */
};

/* Reads the framing and the headers hxterm uses; refuses what could be
 * smuggled (CL with TE, conflicting CL) or is unsupported.
 * Returns 0, or -1 with <err> filled. */
int h1_analyze(const struct h1_req *r, struct h1_info *in, uint64_t max_body,
	       struct h1_err *err);

/* chunked request body decoder */
struct h1_chunk {
	uint8_t st;
	uint8_t done;
	uint32_t line;       /* bytes of the current size/extension/trailer line */
	uint32_t trl;        /* bytes of trailers so far */
	uint64_t left;       /* payload bytes left in the current chunk */
};

void h1_chunk_init(struct h1_chunk *c);

/* Consumes chunked framing at <buf>/<len>, at most <max_data> payload bytes
 * (the payload is skipped, never copied). Returns bytes consumed (>= 0) and
 * adds the payload bytes among them to <*data>; -1 on bad framing with <*why>
 * set. c->done is set once the last chunk and the trailers are consumed. */
long h1_chunk_feed(struct h1_chunk *c, const char *buf, size_t len,
		   uint64_t max_data, uint64_t *data, const char **why);

/* The same, handing each run of payload to <on_data> (hxload verifies it) */
long h1_chunk_feed_cb(struct h1_chunk *c, const char *buf, size_t len, uint64_t max_data,
		      uint64_t *data, const char **why,
		      void (*on_data)(void *arg, const char *p, size_t n), void *arg);

#endif

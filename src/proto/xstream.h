/* A stream of a multiplexed protocol (h2, h3): its request header list, its exchange, its response fields. */
#ifndef HX_XSTREAM_H
#define HX_XSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gen.h"
#include "hpack.h"
#include "alog.h"
#include "stats.h"
#include "loop.h"
#include "msg-t.h"
#include "plan-t.h"
#include "rng.h"

#define XS_HB_SIZE 1024 /* a request head's first buffer, from the thread's pool */
#define XS_HB_KEEP 256  /* pooled buffers a thread keeps, the others freed */

/* exchange flags */
#define XS_HEADERS   0x01 /* request headers complete */
#define XS_ENDREQ    0x02 /* request complete */
#define XS_READY     0x04 /* waiting t= or responding */
#define XS_RESPONDED 0x08
#define XS_TOOBIG    0x10 /* request headers over the limit: 431 */
#define XS_EXPECT    0x40 /* Expect: 100-continue */
#define XS_HEAD      0x80 /* method HEAD */
#define XS_NOMEM     0x100 /* a request header could not be stored: 431 */
#define XS_EARLY     0x200 /* its headers came in TLS early data */
#define XS_CONNECT   0x400 /* :method CONNECT */
#define XS_WSPROTO   0x800 /* :protocol websocket (RFC 8441) */
#define XS_GET       0x1000 /* :method GET */
#define XS_GRPC      0x2000 /* content-type application/grpc... */
#define XS_COND      0x4000 /* a conditional request's field or a Range: their _off set (0: absent) */
#define XS_LISTS     0x8000 /* if-match or if-none-match in several lines */

struct xstream;

/* what a stream's protocol does when the driver below asks */
struct xs_ops {
	void (*respond)(struct xstream *s); /* submit the head (xs_head_nv) */
	void (*resume)(struct xstream *s);  /* a drip ended: the body goes on */
	void (*fail)(struct xstream *s);    /* it cannot be answered: reset it */
	void (*run)(struct xstream *s);     /* after a timer: the connection's I/O */
};

/* a header field as nghttp2 (nghttp2_nv) and nghttp3 (nghttp3_nv) both take
 * it: the same layout, checked where each adapter casts it */
struct xs_nv {
	uint8_t *name;
	uint8_t *value;
	size_t namelen;
	size_t valuelen;
	uint8_t flags;
};

/* WHY: our encoders (HPACK, QPACK) take the fields in place, as hpk_field */
_Static_assert(sizeof(struct hpk_field) == sizeof(struct xs_nv) &&
	       offsetof(struct hpk_field, vlen) == offsetof(struct xs_nv, valuelen) &&
	       offsetof(struct hpk_field, flags) == offsetof(struct xs_nv, flags), "hpk_field layout");

static inline const struct hpk_field *xs_hpk(const struct xs_nv *nv)
{
	return (const struct hpk_field *)(const void *)nv;
}

/* xs_nv.flags: the name is a lower-case literal, never copied (nghttp2's
 * and nghttp3's NO_COPY_NAME: their copy lower-cased it again, 1,030
 * instructions an h3 response with nghttp3_nva_copy) */
#define XS_NV_STATIC_NAME 0x02
_Static_assert(XS_NV_STATIC_NAME == HPK_LITERAL_NAME, "a literal name, for the encoders too");

struct worker;

struct xstream {
	uint32_t flags;
	struct timer tm;     /* the t= wait, then each d= drip */
	struct loop *loop;
	const struct xs_ops *ops;
	struct worker *w;    /* its worker: counters, access log */
	uint8_t sp;          /* enum st_proto, for them */
	uint32_t nreq;       /* its number on the connection, from 1 */
	struct cpeer peer;   /* who: X-Client, the access log */
	uint64_t body_read;  /* request body bytes received */
	/* request header text "name: value\r\n"..., and what we read of it:
	 * taken at the first field, given back once the head is sent (E=1:
	 * at the stream's end) */
	char *hb;
	uint32_t hb_len, hb_cap;
	uint32_t path_off, path_len, xhx_off, xhx_len;
	/* the conditional fields' values in hb, with XS_COND only */
	uint32_t inm_off, inm_len, im_off, im_len, ims_off, ims_len, ius_off, ius_len;
	uint32_t range_off, range_len, ifr_off, ifr_len;
	struct exch ex;      /* the request, its plan, the response and its cursor */
};

/* <t_first>: ns, when the request's first byte came (monotonic) */
void xs_init(struct xstream *s, struct worker *w, const struct xs_ops *ops, enum st_proto sp, uint32_t nreq,
	     struct cpeer peer, int64_t t_first);
void xs_release(struct xstream *s);
/* <n> request-body bytes at <p> came: counted, and kept for E=2 */
void xs_body_in(struct xstream *s, const uint8_t *p, size_t n);

/* Records one request header (lower-case name). Returns 0, or -1 when it
 * could not be kept (over --bufsize, or out of memory): the request is then
 * answered 431 with the reason. */
int xs_header(struct xstream *s, const uint8_t *n, size_t nl, const uint8_t *v, size_t vl);

/* where a field's name and value start in a block of header lines, and
 * their lengths */
struct xs_at {
	uint16_t no, nl, vo, vl;
};
/* one header line as xs_header() keeps it, "name: value\r\n" (<nl> + <vl> +
 * 4 bytes) at <to>; returns where the value starts, from <to> */
static inline size_t xs_line_put(void *to, const uint8_t *n, size_t nl, const uint8_t *v, size_t vl)
{
	uint8_t *dst = to;

	memcpy(dst, n, nl);
	memcpy(dst + nl, ": ", 2);
	memcpy(dst + nl + 2, v, vl);
	memcpy(dst + nl + 2 + vl, "\r\n", 2);
	return nl + 2;
}

/* <n> fields at once, as xs_header() adds them one by one: <text> is their
 * lines as it writes them ("name: value\r\n", <len> bytes), <at> where each
 * starts there. Returns 0, or -1 as xs_header() does (the whole block then
 * left out) */
int xs_header_lines(struct xstream *s, const uint8_t *text, size_t len, const struct xs_at *at, unsigned n);

/* The exchange of an HTTP/1 request continues here (an h2c Upgrade): its
 * text is copied, its plan taken as it is. Returns 0, or -1 out of memory. */
int xs_adopt(struct xstream *s, const struct exch *src);

/* Headers complete: the neutral request and the plan. */
void xs_headers_done(struct xstream *s, struct rng *r);

/* Whether to answer now, <end> being the end of the request: drain first
 * unless A=1 or B= says otherwise. */
int xs_answer_now(const struct xstream *s, int end);

/* The request can be answered: ops->respond now, or once the t= wait is
 * over; nothing when it was made ready before. */
void xs_ready(struct xstream *s);

/* EXA_PAUSE: the body goes on (ops->resume) at <until> us. Returns 0, or
 * -1 when the timer could not be armed (the caller fails the stream). */
int xs_pause(struct xstream *s, uint64_t until);

/* Builds the response (stamps X-rsp) and sets the body cursor. */
void xs_respond(struct xstream *s);

/* Builds the response (xs_respond) and its head as nv pairs into <*nv>:
 * returns their count, or -1 out of memory. Release with xs_nv_done(). */
long xs_head_nv(struct xstream *s, struct xs_nv **nv);
void xs_nv_done(struct xs_nv *nv);
/* The head went to the engine (it copied or encoded it): the request's
 * text is given back unless the body echoes it (E=1) */
void xs_head_sent(struct xstream *s);
/* hint=: the 103's head as nv pairs into <nv> (2 of them), taken once:
 * their count, 0 when none (h2, h3) */
size_t xs_hint_nv(struct xstream *s, struct xs_nv *nv);
/* the thread's pooled header buffers freed (at a worker's end) */
void xs_thread_free(void);

/* The trailers as nv pairs into <nv> (PLAN_MAX_FIELDS of them), their
 * lower-cased names into <lbuf> (PLAN_DEC_SIZE bytes). Returns the count. */
size_t xs_trailers_nv(const struct xstream *s, struct xs_nv *nv, char *lbuf);

#endif

/* A WebSocket on an HTTP/2 stream (RFC 8441 extended CONNECT): the session's bytes each way between DATA frames and wslay, with its own timer. */
#ifndef HX_WS_STREAM_H
#define HX_WS_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "loop.h"
#include "ws.h"

#define WSS_OUT_MAX (256u << 10) /* framed bytes waiting for DATA frames, at most */
#define WSS_IN_MAX  (4u << 20)   /* DATA payload the session has not read, at most */

struct wss {
	struct ws ws;
	struct timer tm;
	struct loop *loop;
	void (*kick)(void *stream); /* the stream's DATA source has bytes again */
	void *stream;
	enum ws_state st;           /* WS_GOING until the session ends */
	uint8_t in_eof;             /* the client ended its side */
	uint8_t flooded;            /* it sent WSS_IN_MAX the session could not read */
	uint8_t *in;                /* DATA payload the session has not read */
	size_t in_len, in_off, in_cap;
	uint8_t *out;               /* frames for the next DATA frames */
	size_t out_len, out_off;
};

/* A session for <p> on a stream; <kick>(<stream>) resumes its DATA source.
 * NULL out of memory. */
struct wss *wss_new(const struct exch *x, struct rng *r, struct loop *l, void (*kick)(void *), void *stream);
void wss_free(struct wss *s);

/* framed bytes not yet handed to DATA frames */
static inline size_t wss_pending(const struct wss *s)
{
	return s->out_len - s->out_off;
}

/* DATA payload from the client (<eof>: END_STREAM came): the session runs */
void wss_in(struct wss *s, const uint8_t *data, size_t len, int eof);

/* At most <len> framed bytes for a DATA frame into <buf>: how many; <*eof>
 * set when the session ended cleanly and all is out. */
size_t wss_out(struct wss *s, uint8_t *buf, size_t len, int *eof);

#endif

/* A WebSocket on an HTTP/2 stream, inside: the session's bytes each way between DATA frames and wslay, with its own timer (wss.h is what HTTP/2 sees). */
#ifndef HX_WS_STREAM_H
#define HX_WS_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "loop.h"
#include "ws.h"

#define WSS_OUT_MAX (256u << 10) /* framed bytes waiting for DATA frames, at most */
#define WSS_IN_MAX  (4u << 20)   /* DATA payload the session has not read, at most */
#define WSS_IN_KEEP (64u << 10)  /* of its pages, those kept once all is read */

struct wss {
	struct ws ws;
	struct timer tm;
	struct loop *loop;
	void (*kick)(void *stream); /* the stream's DATA source has bytes again */
	void *stream;
	enum ws_state st;           /* WS_GOING until the session ends */
	uint8_t in_eof;             /* the client ended its side */
	uint8_t flooded;            /* it sent WSS_IN_MAX the session could not read */
	uint8_t *in;                /* DATA payload the session has not read (WSS_IN_MAX mapped) */
	size_t in_len, in_off;
	size_t in_high;             /* the most of it touched since it was last empty */
	uint8_t *out;               /* frames for the next DATA frames */
	size_t out_len, out_off;
};


#endif

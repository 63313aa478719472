/* A WebSocket on an HTTP/2 stream (RFC 8441 extended CONNECT), as HTTP/2 sees it: DATA payload in, framed bytes out for DATA frames, and what became of the session. */
#ifndef HX_WSS_H
#define HX_WSS_H

#include <stddef.h>
#include <stdint.h>

#include "gen.h"
#include "loop.h"
#include "rng.h"

/* what became of a WebSocket session (ws/ runs it) */
enum ws_state {
	WS_GOING,   /* wait for I/O or the wake-up */
	WS_DONE,    /* both close frames went: the transport ends cleanly */
	WS_RESET,   /* x=: reset the transport (TCP RST, RST_STREAM) */
	WS_CUT,     /* X=: close the transport, no close frame */
	WS_FAILED,  /* a protocol error or the peer left: close */
};

struct wss;

/* A session for the plan of <x> on a stream; <kick>(<stream>) resumes its
 * DATA source when the session has frames again or ended. NULL out of
 * memory. */
struct wss *wss_new(const struct exch *x, struct rng *r, struct loop *l, void (*kick)(void *), void *stream);
void wss_free(struct wss *s);

/* DATA payload from the client (<eof>: END_STREAM came): the session runs */
void wss_in(struct wss *s, const uint8_t *data, size_t len, int eof);
/* At most <len> framed bytes for a DATA frame into <buf>: how many; <*eof>
 * set when the session ended cleanly and all is out. */
size_t wss_out(struct wss *s, uint8_t *buf, size_t len, int *eof);
/* framed bytes not yet handed to DATA frames */
size_t wss_pending(const struct wss *s);
/* the session's state, WS_GOING until it ends */
enum ws_state wss_state(const struct wss *s);
/* the client sent more than the session could read (WSS_IN_MAX): the
 * stream is reset at once, its frames waiting for a window it never opens */
int wss_flooded(const struct wss *s);

#endif

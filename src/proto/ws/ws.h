/* A WebSocket session (RFC 6455 framing by wslay) over any byte transport: an HTTP/1.1 connection after its Upgrade, or an HTTP/2 stream after an extended CONNECT. */
#ifndef HX_WS_H
#define HX_WS_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "gen.h"
#include "plan-t.h"
#include "rng.h"
#include "wss.h"

/* what the session needs of the transport under it */
struct ws_io {
	/* reads at most <len> bytes: > 0, 0 end of stream, HX_AGAIN, -1 error */
	long (*recv)(void *u, uint8_t *buf, size_t len);
	/* writes from <buf>: >= 0 bytes taken, HX_AGAIN, -1 error */
	long (*send)(void *u, const uint8_t *buf, size_t len);
	/* run the session again at <us> (loop clock): the next ws=gen message */
	void (*wake_at)(void *u, uint64_t us);
};

/* what ws_run() says of the session */


struct ws {
	void *ctx;                   /* wslay_event_context_ptr */
	const struct ws_io *io;
	void *u;
	struct rng *rng;
	uint8_t mode;                /* WS_ECHO, WS_GEN */
	uint8_t random;              /* R=1: binary messages of random bytes */
	uint8_t in_msg;              /* a generated message is being sent */
	uint8_t close_queued;
	uint8_t blocked;             /* the transport took no more */
	uint8_t rblocked;            /* the transport had no more to read */
	uint8_t held;                /* reading stopped: too many answers wait */
	uint8_t was_over;            /* the answers waiting went over the bound once */
	uint8_t eof;                 /* the peer's end of stream */
	uint8_t fault;               /* enum ex_fault: EXF_RESET (x=), EXF_CUT (X=) */
	uint8_t fault_hit;
	uint8_t bad_close;           /* a close frame with a 1-byte payload came */
	uint64_t fault_at;           /* message payload bytes before the fault */
	uint64_t sent;               /* message payload bytes handed out so far */
	uint64_t count, queued;      /* ws=gen: n, and how many begun */
	uint64_t msg_len, msg_off;   /* the message being generated */
	uint64_t next_us;            /* ws=gen: the next message not before */
	uint64_t now_us;
	uint64_t size, drip_ms;      /* s= and d= when not drawn per message */
	uint64_t msgs_in, msgs_out;  /* messages received and sent, for the stats */
	char spec_s[PLAN_SPEC], spec_d[PLAN_SPEC];
};

/* A session for the plan of <x> (ws=, s=, n=, d=, R=, x=, X=) on <io>/<u>.
 * Returns 0, or -1 out of memory. */
int ws_init(struct ws *s, const struct exch *x, const struct ws_io *io, void *u, struct rng *r);
void ws_free(struct ws *s);

/* Reads what came, answers it, sends what is due at <now_us>. */
enum ws_state ws_run(struct ws *s, uint64_t now_us);

/* A drain: a close frame 1001 (going away), then the session ends */
void ws_going_away(struct ws *s);


#endif

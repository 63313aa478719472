/* sse=1, the generator's server-sent events: a stream's plan and each event as it goes. */
#ifndef HX_SSE_H
#define HX_SSE_H

#include <stdint.h>

#include "msg-t.h"
#include "plan.h"

/* the most bytes of events one stream holds (its slots, taken at once,
 * each formatted as its event goes); a gRPC call's messages, made as they
 * are pulled, are held to it too */
#define SSE_MAX_BYTES (16u << 20)

/* a stream's place: sse=1's events, or a gRPC call's messages */
struct ex_sse {
	union {
		struct {
			uint64_t id, last;   /* sse=1: the next event's id, the last one's */
		};
		/* gRPC: what starts each message (its 5-byte prefix, the
		 * field's tag and length); the rest is the pattern */
		unsigned char head[16];
	};
	uint64_t seed;               /* d= and s= drawn per event from it */
	uint32_t len, data;          /* one event's (message's) bytes, its data's (s=); sse=1: as planned */
	uint32_t off, cur;           /* sse=1: the next event's slot, the bytes of the last one formatted */
};

/* sse=1's chunk size: an event a chunk (HTTP/1.1), however many bytes each */
#define SSE_CHUNK_EVENT UINT64_MAX

/* The stream <p> asks for <rq>: its events from Last-Event-ID on, each a
 * piece with its chunk, <*bytes> their slots' size: NULL, or the one-line
 * reason to answer 400 with. */
const char *sse_plan(struct ex_sse *s, struct plan *p, const struct hreq *rq, const struct plan_limits *lim,
		     uint64_t *bytes);
/* The next event goes: its slot of <slots> (<n> bytes) formatted, stamped
 * now, its bytes in s->cur; returns the pause after it (d=, drawn) in ms */
uint64_t sse_event(struct ex_sse *s, const struct plan *p, char *slots, uint32_t n);

#endif

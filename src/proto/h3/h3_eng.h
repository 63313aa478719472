/* HTTP/3: the shell (h3.c) and its response framing engines (ours, h3_tx.c; nghttp3's, h3_ng.c): the table each fills, and the body slicing both use (h3_body.c). */
#ifndef HX_H3_ENG_H
#define HX_H3_ENG_H

#include <nghttp3/nghttp3.h>

#include "gen.h"
#include "qwrite.h"
#include "h3c-t.h"

/* one engine, taken by each connection when it opens (h3.c, h3_open) */
struct h3_eng {
	const char *name;
	uint8_t slot;   /* its streams' free list in the worker (h3w.free_qs) */
	size_t ssize;   /* its stream's size: struct h3s, or a wrapper starting with one */
	/* its streams' acknowledgements and windows come to it (the h3s is
	 * their ngtcp2 user data), and a request met before may be answered
	 * from the memo, without nghttp3 */
	int own_acks;
	void (*init)(struct h3s *s);
	void (*release)(struct h3s *s);
	/* the head, then the body (when <body>) as the writes ask for it: 0,
	 * or -1 out of memory */
	int (*respond)(struct h3s *s, const struct xs_nv *nv, size_t n, int body);
	/* an interim head (103) before the answer: 0, or -1 out of memory */
	int (*info)(struct h3s *s, const struct xs_nv *nv, size_t n);
	void (*resume)(struct h3s *s);  /* a d= pause is over */
	void (*shut)(struct h3s *s);    /* the stream was reset: nothing more to send */
	void (*acked)(struct h3s *s, uint64_t len);
	void (*unblock)(struct h3s *s);
	/* the connection's streams as a source of the packet writer, after
	 * nghttp3's (h3_sources); NULL: none */
	void (*src)(struct h3c *c, struct qw_src *src);
};

extern const struct h3_eng h3_eng_hx, h3_eng_ng;

/* the worker's pooled HEADERS arenas of our engine freed (its end) */
void h3tx_drain(void);

/* the body's next slices for either engine: at most <veccnt> of them, a
 * DATA frame's worth (k=); <*a> says what stopped it, EXA_END when the
 * body is whole. Returns the count. */
size_t h3s_gather(struct h3s *s, nghttp3_vec *vec, size_t veccnt, struct ex_action *a);
/* <a> is a d= pause or an x=/X= fault with no bytes before it: the timer
 * armed, or the fault marked for the shell's faults(). 0, or -1 when the
 * stream was failed (no timer). */
int h3s_halt(struct h3s *s, const struct ex_action *a);

#endif

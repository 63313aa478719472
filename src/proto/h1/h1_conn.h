/* HTTP/1.x connections: the state machine from request head to response and back. */
#ifndef HX_H1_CONN_H
#define HX_H1_CONN_H

#include "h1_conn-t.h"

/* what staging or splicing a response's part came to (h1_out.c); 0 is none */
enum h1_out {
	H1O_DONE = 1, /* the part is staged (or sent), whole or cut by a fault */
	H1O_FLUSH,    /* the queue must be flushed first, then go on */
	H1O_PIECE,    /* a piece (p=) ended: it goes alone, then the drip */
	H1O_WRITEV,   /* the rest of the body goes by writev (splice stopped) */
	H1O_WAIT,     /* the socket is full: wait for EPOLLOUT */
	H1O_DEAD,     /* the connection is dead */
};

/* staging of the response: H1O_DONE, H1O_FLUSH, and for the body H1O_PIECE */
enum h1_out h1_stage_head(struct h1c *c);
enum h1_out h1_stage_body(struct h1c *c);
/* "HTTP/1.1 <status> <reason>" with a one-line body, Connection: close */
void h1_stage_error(struct h1c *c, uint16_t status, const char *why);

/* Sends what is staged, with MSG_MORE when <more>: 0 all sent, HX_AGAIN
 * not yet (wait for EPOLLOUT), -1 dead (h1_out.c). */
int h1_flush_queue(struct h1c *c, int more);
/* marks <c> dead for <why> (enum st_close), reset (RST) when <rst>: the
 * state machine closes it at the end of its turn */
void h1_kill(struct h1c *c, int rst, unsigned why);

/* Spliced bodies (h1_out.c). h1_splice_ok() says whether the rest of the
 * current body goes by splice and takes a pipe for it; h1_splice_body()
 * sends it: H1O_DONE, H1O_WRITEV, H1O_WAIT or H1O_DEAD. */
int h1_splice_ok(struct h1c *c);
enum h1_out h1_splice_body(struct h1c *c);


/* --io-uring (h1_uring.c): h1u_start() puts a clear-text connection on the
 * worker's ring (its transport, x.rio, reads and sends through it), <wake>
 * called at each completion and <room> for a pooled recv's bytes;
 * h1u_arm() sends the recv the state machine asked for, after its turn
 * (into the input buffer, or into a pooled one when the connection went
 * idle). A closed connection with operations in flight waits on its
 * set's zombies (tc_end) until they complete. */
void h1u_start(struct h1c *c, void (*wake)(struct rio *, int), char *(*room)(struct rio *, size_t));
void h1u_arm(struct h1c *c);

#endif

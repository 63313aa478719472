/* HTTP/1.x connections: the state machine from request head to response and back. */
#ifndef HX_H1_CONN_H
#define HX_H1_CONN_H

#include "h1_conn-t.h"
#include "worker-t.h"

/* Takes over accepted socket <fd>. Returns 0, or -1 (the caller closes). */
int h1c_accept(struct worker *w, int fd);

/* Closes every connection of <w> and frees the free list. */
void h1c_release_all(struct worker *w);

/* output queue (h1_out.c) */
void oq_reset(struct oq *q);
/* copies <len> bytes into the scratch area and stages them */
void oq_copy(struct oq *q, const void *p, size_t len);
/* stages <len> bytes of memory that outlives the send */
void oq_ref(struct oq *q, const void *p, size_t len);
static inline size_t oq_sc_room(const struct oq *q)
{
	return q->sc_size - q->sc_used;
}
static inline int oq_iov_room(const struct oq *q)
{
	return OQ_IOV - q->n;
}

/* staging of the response (h1_out.c). Each returns 1 when its part is fully
 * staged, 0 when the queue must be flushed first. */
int h1_stage_head(struct h1c *c);
int h1_stage_body(struct h1c *c);
/* "HTTP/1.1 <status> <reason>" with a one-line body, Connection: close */
void h1_stage_error(struct h1c *c, uint16_t status, const char *why);

#endif

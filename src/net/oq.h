/* Output queue: iovecs into prebuilt bodies and a scratch area, sent by one writev. */
#ifndef HX_OQ_H
#define HX_OQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "xprt.h"

#define OQ_IOV 64

/* What is staged for one writev: iovecs into the prebuilt bodies, static
 * strings and <sc>, a scratch area for heads and framing that is reused
 * only once everything staged went out. */
struct oq {
	struct iovec *iov;   /* OQ_IOV + 2: a 100 Continue and an error fit always */
	uint16_t i;          /* first iovec not fully sent */
	uint16_t n;          /* iovecs staged */
	uint16_t busy;       /* iovecs before this one are in a send in flight (ring) */
	uint32_t sc_used;
	uint32_t sc_size;    /* usable scratch; <sc> has OQ_RESERVE more */
	uint64_t bytes;      /* staged, not yet sent */
	char *sc;
};

#define OQ_RESERVE 512

/* WHY: the iovecs live in the same block as the scratch area, so that an idle
 * HTTP/1 connection, which gives that block back, keeps 32 bytes of struct
 * oq instead of 1 KiB */
#define OQ_IOV_BYTES (sizeof(struct iovec) * (OQ_IOV + 2))

/* the size of the block that oq_attach() takes for <sc_size> bytes of scratch */
static inline size_t oq_mem_size(size_t sc_size)
{
	return OQ_IOV_BYTES + sc_size + OQ_RESERVE;
}

/* gives the queue its block (iovecs and scratch) / takes it back */
void oq_attach(struct oq *q, void *mem);
void *oq_detach(struct oq *q);

struct pool;
/* the queue's block from pool <p> when it has none: 0, or -1 out of memory */
int oq_take(struct oq *q, struct pool *p);
/* ... given back to <p> when nothing is staged */
void oq_give(struct oq *q, struct pool *p);

int oq_alloc(struct oq *q, size_t sc_size);
void oq_free(struct oq *q);
void oq_reset(struct oq *q);
/* stages <len> bytes of memory that outlives the send */
void oq_ref(struct oq *q, const void *p, size_t len);
/* copies <len> bytes into the scratch area and stages them */
void oq_copy(struct oq *q, const void *p, size_t len);

/* stages the <len> bytes written in place at the scratch area's end
 * (sc + sc_used), as oq_copy() would have put them */
void oq_claim(struct oq *q, size_t len);

/* WHY: framing may run into the reserve (a chunk's closing CRLF right after
 * a copy that filled the room); the room is then 0, never a wrapped count */
static inline size_t oq_sc_room(const struct oq *q)
{
	return q->sc_used < q->sc_size ? q->sc_size - q->sc_used : 0;
}

static inline int oq_iov_room(const struct oq *q)
{
	return OQ_IOV - q->n;
}

static inline int oq_pending(const struct oq *q)
{
	return q->i < q->n;
}

/* Sends what is staged. Returns 0 when all went out (the queue is reset),
 * HX_AGAIN when the socket is full (or a ring send is in flight), -1 on
 * error. <*sent> gets the bytes written. */
int oq_flush(struct oq *q, struct xprt *x, uint64_t *sent);
/* <n> staged bytes went out another way (a ring); when all did the queue
 * is reset (oq_pending() says which) */
void oq_sent(struct oq *q, size_t n);
/* the same, when more bytes follow at once (MSG_MORE) */
int oq_flush_more(struct oq *q, struct xprt *x, uint64_t *sent);

#endif

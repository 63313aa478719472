/* Output queue: iovecs into prebuilt bodies and a scratch area, sent by one writev. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "common.h"
#include "oq.h"
#include "pool.h"
#include "rio.h"

void oq_attach(struct oq *q, void *mem)
{
	q->iov = mem;
	q->sc = (char *)mem + OQ_IOV_BYTES;
}

void *oq_detach(struct oq *q)
{
	void *mem = q->iov;

	q->iov = NULL;
	q->sc = NULL;
	return mem;
}

int oq_take(struct oq *q, struct pool *p)
{
	void *mem;

	if (q->iov)
		return 0;
	if (!(mem = pool_get(p)))
		return -1;
	oq_attach(q, mem);
	return 0;
}

void oq_give(struct oq *q, struct pool *p)
{
	if (!q->iov || oq_pending(q))
		return;
	oq_reset(q);
	pool_put(p, oq_detach(q));
}

int oq_alloc(struct oq *q, size_t sc_size)
{
	void *mem = malloc(oq_mem_size(sc_size));

	q->sc_size = (uint32_t)sc_size;
	oq_reset(q);
	if (!mem)
		return -1;
	oq_attach(q, mem);
	return 0;
}

void oq_free(struct oq *q)
{
	free(oq_detach(q));
}

void oq_reset(struct oq *q)
{
	q->i = q->n = q->busy = 0;
	q->sc_used = 0;
	q->bytes = 0;
}

void oq_ref(struct oq *q, const void *p, size_t len)
{
	/* WHY busy, not 0: an iovec a ring send still holds is never grown */
	struct iovec *last = q->n > q->busy ? &q->iov[q->n - 1] : NULL;

	if (last && (char *)last->iov_base + last->iov_len == (const char *)p) {
		last->iov_len += len;
	} else {
		BUG_ON(q->n >= OQ_IOV + 2);
		q->iov[q->n++] = (struct iovec){ (void *)p, len };
	}
	q->bytes += len;
}

void oq_claim(struct oq *q, size_t len)
{
	char *dst = q->sc + q->sc_used;

	BUG_ON(q->sc_used + len > q->sc_size + OQ_RESERVE);
	q->sc_used += (uint32_t)len;
	oq_ref(q, dst, len);
}

void oq_copy(struct oq *q, const void *p, size_t len)
{
	BUG_ON(q->sc_used + len > q->sc_size + OQ_RESERVE);
	memcpy(q->sc + q->sc_used, p, len);
	oq_claim(q, len);
}

/* drops <n> sent bytes from the front; returns 1 when nothing is left */
static int oq_advance(struct oq *q, size_t n)
{
	BUG_ON(n > q->bytes);
	q->bytes -= n;
	while (q->i < q->n && n >= q->iov[q->i].iov_len)
		n -= q->iov[q->i++].iov_len;
	if (q->i < q->n) {
		q->iov[q->i].iov_base = (char *)q->iov[q->i].iov_base + n;
		q->iov[q->i].iov_len -= n;
		return 0;
	}
	return 1;
}

void oq_sent(struct oq *q, size_t n)
{
	q->busy = 0;
	if (oq_advance(q, n))
		oq_reset(q);
}

/* through the ring: one send in flight; the owner's completion handler
 * advances the queue by what went (oq_sent) */
static int flush_ring(struct oq *q, struct rio *r, int more)
{
	if (r->st & RIO_TX)
		return HX_AGAIN;
	if (!oq_pending(q)) {
		oq_reset(q);
		return 0;
	}
	/* WHY: the kernel reads these iovecs until the send completes; what is
	 * staged meanwhile goes after them, never into them (oq_ref) */
	q->busy = (uint16_t)MIN(q->n, q->i + IOV_MAX);
	rio_send(r, q->iov + q->i, (size_t)(q->busy - q->i), more);
	return HX_AGAIN;
}

static int flush(struct oq *q, struct xprt *x, uint64_t *sent, int more)
{
	*sent = 0;
	if (x->rio)
		return flush_ring(q, x->rio, more);
	while (q->i < q->n) {
		long n = xprt_writev(x, q->iov + q->i, MIN(q->n - q->i, IOV_MAX), more);

		if (n == XPRT_AGAIN)
			return HX_AGAIN;
		if (n < 0)
			return -1;
		*sent += (uint64_t)n;
		if (!oq_advance(q, (size_t)n) && !x->ssl)
			return HX_AGAIN; /* WHY: a short TCP write means the socket is full */
	}
	oq_reset(q);
	return 0;
}

int oq_flush(struct oq *q, struct xprt *x, uint64_t *sent)
{
	return flush(q, x, sent, 0);
}

int oq_flush_more(struct oq *q, struct xprt *x, uint64_t *sent)
{
	return flush(q, x, sent, 1);
}

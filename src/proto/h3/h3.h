/* HTTP/3's shell (h3.c) as the transport's events (h3_app.c) call it: a worker's HTTP/3 state, the streams, the session, the reads. */
#ifndef HX_H3_H
#define HX_H3_H

#include "h3c-t.h"
#include "quic.h"
#include "xmemo.h"

/* HTTP/3's state in each worker, apart from the transport's (quic_app_w) */
struct h3w {
	struct list free_qs[2]; /* streams to reuse, by engine (h3_eng.slot): their sizes differ */
	unsigned nfree[2];   /* on them */
	struct xmemo memo;   /* the last whole request nghttp3 accepted */
	uint8_t memo_ok;     /* the one being recorded was accepted, and ended */
};

static inline struct h3w *h3w(const struct worker *w)
{
	return quic_app_w(w);
}

/* nghttp3's callbacks set up, once */
void h3_callbacks(void);
/* the HTTP/3 session, at the end of the handshake or with 0-RTT's first stream */
int h3_setup(struct h3c *c);
/* the final GOAWAY, naming every request stream taken (the memo's too) */
void h3_goaway(struct h3c *c);
/* a stream freed (its engine's part, its ngtcp2 binding), kept for reuse */
void h3s_free(struct h3s *s);
/* the transport's events recv, scan, wrote (quic_app) */
int h3_recv_stream(struct quic_conn *q, int64_t id, uint64_t off, const uint8_t *data, size_t len, int fin,
		   int early);
void h3_scan(struct quic_conn *q);
void h3_faults(struct quic_conn *q);

#endif

/* The QUIC transport under HTTP/3 (ngtcp2 0.12, GnuTLS): what the HTTP/3 shell (h3.c) calls, and the application table it gives the transport. */
#ifndef HX_QUIC_H
#define HX_QUIC_H

#include "proto.h"
#include "qwrite.h"
#include "quic-t.h"

/* What the transport asks of the application above it (h3.c), given once
 * by quic_setup(): the transport calls up through it only, never by name,
 * so the two files are no circle. */
struct quic_app {
	/* the application's session on <c> (HTTP/3's control and QPACK streams) */
	int (*setup)(struct h3c *c);
	/* stream data from the peer, <off> its offset in the stream */
	int (*recv)(struct h3c *c, int64_t id, uint64_t off, const uint8_t *data, size_t len, int fin, int early);
	/* every QUIC_SCAN_MS while streams are open: 1 when <c> is to close */
	int (*scan)(struct h3c *c);
	/* after each burst of writes: faults whose bytes went out */
	void (*faults)(struct h3c *c);
	void (*free_streams)(struct h3c *c);
	/* ngtcp2 closed a stream the application answered alone (h3s.own) */
	void (*own_closed)(struct h3s *s);
	/* streams whose ngtcp2 user data is their h3s (engine->own_acks): the
	 * peer acknowledged <len> more bytes, or its window opened */
	void (*acked)(struct h3s *s, uint64_t len);
	void (*unblock)(struct h3s *s);
	/* the streams' own data for qw_packet(), or NULL: nghttp3's alone */
	void (*src)(struct h3c *c, struct qw_src *src);
};

#define QUIC_SCAN_MS 1000

/* the application's per-thread state, as given to quic_thread_init() */
static inline void *quic_app_w(const struct worker *w)
{
	return qw(w)->app;
}

/* the transport's set-up, with the application above it; 0 or -1 */
int quic_setup(const struct quic_app *app);
void quic_free(void);
/* the transport's per-thread state, with <app> the application's (quic_app_w) */
int quic_thread_init(struct worker *w, void *app);
void quic_thread_free(struct worker *w);
void quic_close_all(struct worker *w);
int quic_listen(struct worker *w, const struct listen_addr *la, uint16_t port);
void quic_drain(struct worker *w);
uint32_t quic_live(const struct worker *w);

/* flush what can be written now */
void quic_write(struct h3c *c);
/* after any work on <c>: closes it if it must, else re-arms its timer;
 * <c> may be freed */
void quic_done(struct h3c *c);

#endif

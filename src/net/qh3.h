/* nghttp3 beside the QUIC transport: the stream events an HTTP/3 endpoint passes on to it (ngtcp2 callbacks, hxload's), its streams as a source of the packet writer (both ends). */
#ifndef HX_QH3_H
#define HX_QH3_H

#include <nghttp3/nghttp3.h>
#include <ngtcp2/ngtcp2.h>

#include "qwrite.h"

/* ngtcp2 callbacks for a connection whose first member is its
 * nghttp3_conn * (NULL until HTTP/3 is set up): the user data ngtcp2 gets.
 * Each returns 0, or NGTCP2_ERR_CALLBACK_FAILURE when nghttp3 refused. */
int qh3_acked(ngtcp2_conn *conn, int64_t id, uint64_t off, uint64_t len, void *user, void *suser);
int qh3_reset(ngtcp2_conn *conn, int64_t id, uint64_t size, uint64_t code, void *user, void *suser);
int qh3_unblock(ngtcp2_conn *conn, int64_t id, uint64_t max, void *user, void *suser);

/* A stream closed: nghttp3 is told, with H3_NO_ERROR when the peer gave no
 * code. Returns nghttp3's result: 0, or an error. */
int qh3_close(nghttp3_conn *h3, uint32_t flags, int64_t id, uint64_t code);

/* <h3>'s streams as a source of qw_packet() (its writes, blocks and resets
 * told to it) */
void qh3_src(struct qw_src *src, nghttp3_conn *h3);

/* whether a burst found nothing to send in nghttp3's streams: its source
 * first of <srcs>, another behind it (the last one is never marked idle).
 * WHY: once its SETTINGS went, nghttp3 has something only after a call
 * that gives it some; both ends ask it again only then */
static inline int qh3_src_idle(const struct qw_srcs *srcs)
{
	return srcs->n == 2 && srcs->s[0].idle;
}

#endif

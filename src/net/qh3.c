/* nghttp3 beside the QUIC transport: the stream events an HTTP/3 endpoint passes on to it (ngtcp2 callbacks, hxload's), its streams as a source of the packet writer (both ends). */
#include <stddef.h>

#include "qh3.h"

_Static_assert(sizeof(struct qw_vec) == sizeof(nghttp3_vec) && offsetof(struct qw_vec, len) == offsetof(nghttp3_vec, len),
	       "qw_vec is laid out as nghttp3_vec");

/* the connection's nghttp3_conn, its first member */
static nghttp3_conn *h3_of(void *user)
{
	return *(nghttp3_conn **)user;
}

int qh3_acked(ngtcp2_conn *conn, int64_t id, uint64_t off, uint64_t len, void *user, void *suser)
{
	nghttp3_conn *h3 = h3_of(user);

	(void)conn, (void)off, (void)suser;
	return h3 && nghttp3_conn_add_ack_offset(h3, id, len) ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

int qh3_reset(ngtcp2_conn *conn, int64_t id, uint64_t size, uint64_t code, void *user, void *suser)
{
	nghttp3_conn *h3 = h3_of(user);

	(void)conn, (void)size, (void)code, (void)suser;
	return h3 && nghttp3_conn_shutdown_stream_read(h3, id) ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

int qh3_unblock(ngtcp2_conn *conn, int64_t id, uint64_t max, void *user, void *suser)
{
	nghttp3_conn *h3 = h3_of(user);

	(void)conn, (void)max, (void)suser;
	return h3 && nghttp3_conn_unblock_stream(h3, id) ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

int qh3_close(nghttp3_conn *h3, uint32_t flags, int64_t id, uint64_t code)
{
	if (!(flags & NGTCP2_STREAM_CLOSE_FLAG_APP_ERROR_CODE_SET))
		code = NGHTTP3_H3_NO_ERROR;
	return h3 ? nghttp3_conn_close_stream(h3, id, code) : 0;
}

/* ---------- nghttp3's streams as a source of the packet writer ---------- */

static int src_next(void *arg, int64_t *sid, int *fin, struct qw_vec *v, size_t max)
{
	nghttp3_ssize n = nghttp3_conn_writev_stream(arg, sid, fin, (nghttp3_vec *)v, max);

	return n < 0 ? -1 : (int)n;
}

static int src_wrote(void *arg, int64_t sid, size_t n)
{
	return nghttp3_conn_add_write_offset(arg, sid, n) ? -1 : 0;
}

static void src_stop(void *arg, int64_t sid, int shut)
{
	if (shut)
		nghttp3_conn_shutdown_stream_write(arg, sid);
	else
		nghttp3_conn_block_stream(arg, sid);
}

void qh3_src(struct qw_src *src, nghttp3_conn *h3)
{
	*src = (struct qw_src){ src_next, src_wrote, src_stop, h3, 0 };
}

/* The QUIC stream events an HTTP/3 endpoint passes on to nghttp3: ngtcp2 callbacks shared by hxterm's server and hxload's client. */
#include "qh3.h"

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

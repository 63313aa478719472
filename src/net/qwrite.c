/* One QUIC packet with HTTP/3 stream data first: shared by hxterm's server and hxload's client. */
#include "qwrite.h"

/* the next stream data: nghttp3's, else <src>'s; *own says whose */
static nghttp3_ssize next_data(ngtcp2_conn *conn, nghttp3_conn *h3, struct qw_src *src, int64_t *sid,
			       int *fin, nghttp3_vec *vec, size_t max, int *own)
{
	nghttp3_ssize nvec = 0;

	*own = 0;
	if (!h3 || !ngtcp2_conn_get_max_data_left(conn))
		return 0;
	if (!src || !src->h3_idle) {
		nvec = nghttp3_conn_writev_stream(h3, sid, fin, vec, max);
		if (nvec < 0 || *sid >= 0 || !src)
			return nvec;
		src->h3_idle = 1;
	}
	*own = 1;
	return src->next(src->arg, sid, fin, (ngtcp2_vec *)vec, max);
}

ngtcp2_ssize qw_packet(ngtcp2_conn *conn, nghttp3_conn *h3, struct qw_src *src, ngtcp2_path *path,
		       uint8_t *dst, size_t max, ngtcp2_tstamp now)
{
	for (;;) {
		int64_t sid = -1;
		int fin = 0, own;
		nghttp3_vec vec[16];
		nghttp3_ssize nvec = next_data(conn, h3, src, &sid, &fin, vec, 16, &own);
		ngtcp2_ssize ndata = -1, n;
		ngtcp2_pkt_info pi;
		uint32_t flags = NGTCP2_WRITE_STREAM_FLAG_MORE;

		if (nvec < 0)
			return NGTCP2_ERR_CALLBACK_FAILURE;
		if (fin)
			flags |= NGTCP2_WRITE_STREAM_FLAG_FIN;
		n = ngtcp2_conn_writev_stream(conn, path, &pi, dst, max, &ndata, flags, sid,
					      (const ngtcp2_vec *)vec, (size_t)nvec, now);
		if (n == NGTCP2_ERR_STREAM_DATA_BLOCKED || n == NGTCP2_ERR_STREAM_SHUT_WR) {
			int shut = n == NGTCP2_ERR_STREAM_SHUT_WR;

			if (own)
				src->stop(src->arg, shut);
			else if (shut)
				nghttp3_conn_shutdown_stream_write(h3, sid);
			else
				nghttp3_conn_block_stream(h3, sid);
			continue;
		}
		if (ndata >= 0 && own)
			src->wrote(src->arg, (size_t)ndata);
		else if (ndata >= 0 && nghttp3_conn_add_write_offset(h3, sid, (size_t)ndata))
			return NGTCP2_ERR_CALLBACK_FAILURE;
		if (n == NGTCP2_ERR_WRITE_MORE)
			continue;
		return n;
	}
}

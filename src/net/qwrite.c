/* One QUIC packet with HTTP/3 stream data first: shared by hxterm's server and hxload's client. */
#include "qwrite.h"

ngtcp2_ssize qw_packet(ngtcp2_conn *conn, nghttp3_conn *h3, ngtcp2_path *path, uint8_t *dst,
		       size_t max, ngtcp2_tstamp now)
{
	for (;;) {
		int64_t sid = -1;
		int fin = 0;
		nghttp3_vec vec[16];
		nghttp3_ssize nvec = 0;
		ngtcp2_ssize ndata = -1, n;
		ngtcp2_pkt_info pi;
		uint32_t flags = NGTCP2_WRITE_STREAM_FLAG_MORE;

		if (h3 && ngtcp2_conn_get_max_data_left(conn)) {
			nvec = nghttp3_conn_writev_stream(h3, &sid, &fin, vec, 16);
			if (nvec < 0)
				return NGTCP2_ERR_CALLBACK_FAILURE;
		}
		if (fin)
			flags |= NGTCP2_WRITE_STREAM_FLAG_FIN;
		n = ngtcp2_conn_writev_stream(conn, path, &pi, dst, max, &ndata, flags, sid,
					      (const ngtcp2_vec *)vec, (size_t)nvec, now);
		if (n == NGTCP2_ERR_STREAM_DATA_BLOCKED) {
			nghttp3_conn_block_stream(h3, sid);
			continue;
		}
		if (n == NGTCP2_ERR_STREAM_SHUT_WR) {
			nghttp3_conn_shutdown_stream_write(h3, sid);
			continue;
		}
		if (ndata >= 0 && nghttp3_conn_add_write_offset(h3, sid, (size_t)ndata))
			return NGTCP2_ERR_CALLBACK_FAILURE;
		if (n == NGTCP2_ERR_WRITE_MORE)
			continue;
		return n;
	}
}

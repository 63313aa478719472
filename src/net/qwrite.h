/* One QUIC packet with HTTP/3 stream data first: shared by hxterm's server and hxload's client. */
#ifndef HX_QWRITE_H
#define HX_QWRITE_H

#include <nghttp3/nghttp3.h>
#include <ngtcp2/ngtcp2.h>

/* Writes one packet of <conn> into <dst>: stream data that <h3> (NULL
 * before the HTTP/3 session exists) has ready, else whatever ngtcp2 must
 * send. Returns its length, 0 when there is nothing to send, or an ngtcp2
 * error. */
ngtcp2_ssize qw_packet(ngtcp2_conn *conn, nghttp3_conn *h3, ngtcp2_path *path, uint8_t *dst,
		       size_t max, ngtcp2_tstamp now);

#endif

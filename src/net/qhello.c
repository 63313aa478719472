/* A client's first QUIC Initial (a real TLS ClientHello through ngtcp2 and GnuTLS), written and forgotten: what a half-open flood sends. */
#include <string.h>
#include <time.h>

#include <gnutls/crypto.h>

#include "qhello.h"

static const ngtcp2_callbacks cbs = {
	.client_initial = ngtcp2_crypto_client_initial_cb,
	.recv_retry = ngtcp2_crypto_recv_retry_cb,
	QTLS_CALLBACKS,
	.rand = qtls_client_rand,
	.get_new_connection_id = qtls_client_new_cid,
};

static ngtcp2_tstamp now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ngtcp2_tstamp)ts.tv_sec * NGTCP2_SECONDS + (ngtcp2_tstamp)ts.tv_nsec;
}

long qhello_write(const struct qtls *t, const char *sni, const struct sockaddr *local, socklen_t locallen,
		  const struct sockaddr *peer, socklen_t peerlen, uint8_t *buf, size_t cap)
{
	ngtcp2_conn *conn = NULL;
	gnutls_session_t tls = NULL;
	ngtcp2_crypto_conn_ref ref;
	ngtcp2_cid dcid = { .datalen = 18 }, scid = { .datalen = 17 };
	ngtcp2_settings st;
	ngtcp2_transport_params tp;
	ngtcp2_path path = { { (ngtcp2_sockaddr *)local, locallen }, { (ngtcp2_sockaddr *)peer, peerlen }, NULL };
	ngtcp2_pkt_info pi;
	ngtcp2_ssize n = -1;

	gnutls_rnd(GNUTLS_RND_NONCE, dcid.data, dcid.datalen);
	gnutls_rnd(GNUTLS_RND_NONCE, scid.data, scid.datalen);
	ngtcp2_settings_default(&st);
	st.initial_ts = now_ns();
	ngtcp2_transport_params_default(&tp);
	tp.initial_max_streams_uni = 3;
	tp.initial_max_data = 1 << 20;
	tp.initial_max_stream_data_bidi_local = 1 << 20;
	if (!ngtcp2_conn_client_new(&conn, &dcid, &scid, &path, NGTCP2_PROTO_VER_V1, &cbs, &st, &tp, NULL, NULL) &&
	    !qtls_session(t, &tls, 0, 0, &conn, &ref) &&
	    (!sni || !*sni || !gnutls_server_name_set(tls, GNUTLS_NAME_DNS, sni, strlen(sni))))
		n = ngtcp2_conn_write_pkt(conn, NULL, &pi, buf, cap, now_ns());
	if (conn)
		ngtcp2_conn_del(conn);
	if (tls)
		gnutls_deinit(tls);
	return n > 0 ? (long)n : -1;
}

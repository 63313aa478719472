/* QUIC's stateless replies and the secrets behind them (quic_reply.c), as the transport (quic.c) calls them. */
#ifndef HX_QUIC_REPLY_H
#define HX_QUIC_REPLY_H

#include "quic_conn-t.h"

/* the reset and Retry secrets drawn; 0 or -1 */
int quic_reply_init(void);
/* the stateless reset token of <cid> into <token>; 0 or -1 */
int quic_reset_token(uint8_t *token, const ngtcp2_cid *cid);
/* ngtcp2's rand callback: <len> bytes from the worker's rng (ctx->native_handle) */
void quic_rand_cb(uint8_t *dest, size_t len, const ngtcp2_rand_ctx *ctx);
/* Version Negotiation for a datagram of a version we do not speak */
void quic_send_vn(struct worker *w, struct udp_ep *ep, const ngtcp2_version_cid *vc,
		  const struct sockaddr_storage *peer, socklen_t peerlen);
/* a stateless reset for a short-header packet of no connection of ours */
void quic_send_reset(struct worker *w, struct udp_ep *ep, const ngtcp2_version_cid *vc, size_t pktlen,
		     const struct sockaddr_storage *peer, socklen_t peerlen);
/* An Initial that would make a connection: 1 to go on, 2 with <odcid> set
 * by a valid Retry token, 0 to drop it (a Retry sent under --quic-retry or
 * past --quic-retry-threshold half-open, or a token not ours) */
int quic_address_check(struct worker *w, struct udp_ep *ep, const ngtcp2_pkt_hd *hd,
		       const struct sockaddr_storage *peer, socklen_t peerlen, ngtcp2_cid *odcid);

#endif

/* QUIC's stateless replies (Version Negotiation, stateless reset, Retry and its token checked) and the secrets and random bytes behind them and the connections' IDs. */
#include <errno.h>
#include <gnutls/crypto.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <string.h>
#include <sys/socket.h>

#include "clock.h"
#include "config.h"
#include "quic_reply.h"

static uint8_t reset_secret[32];
static uint8_t retry_secret[32];

int quic_reply_init(void)
{
	return gnutls_rnd(GNUTLS_RND_KEY, reset_secret, sizeof(reset_secret)) ||
	       gnutls_rnd(GNUTLS_RND_KEY, retry_secret, sizeof(retry_secret)) ? -1 : 0;
}

int quic_reset_token(uint8_t *token, const ngtcp2_cid *cid)
{
	return ngtcp2_crypto_generate_stateless_reset_token(token, reset_secret, sizeof(reset_secret), cid) ? -1 : 0;
}

void quic_rand_cb(uint8_t *dest, size_t len, const ngtcp2_rand_ctx *ctx)
{
	struct rng *r = ctx->native_handle;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = rng_u64(r);

		memcpy(dest + i, &v, MIN((size_t)8, len - i));
	}
}

static void send_raw(struct udp_ep *ep, const uint8_t *p, size_t len,
		     const struct sockaddr_storage *peer, socklen_t peerlen)
{
	while (sendto(ep->ev.fd, p, len, 0, (const struct sockaddr *)peer, peerlen) < 0 &&
	       errno == EINTR)
		;
}

void quic_send_vn(struct worker *w, struct udp_ep *ep, const ngtcp2_version_cid *vc,
		    const struct sockaddr_storage *peer, socklen_t peerlen)
{
	static const uint32_t sv[] = { NGTCP2_PROTO_VER_V1, NGTCP2_PROTO_VER_V2_DRAFT };
	uint8_t buf[256];
	ngtcp2_ssize n = ngtcp2_pkt_write_version_negotiation(
		buf, sizeof(buf), (uint8_t)rng_u64(&w->rng), vc->scid, vc->scidlen,
		vc->dcid, vc->dcidlen, sv, ARRAY_SIZE(sv));

	if (n > 0)
		send_raw(ep, buf, (size_t)n, peer, peerlen);
}

/* a short-header packet for no connection of ours: stateless reset */
void quic_send_reset(struct worker *w, struct udp_ep *ep, const ngtcp2_version_cid *vc,
		       size_t pktlen, const struct sockaddr_storage *peer, socklen_t peerlen)
{
	uint8_t buf[64], token[NGTCP2_STATELESS_RESET_TOKENLEN], rnd[40];
	ngtcp2_cid cid;
	ngtcp2_rand_ctx rctx = { &w->rng };
	ngtcp2_ssize n;
	/* WHY: smaller than what came, so that two servers cannot loop */
	size_t rlen = MIN(sizeof(rnd), pktlen > 22 + 1 ? pktlen - 22 - 1 : 0);

	if (rlen < 5 || vc->dcidlen > NGTCP2_MAX_CIDLEN)
		return;
	ngtcp2_cid_init(&cid, vc->dcid, vc->dcidlen);
	if (quic_reset_token(token, &cid))
		return;
	quic_rand_cb(rnd, rlen, &rctx);
	n = ngtcp2_pkt_write_stateless_reset(buf, sizeof(buf), token, rnd, rlen);
	if (n > 0)
		send_raw(ep, buf, (size_t)n, peer, peerlen);
}

/* --quic-retry: no state for an Initial without a token, a Retry with one */
static void send_retry(struct worker *w, struct udp_ep *ep, const ngtcp2_pkt_hd *hd,
		       const struct sockaddr_storage *peer, socklen_t peerlen)
{
	uint8_t token[NGTCP2_CRYPTO_MAX_RETRY_TOKENLEN], buf[1500];
	ngtcp2_cid scid;
	ngtcp2_rand_ctx rctx = { &w->rng };
	ngtcp2_ssize tl, n;

	scid.datalen = QUIC_SCIDLEN;
	quic_rand_cb(scid.data, scid.datalen, &rctx);
	tl = ngtcp2_crypto_generate_retry_token(token, retry_secret, sizeof(retry_secret), hd->version,
						(const ngtcp2_sockaddr *)peer, peerlen, &scid, &hd->dcid,
						(ngtcp2_tstamp)clock_ns());
	if (tl < 0)
		return;
	n = ngtcp2_crypto_write_retry(buf, sizeof(buf), hd->version, &hd->scid, &scid, &hd->dcid,
				      token, (size_t)tl);
	if (n > 0)
		send_raw(ep, buf, (size_t)n, peer, peerlen);
}

/* Retry first: --quic-retry, or past --quic-retry-threshold half-open */
static int retry_first(const struct worker *w)
{
	return cfg.quic_retry || qw(w)->nhalf >= cfg.quic_retry_half;
}

/* Returns 1 to go on, 2 with <odcid> set by a valid Retry token, 0 to drop */
int quic_address_check(struct worker *w, struct udp_ep *ep, const ngtcp2_pkt_hd *hd,
			 const struct sockaddr_storage *peer, socklen_t peerlen, ngtcp2_cid *odcid)
{
	/* WHY any mode: a client answering a Retry sent under pressure comes
	 * back with its token after the pressure is gone */
	if (hd->token.len && hd->token.base[0] == NGTCP2_CRYPTO_TOKEN_MAGIC_RETRY) {
		if (!ngtcp2_crypto_verify_retry_token(odcid, hd->token.base, hd->token.len, retry_secret,
						      sizeof(retry_secret), hd->version,
						      (const ngtcp2_sockaddr *)peer, peerlen, &hd->dcid,
						      10 * NGTCP2_SECONDS, (ngtcp2_tstamp)clock_ns()))
			return 2;
		ctr_add(&w->st.quic_dgram[SQD_DROPPED], 1); /* a token that is not ours, or too old */
		return 0;
	}
	if (!retry_first(w))
		return 1;
	ctr_add(&w->st.quic_dgram[SQD_RETRY], 1);
	send_retry(w, ep, hd, peer, peerlen);
	return 0;
}

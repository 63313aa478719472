/* A client's QUIC v1 Initial opened before any connection state: keys from its DCID, header protection off, the AEAD tag checked. */
#include <stdint.h>
#include <string.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>

#include "qinit.h"
#include "qvarint.h"

#define QI_MAX   2048 /* the largest datagram the server reads */
#define QI_TAG   16   /* AEAD_AES_128_GCM's tag */
#define QI_SAMPLE 16  /* header protection's sample */

/* RFC 9001 section 5.2 */
static const uint8_t salt_v1[20] = { 0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
				     0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a };

struct qi_keys {
	uint8_t key[16], iv[12], hp[16];
};

static int expand(uint8_t *out, size_t len, const ngtcp2_crypto_md *md, const uint8_t *secret, const char *label)
{
	return ngtcp2_crypto_hkdf_expand_label(out, len, md, secret, 32, (const uint8_t *)label, strlen(label));
}

/* the client's Initial keys, from the DCID it chose */
static int qi_derive(struct qi_keys *k, const uint8_t *dcid, size_t dcidlen)
{
	ngtcp2_crypto_md md;
	uint8_t initial[32], client[32];

	ngtcp2_crypto_md_init(&md, (void *)(intptr_t)GNUTLS_MAC_SHA256);
	if (ngtcp2_crypto_hkdf_extract(initial, &md, dcid, dcidlen, salt_v1, sizeof(salt_v1)) ||
	    expand(client, sizeof(client), &md, initial, "client in") ||
	    expand(k->key, sizeof(k->key), &md, client, "quic key") ||
	    expand(k->iv, sizeof(k->iv), &md, client, "quic iv") ||
	    expand(k->hp, sizeof(k->hp), &md, client, "quic hp"))
		return -1;
	return 0;
}

/* WHY CBC: GnuTLS offers no ECB; one block of CBC under a zero IV is AES-ECB */
static int hp_mask(const struct qi_keys *k, const uint8_t *sample, uint8_t mask[QI_SAMPLE])
{
	static const uint8_t zero[16];
	gnutls_datum_t key = { (unsigned char *)k->hp, sizeof(k->hp) }, iv = { (unsigned char *)zero, 16 };
	gnutls_cipher_hd_t h;
	int rv;

	if (gnutls_cipher_init(&h, GNUTLS_CIPHER_AES_128_CBC, &key, &iv) < 0)
		return -1;
	rv = gnutls_cipher_encrypt2(h, sample, QI_SAMPLE, mask, QI_SAMPLE);
	gnutls_cipher_deinit(h);
	return rv < 0 ? -1 : 0;
}

/* <hdr> (<hlen> bytes, header protection off) authenticates <ct> */
static int aead_open(const struct qi_keys *k, const uint8_t *hdr, size_t hlen, size_t pnlen, const uint8_t *ct,
		     size_t ctlen)
{
	uint8_t nonce[12], out[QI_MAX];
	size_t outlen = sizeof(out);
	gnutls_datum_t key = { (unsigned char *)k->key, sizeof(k->key) };
	gnutls_aead_cipher_hd_t h;
	int rv;

	memcpy(nonce, k->iv, sizeof(nonce));
	for (size_t i = 0; i < pnlen; i++)
		nonce[sizeof(nonce) - pnlen + i] ^= hdr[hlen - pnlen + i];
	if (gnutls_aead_cipher_init(&h, GNUTLS_CIPHER_AES_128_GCM, &key) < 0)
		return -1;
	rv = gnutls_aead_cipher_decrypt(h, nonce, sizeof(nonce), hdr, hlen, QI_TAG, ct, ctlen, out, &outlen);
	gnutls_aead_cipher_deinit(h);
	return rv < 0 ? -1 : 0;
}

int qinit_open(const uint8_t *pkt, size_t len)
{
	const uint8_t *p = pkt + 5, *end = pkt + (len < QI_MAX ? len : QI_MAX), *dcid;
	uint64_t toklen, plen;
	size_t dcidlen, scidlen, pn_off, pnlen;
	uint8_t hdr[QI_MAX], mask[QI_SAMPLE];
	struct qi_keys k;

	if (len < 7 || (pkt[0] & 0xc0) != 0xc0)
		return -1;
	if (((uint32_t)pkt[1] << 24 | (uint32_t)pkt[2] << 16 | (uint32_t)pkt[3] << 8 | pkt[4]) != NGTCP2_PROTO_VER_V1)
		return 1;
	if ((pkt[0] & 0x30) != 0) /* v1's Initial type */
		return -1;
	dcidlen = *p++;
	if (dcidlen > NGTCP2_MAX_CIDLEN || (size_t)(end - p) < dcidlen + 1)
		return -1;
	dcid = p;
	p += dcidlen;
	scidlen = *p++;
	if (scidlen > NGTCP2_MAX_CIDLEN || (size_t)(end - p) < scidlen)
		return -1;
	p += scidlen;
	if (qv_get(&p, end, &toklen) < 0 || (uint64_t)(end - p) < toklen)
		return -1;
	p += toklen;
	if (qv_get(&p, end, &plen) < 0 || (uint64_t)(end - p) < plen || plen < 4 + QI_SAMPLE)
		return -1;
	pn_off = (size_t)(p - pkt);
	if (qi_derive(&k, dcid, dcidlen) < 0 || hp_mask(&k, p + 4, mask) < 0)
		return -1;
	memcpy(hdr, pkt, pn_off + 4);
	hdr[0] ^= mask[0] & 0x0f;
	pnlen = (hdr[0] & 3) + 1;
	for (size_t i = 0; i < pnlen; i++)
		hdr[pn_off + i] ^= mask[1 + i];
	return aead_open(&k, hdr, pn_off + pnlen, pnlen, p + pnlen, (size_t)plen - pnlen);
}

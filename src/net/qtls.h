/* QUIC's TLS 1.3 with GnuTLS (ngtcp2's crypto backend): the credentials, priorities and sessions both endpoints need. */
#ifndef HX_QTLS_H
#define HX_QTLS_H

#include <gnutls/gnutls.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>

struct qtls {
	gnutls_certificate_credentials_t cred;
	gnutls_priority_t prio;      /* TLS 1.3 only, as QUIC wants */
};

/* The crypto callbacks every endpoint gives ngtcp2 (its crypto library's),
 * for a designated initializer of ngtcp2_callbacks; the endpoint adds its
 * side's initial callback and its own. */
#define QTLS_CALLBACKS \
	.recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb, \
	.encrypt = ngtcp2_crypto_encrypt_cb, \
	.decrypt = ngtcp2_crypto_decrypt_cb, \
	.hp_mask = ngtcp2_crypto_hp_mask_cb, \
	.update_key = ngtcp2_crypto_update_key_cb, \
	.delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb, \
	.delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb, \
	.get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb, \
	.version_negotiation = ngtcp2_crypto_version_negotiation_cb

/* A client's ngtcp2 randomness (GnuTLS's): for .rand and .get_new_connection_id */
void qtls_client_rand(uint8_t *dest, size_t len, const ngtcp2_rand_ctx *ctx);
int qtls_client_new_cid(ngtcp2_conn *conn, ngtcp2_cid *cid, uint8_t *token, size_t len, void *user);

/* Return convention: 0, or -1 (GnuTLS refused, out of memory).
 * qtls_lib: GnuTLS's global set-up, once (the program skips its
 * constructor's): before any other GnuTLS call that qtls_init() does not
 * precede. qtls_init: credentials and priorities, after qtls_lib(). */
int qtls_lib(void);
int qtls_init(struct qtls *t);
void qtls_free(struct qtls *t);

/* A session in <*s> for <*connp>, the connection of its owner: the server
 * or the client side, ALPN h3, gnutls_init's <extra> flags (early data),
 * <ref> tied to it for ngtcp2's callbacks (they find the connection
 * through <connp>). */
int qtls_session(const struct qtls *t, gnutls_session_t *s, int server, unsigned extra, ngtcp2_conn **connp,
		 ngtcp2_crypto_conn_ref *ref);

#endif

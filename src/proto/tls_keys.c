/* Session tickets every instance of a fleet can open: keys from a file (base64, 48 or 80 bytes a line, the first one sealing new tickets), swapped whole on SIGHUP; and early data. */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "qtls.h"
#include "tls.h"
#include "tls_keys.h"

#define MAX_KEYS 16

/* one key: a name, an AES key (128 or 256 bits), an HMAC-SHA256 key */
struct tkey {
	unsigned char name[16];
	unsigned char aes[32];
	unsigned char hmac[32];
	int aes_len;         /* 16 or 32 */
	int hmac_len;
};

struct tkeys {
	int n;
	struct tkey k[MAX_KEYS];
};

static struct tkeys *keys;   /* the set in use, under <lock> */
/* WHY 64 bytes of their own: GnuTLS seals QUIC's tickets with one master
 * key of that size (rotating from it by itself); it is the SHA-512 of the
 * file's first key, or random without --ticket-keys */
static unsigned char quic_key[64];
static int quic_key_set;
static gnutls_anti_replay_t anti_replay;
static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;

/* one base64 line into <k>: 0, or -1 with a reason */
static int parse_key(const char *line, struct tkey *k, const char **why)
{
	unsigned char raw[128];
	size_t len = strlen(line);
	int n;

	if (len > 4 * sizeof(raw) / 3 || len % 4)
		return *why = "not base64 of 48 or 80 bytes", -1;
	n = EVP_DecodeBlock(raw, (const unsigned char *)line, (int)len);
	if (n < 0)
		return *why = "not base64", -1;
	n -= (len >= 1 && line[len - 1] == '=') + (len >= 2 && line[len - 2] == '=');
	if (n != 48 && n != 80)
		return *why = "a key is 48 bytes (name, AES-128, HMAC) or 80 (name, AES-256, HMAC)", -1;
	k->aes_len = k->hmac_len = n == 48 ? 16 : 32;
	memcpy(k->name, raw, 16);
	memcpy(k->aes, raw + 16, (size_t)k->aes_len);
	memcpy(k->hmac, raw + 16 + k->aes_len, (size_t)k->hmac_len);
	return 0;
}

static struct tkeys *load(const char *path)
{
	FILE *f = fopen(path, "r");
	struct tkeys *t = calloc(1, sizeof(*t));
	char line[512];
	int ln = 0;
	const char *why;

	if (!f || !t) {
		log_err("--ticket-keys %s: %s", path, f ? "out of memory" : "cannot open it");
		goto fail;
	}
	while (fgets(line, sizeof(line), f)) {
		ln++;
		line[strcspn(line, " \t\r\n#")] = 0;
		if (!*line)
			continue;
		if (t->n == MAX_KEYS) {
			log_err("--ticket-keys %s: more than %d keys", path, MAX_KEYS);
			goto fail;
		}
		if (parse_key(line, &t->k[t->n], &why) < 0) {
			log_err("--ticket-keys %s line %d: %s", path, ln, why);
			goto fail;
		}
		t->n++;
	}
	if (!t->n) {
		log_err("--ticket-keys %s: no key", path);
		goto fail;
	}
	fclose(f);
	return t;
fail:
	if (f)
		fclose(f);
	free(t);
	return NULL;
}

static int set_mac(EVP_MAC_CTX *hctx, const struct tkey *k)
{
	OSSL_PARAM p[] = {
		OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, (void *)k->hmac, (size_t)k->hmac_len),
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"sha256", 0),
		OSSL_PARAM_construct_end(),
	};

	return EVP_MAC_CTX_set_params(hctx, p);
}

static const EVP_CIPHER *cipher_of(const struct tkey *k)
{
	return k->aes_len == 16 ? EVP_aes_128_cbc() : EVP_aes_256_cbc();
}

/* OpenSSL's ticket callback: seal with the first key; open with any, and
 * ask for a new ticket (2) when it was not the first */
static int ticket_cb(SSL *s, unsigned char name[16], unsigned char *iv, EVP_CIPHER_CTX *ectx, EVP_MAC_CTX *hctx,
		     int enc)
{
	int r = 0;

	(void)s;
	pthread_rwlock_rdlock(&lock);
	if (enc) {
		const struct tkey *k = &keys->k[0];

		memcpy(name, k->name, 16);
		r = RAND_bytes(iv, EVP_CIPHER_get_iv_length(cipher_of(k))) == 1 &&
		    EVP_EncryptInit_ex(ectx, cipher_of(k), NULL, k->aes, iv) == 1 && set_mac(hctx, k) == 1 ? 1 : -1;
	} else {
		for (int i = 0; i < keys->n && !r; i++) {
			const struct tkey *k = &keys->k[i];

			if (memcmp(name, k->name, 16))
				continue;
			r = EVP_DecryptInit_ex(ectx, cipher_of(k), NULL, k->aes, iv) == 1 && set_mac(hctx, k) == 1 ?
				    (i ? 2 : 1) : -1;
		}
	}
	pthread_rwlock_unlock(&lock);
	return r;
}

/* the QUIC master key from the first key of <t> (under the lock) */
static void quic_key_from(const struct tkeys *t)
{
	const struct tkey *k = &t->k[0];
	unsigned char raw[16 + 32 + 32];
	size_t n = 16 + (size_t)k->aes_len + (size_t)k->hmac_len;

	memcpy(raw, k->name, 16);
	memcpy(raw + 16, k->aes, (size_t)k->aes_len);
	memcpy(raw + 16 + k->aes_len, k->hmac, (size_t)k->hmac_len);
	EVP_Digest(raw, n, quic_key, NULL, EVP_sha512(), NULL);
	quic_key_set = 1;
}

/* GnuTLS asks whether a 0-RTT ClientHello was seen before */
static int replay_add(void *db, time_t exp, const gnutls_datum_t *key, const gnutls_datum_t *data)
{
	(void)db, (void)exp, (void)key, (void)data;
	return 0; /* WHY none kept: the same caveat as on TCP (-h) */
}

int tls_keys_setup(SSL_CTX *ctx)
{
	if (cfg.ticket_keys) {
		if (!(keys = load(cfg.ticket_keys)))
			return -1;
		SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, ticket_cb);
		quic_key_from(keys);
	} else {
		quic_key_set = RAND_bytes(quic_key, sizeof(quic_key)) == 1;
	}
	if (cfg.early_data && !cfg.no_h3) {
		if (qtls_lib() < 0 || gnutls_anti_replay_init(&anti_replay) < 0)
			return log_err("cannot set up QUIC 0-RTT (GnuTLS anti-replay)"), -1;
		gnutls_anti_replay_set_add_function(anti_replay, replay_add);
	}
	if (cfg.early_data) {
		/* WHY no anti-replay: the cache it needs is one process's, and
		 * a fleet sharing tickets replays across it anyway; the
		 * README and -h say early data can be replayed */
		SSL_CTX_set_options(ctx, SSL_OP_NO_ANTI_REPLAY);
		SSL_CTX_set_max_early_data(ctx, TLS_EARLY_MAX);
		SSL_CTX_set_recv_max_early_data(ctx, TLS_EARLY_MAX);
	}
	return 0;
}

int tls_keys_reload(void)
{
	struct tkeys *t, *old;

	if (!cfg.ticket_keys)
		return 0;
	if (!(t = load(cfg.ticket_keys)))
		return -1;
	pthread_rwlock_wrlock(&lock);
	old = keys;
	keys = t;
	quic_key_from(t);
	pthread_rwlock_unlock(&lock);
	free(old);
	log_info("--ticket-keys %s: %d key%s loaded", cfg.ticket_keys, t->n, t->n > 1 ? "s" : "");
	return 0;
}

void tls_keys_free(void)
{
	free(keys);
	keys = NULL;
	if (anti_replay)
		gnutls_anti_replay_deinit(anti_replay);
	anti_replay = NULL;
}

int tls_keys_quic(gnutls_session_t s)
{
	unsigned char k[64];
	gnutls_datum_t d = { k, sizeof(k) };
	int r;

	if (!quic_key_set)
		return 0;
	pthread_rwlock_rdlock(&lock);
	memcpy(k, quic_key, sizeof(k));
	pthread_rwlock_unlock(&lock);
	r = gnutls_session_ticket_enable_server(s, &d);
	if (r >= 0 && anti_replay) {
		gnutls_anti_replay_enable(s, anti_replay);
		/* WHY all ones: QUIC says early data is limited by its own
		 * flow control, and the ticket must carry 0xffffffff */
		gnutls_record_set_max_early_data_size(s, 0xffffffffu);
	}
	return r < 0 ? -1 : 0;
}

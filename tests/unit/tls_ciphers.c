/* Unit tests of the built-in AEAD ciphers: the EVP layer routed to them, TLS 1.3 and 1.2 records between them and the provider's both ways, a changed byte refused. */
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "tap.h"
#include "tls_ciphers.h"
#include "tls_pair.h"

/* 1 when a context of <nid>'s cipher, as libssl asks for it (by its nid,
 * no ENGINE named), runs the built-in code, not a provider's */
static int builtin(int nid)
{
	static const unsigned char key[32], iv[16]; /* WHY 16: CBC reads a whole block of IV */
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int r = -1;

	if (c && EVP_EncryptInit_ex(c, EVP_get_cipherbynid(nid), NULL, key, iv) == 1)
		r = EVP_CIPHER_get0_provider(EVP_CIPHER_CTX_get0_cipher(c)) == NULL;
	EVP_CIPHER_CTX_free(c);
	return r;
}

/* a server and a client, each with its memory BIOs: what one writes, the
 * test hands to the other (and may change on the way) */
struct duo {
	SSL *s, *c;
	BIO *s_in, *s_out, *c_in, *c_out;
};

static void move(BIO *from, BIO *to, int flip)
{
	char buf[65536];
	int n;

	while ((n = BIO_read(from, buf, sizeof(buf))) > 0) {
		if (flip)
			buf[n - 1] ^= 1; /* WHY the last: in the record's tag */
		BIO_write(to, buf, n);
	}
}

static int duo_open(struct duo *d, SSL_CTX *sc, SSL_CTX *cc)
{
	memset(d, 0, sizeof(*d));
	if (!(d->s = SSL_new(sc)) || !(d->c = SSL_new(cc)))
		return -1;
	d->s_in = BIO_new(BIO_s_mem()), d->s_out = BIO_new(BIO_s_mem());
	d->c_in = BIO_new(BIO_s_mem()), d->c_out = BIO_new(BIO_s_mem());
	SSL_set_bio(d->s, d->s_in, d->s_out);
	SSL_set_bio(d->c, d->c_in, d->c_out);
	SSL_set_accept_state(d->s);
	SSL_set_connect_state(d->c);
	for (int i = 0; i < 20; i++) {
		int rc = SSL_do_handshake(d->c);

		move(d->c_out, d->s_in, 0);
		int rs = SSL_do_handshake(d->s);

		move(d->s_out, d->c_in, 0);
		if (rc == 1 && rs == 1)
			return 0;
	}
	return -1;
}

static void duo_close(struct duo *d)
{
	SSL_free(d->s);
	SSL_free(d->c);
	ERR_clear_error();
}

/* <len> bytes from <w> to <r>, written in pieces of <piece>: 1 when they
 * all come out the same */
static int carry(SSL *w, BIO *w_out, BIO *r_in, SSL *r, size_t len, size_t piece)
{
	static unsigned char out[200000], in[200000];
	size_t got = 0;

	for (size_t i = 0; i < len; i++)
		out[i] = (unsigned char)(i * 31 + len);
	for (size_t off = 0; off < len; off += piece)
		if (SSL_write(w, out + off, (int)(len - off < piece ? len - off : piece)) <= 0)
			return 0;
	move(w_out, r_in, 0);
	for (int n; got < len && (n = SSL_read(r, in + got, (int)(len - got))) > 0;)
		got += (size_t)n;
	return got == len && !memcmp(in, out, len);
}

/* a session of <suite> between <sc> and <cc>: both ways, records of 1 B
 * to 16 KiB and more, then a record whose tag changed, refused */
static void session(SSL_CTX *sc, SSL_CTX *cc, const char *suite, int v13, const char *what)
{
	struct duo d;
	int ok_all = 1, n;
	char b[8];

	if (v13) {
		SSL_CTX_set_ciphersuites(sc, suite);
		SSL_CTX_set_min_proto_version(sc, TLS1_3_VERSION);
		SSL_CTX_set_max_proto_version(sc, TLS1_3_VERSION);
	} else {
		SSL_CTX_set_cipher_list(sc, suite);
		SSL_CTX_set_min_proto_version(sc, TLS1_2_VERSION);
		SSL_CTX_set_max_proto_version(sc, TLS1_2_VERSION);
	}
	if (duo_open(&d, sc, cc) < 0) {
		ok(0, "%s %s: handshake", suite, what);
		duo_close(&d);
		return;
	}
	ok(!strcmp(SSL_get_cipher_name(d.c), suite), "%s %s: negotiated (%s)", suite, what, SSL_get_cipher_name(d.c));
	static const size_t sizes[][2] = { { 1, 1 }, { 100, 100 }, { 16384, 16384 }, { 100000, 7000 }, { 150000, 150000 } };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ok_all &= carry(d.c, d.c_out, d.s_in, d.s, sizes[i][0], sizes[i][1]);
		ok_all &= carry(d.s, d.s_out, d.c_in, d.c, sizes[i][0], sizes[i][1]);
	}
	ok(ok_all, "... 1 B to 150 KB each way, in pieces of 1 B to 150 KB, the same bytes out");
	SSL_write(d.c, "hello", 5);
	move(d.c_out, d.s_in, 1);
	n = SSL_read(d.s, b, sizeof(b));
	ok(n <= 0 && SSL_get_error(d.s, n) == SSL_ERROR_SSL &&
	   ERR_GET_REASON(ERR_peek_last_error()) == SSL_R_DECRYPTION_FAILED_OR_BAD_RECORD_MAC,
	   "... a record whose tag changed is refused (bad record MAC)");
	duo_close(&d);
}

static SSL_CTX *server_ctx(EVP_PKEY *key, X509 *x)
{
	SSL_CTX *c = SSL_CTX_new(TLS_server_method());

	if (c && (SSL_CTX_use_certificate(c, x) != 1 || SSL_CTX_use_PrivateKey(c, key) != 1)) {
		SSL_CTX_free(c);
		return NULL;
	}
	return c;
}

int main(void)
{
	static const char *const v13[] = { "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
					   "TLS_CHACHA20_POLY1305_SHA256" };
	static const char *const v12[] = { "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
					   "ECDHE-ECDSA-CHACHA20-POLY1305" };
	EVP_PKEY *key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	unsigned char *der = NULL;
	int n = cert_der(key, &der);
	const unsigned char *p = der;
	X509 *x = n > 0 ? d2i_X509(NULL, &p, n) : NULL;

	ok(key && x, "a key and its certificate");
	is_int(builtin(NID_aes_128_gcm), 0, "before: AES-128-GCM asked by its nid runs the provider's code");
	/* WHY contexts on both sides of the registration: libssl takes its
	 * ciphers when a context is made, so these two keep the provider's */
	SSL_CTX *old_s = server_ctx(key, x), *old_c = SSL_CTX_new(TLS_client_method());

	is_int(tls_builtin_ciphers(), 0, "the built-in ciphers registered");
	is_int(tls_builtin_ciphers(), 0, "... once: a second call changes nothing");
	is_int(builtin(NID_aes_128_gcm), 1, "after: AES-128-GCM runs the built-in code");
	is_int(builtin(NID_aes_256_gcm), 1, "... AES-256-GCM too");
	is_int(builtin(NID_chacha20_poly1305), 1, "... and ChaCha20-Poly1305");
	is_int(builtin(NID_aes_128_cbc), 0, "... not a cipher it does not name (AES-128-CBC: the provider's)");
	SSL_CTX *new_s = server_ctx(key, x), *new_c = SSL_CTX_new(TLS_client_method());

	for (size_t i = 0; i < 3; i++) {
		session(new_s, new_c, v13[i], 1, "built-in both ends");
		session(new_s, old_c, v13[i], 1, "built-in server, provider client");
		session(old_s, new_c, v13[i], 1, "provider server, built-in client");
		session(new_s, new_c, v12[i], 0, "TLS 1.2, built-in both ends");
		session(old_s, new_c, v12[i], 0, "TLS 1.2, provider server, built-in client");
	}
	SSL_CTX_free(old_s);
	SSL_CTX_free(old_c);
	SSL_CTX_free(new_s);
	SSL_CTX_free(new_c);
	X509_free(x);
	OPENSSL_free(der);
	EVP_PKEY_free(key);
	return done_testing();
}

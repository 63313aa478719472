/* The server's TLS context: generated RSA + ECDSA certificates or --cert/--key, ALPN h2/http/1.1. */
#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "tls.h"
#include "tls_auth.h"
#include "tls_bio.h"
#include "tls_ciphers.h"
#include "tls_keys.h"
#include "tls_ctx.h"

#define MAX_CERTS 2

static SSL_CTX *ctx;
static char *cert_pem[MAX_CERTS], *key_pem[MAX_CERTS];

/* whether an earlier -L address already put <s> (its text or host) in */
static int san_seen(int i, const char *s)
{
	for (int j = 0; j < i; j++)
		if (!strcmp(cfg.addrs[j].text, s) || !strcmp(cfg.addrs[j].host, s))
			return 1;
	return !strcmp(s, "127.0.0.1") || !strcmp(s, "::1") || !strcmp(s, "localhost");
}

/* "DNS:localhost,IP:127.0.0.1,IP:::1" plus every -L address and host name,
 * each once, and --name */
static void san_list(char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "DNS:localhost,IP:127.0.0.1,IP:::1");

	for (int i = 0; i < cfg.naddrs && n < len; i++) {
		const struct listen_addr *la = &cfg.addrs[i];

		if (la->ss.ss_family == AF_UNIX)
			continue;
		if (!la->any && !san_seen(i, la->text))
			n += (size_t)snprintf(buf + n, len - n, ",IP:%s", la->text);
		if (n < len && la->host[0] && !san_seen(i, la->host))
			n += (size_t)snprintf(buf + n, len - n, ",DNS:%s", la->host);
	}
	if (n < len && strcmp(cfg.name, "localhost"))
		snprintf(buf + n, len - n, ",DNS:%s", cfg.name);
}

static int add_ext(X509 *x, int nid, const char *value)
{
	X509V3_CTX v3;
	X509_EXTENSION *ext;
	int ok;

	X509V3_set_ctx_nodb(&v3);
	X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &v3, nid, value);
	if (!ext)
		return -1;
	ok = X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	return ok ? 0 : -1;
}

/* self-signed, valid from an hour ago for a year, CN hxterm */
static X509 *make_cert(EVP_PKEY *key)
{
	X509 *x = X509_new();
	X509_NAME *name;
	unsigned char serial[16];
	BIGNUM *bn;
	char san[2048];

	if (!x)
		return NULL;
	RAND_bytes(serial, sizeof(serial));
	serial[0] &= 0x7f;
	bn = BN_bin2bn(serial, sizeof(serial), NULL);
	BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x));
	BN_free(bn);
	X509_set_version(x, 2);
	X509_gmtime_adj(X509_getm_notBefore(x), -3600);
	X509_gmtime_adj(X509_getm_notAfter(x), 365L * 86400);
	X509_set_pubkey(x, key);
	name = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"hxterm", -1, -1, 0);
	X509_set_issuer_name(x, name);
	san_list(san, sizeof(san));
	if (add_ext(x, NID_subject_alt_name, san) < 0 ||
	    add_ext(x, NID_basic_constraints, "critical,CA:FALSE") < 0 ||
	    add_ext(x, NID_ext_key_usage, "serverAuth") < 0 ||
	    !X509_sign(x, key, EVP_sha256())) {
		X509_free(x);
		return NULL;
	}
	return x;
}

static char *to_pem(X509 *x, EVP_PKEY *k)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *data, *out = NULL;
	long n;

	if (!b)
		return NULL;
	if (x ? PEM_write_bio_X509(b, x) : PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL)) {
		n = BIO_get_mem_data(b, &data);
		out = strndup(data, (size_t)n);
	}
	BIO_free(b);
	return out;
}

static void print_fingerprint(X509 *x, const char *what)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n;
	char hex[3 * EVP_MAX_MD_SIZE + 1];

	if (!X509_digest(x, EVP_sha256(), md, &n))
		return;
	for (unsigned i = 0; i < n; i++) {
		static const char digits[] = "0123456789ABCDEF";

		hex[3 * i] = digits[md[i] >> 4];
		hex[3 * i + 1] = digits[md[i] & 15];
		hex[3 * i + 2] = i + 1 < n ? ':' : 0;
	}
	log_info("%s certificate SHA-256 %s", what, hex);
}

/* installs <key> and its certificate in the context, keeps PEM copies */
static int use_pair(X509 *x, EVP_PKEY *key, int idx, const char *what)
{
	if (SSL_CTX_use_certificate(ctx, x) != 1) {
		const char *why = ERR_reason_error_string(ERR_peek_last_error());

		log_err("%s: certificate refused (%s)", what, why ? why : "unknown reason");
		return -1;
	}
	if (SSL_CTX_use_PrivateKey(ctx, key) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
		log_err("%s: the key does not match the certificate", what);
		return -1;
	}
	cert_pem[idx] = to_pem(x, NULL);
	key_pem[idx] = to_pem(NULL, key);
	print_fingerprint(x, what);
	return 0;
}

static int generate(void)
{
	EVP_PKEY *keys[2];
	const char *what[2] = { "RSA", "ECDSA" };
	int r = 0;

	keys[0] = EVP_RSA_gen((unsigned)cfg.rsa_bits);
	keys[1] = EVP_EC_gen(cfg.curve);
	if (!keys[0] || !keys[1]) {
		if (!keys[0])
			log_err("cannot generate an RSA key of %d bits (-b)", cfg.rsa_bits);
		else
			log_err("cannot generate an ECDSA key on curve %s (-c)", cfg.curve);
		r = -1;
	}
	for (int i = 0; i < 2 && !r; i++) {
		X509 *x = make_cert(keys[i]);

		r = x ? use_pair(x, keys[i], i, what[i]) : -1;
		if (!x)
			log_err("cannot make the %s certificate", what[i]);
		X509_free(x);
	}
	EVP_PKEY_free(keys[0]);
	EVP_PKEY_free(keys[1]);
	return r;
}

static int load_files(void)
{
	FILE *fc = fopen(cfg.cert, "r"), *fk = fopen(cfg.key, "r");
	X509 *x = fc ? PEM_read_X509(fc, NULL, NULL, NULL) : NULL;
	EVP_PKEY *k = fk ? PEM_read_PrivateKey(fk, NULL, NULL, NULL) : NULL;
	int r = -1;

	if (!fc || !fk)
		log_err("cannot open %s", !fc ? cfg.cert : cfg.key);
	else if (!x || !k)
		log_err("%s: no PEM %s found", !x ? cfg.cert : cfg.key,
			!x ? "certificate" : "private key");
	else
		r = use_pair(x, k, 0, "loaded");
	if (r == 0 && SSL_CTX_use_certificate_chain_file(ctx, cfg.cert) != 1)
		r = -1, log_err("%s: bad certificate chain", cfg.cert);
	if (fc)
		fclose(fc);
	if (fk)
		fclose(fk);
	X509_free(x);
	EVP_PKEY_free(k);
	return r;
}

static int alpn_cb(SSL *ssl, const unsigned char **out, unsigned char *outlen,
		   const unsigned char *in, unsigned int inlen, void *arg)
{
	static const unsigned char prefs[] = "\x02h2\x08http/1.1";

	(void)ssl, (void)arg;
	if (SSL_select_next_proto((unsigned char **)out, outlen, prefs, sizeof(prefs) - 1,
				  in, inlen) == OPENSSL_NPN_NEGOTIATED)
		return SSL_TLSEXT_ERR_OK;
	return SSL_TLSEXT_ERR_NOACK; /* no common protocol: h1 without ALPN */
}

int tls_init(void)
{
	tls_builtin_ciphers(); /* WHY first: a context takes its ciphers when it is made */
	ctx = SSL_CTX_new(TLS_server_method());
	if (!ctx || tls_bio_init())
		return log_err("cannot create the TLS context"), -1;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	/* WHY: Debian's default security level 2 refuses RSA under 2048 bits,
	 * and a test target is asked for weak keys on purpose (-b 1024) */
	if (cfg.rsa_bits < 2048)
		SSL_CTX_set_security_level(ctx, 1);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
			 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
	/* WHY: one recv takes what is there, not a 5-byte record header and
	 * then its body; tls_bio then tells a short read, so the EAGAIN recv
	 * after each request is not needed */
	SSL_CTX_set_read_ahead(ctx, 1);
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
	SSL_CTX_set_alpn_select_cb(ctx, alpn_cb, NULL);
	if (tls_auth_openssl(ctx) < 0 || tls_keys_setup(ctx) < 0)
		return -1;
	return cfg.cert ? load_files() : generate();
}

void tls_free(void)
{
	SSL_CTX_free(ctx);
	ctx = NULL;
	tls_keys_free();
	tls_bio_free();
	for (int i = 0; i < MAX_CERTS; i++) {
		free(cert_pem[i]);
		free(key_pem[i]);
		cert_pem[i] = key_pem[i] = NULL;
	}
}

SSL *tls_new(int fd)
{
	return tls_accept_new(ctx, fd);
}

const char *tls_cert_pem(int idx)
{
	return idx < MAX_CERTS ? cert_pem[idx] : NULL;
}

const char *tls_key_pem(int idx)
{
	return idx < MAX_CERTS ? key_pem[idx] : NULL;
}

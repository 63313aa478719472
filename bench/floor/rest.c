/* The memory floor at rest of a TLS and QUIC server here: a process that only makes what hxterm's TLS and QUIC listeners need (an OpenSSL server context with its certificate, GnuTLS credentials and a TLS 1.3 priority), then waits to be measured. */
#include <gnutls/gnutls.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

/* usage: rest <cert.pem> <key.pem>; prints "ready" once set up, then waits
 * for a signal, so that its VmRSS can be read from /proc */
int main(int argc, char **argv)
{
	gnutls_certificate_credentials_t cred;
	gnutls_priority_t prio;
	SSL_CTX *ctx;

	if (argc != 3)
		return fprintf(stderr, "usage: rest <cert.pem> <key.pem>\n"), 2;
	ctx = SSL_CTX_new(TLS_server_method());
	if (!ctx || SSL_CTX_use_certificate_chain_file(ctx, argv[1]) != 1 ||
	    SSL_CTX_use_PrivateKey_file(ctx, argv[2], SSL_FILETYPE_PEM) != 1)
		return fprintf(stderr, "rest: OpenSSL refused %s or %s\n", argv[1], argv[2]), 1;
	if (gnutls_global_init() < 0 || gnutls_certificate_allocate_credentials(&cred) < 0 ||
	    gnutls_certificate_set_x509_key_file(cred, argv[1], argv[2], GNUTLS_X509_FMT_PEM) < 0 ||
	    gnutls_priority_init(&prio, "NORMAL:-VERS-ALL:+VERS-TLS1.3", NULL) < 0)
		return fprintf(stderr, "rest: GnuTLS refused %s or %s\n", argv[1], argv[2]), 1;
	printf("ready\n");
	fflush(stdout);
	pause();
	return 0;
}

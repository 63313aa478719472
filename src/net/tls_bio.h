/* A socket BIO for OpenSSL that remembers whether its last recv emptied the socket. */
#ifndef HX_TLS_BIO_H
#define HX_TLS_BIO_H

typedef struct ssl_st SSL;

/* Creates the BIO method once (idempotent): 0, or -1. */
int tls_bio_init(void);
void tls_bio_free(void);

/* Puts a BIO on <fd> under <ssl> for both directions (the fd stays open
 * when the SSL is freed): 0, or -1. */
int tls_bio_attach(SSL *ssl, int fd);

/* 1 when the last recv under <ssl> returned less than asked (or nothing):
 * with nothing buffered in <ssl>, only a new epoll edge can bring bytes. */
int tls_bio_drained(SSL *ssl);

#endif

/* A socket BIO for OpenSSL that remembers whether its last recv emptied the socket. */
#include <errno.h>
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <stdint.h>
#include <sys/socket.h>

#include "nocall.h"
#include "tls_bio.h"

/* WHY: the BIO's data word holds the fd and the drained bit, so a
 * connection needs no allocation beyond the BIO itself */
#define FD_OF(b)      ((int)((uintptr_t)BIO_get_data(b) >> 1))
#define SET(b, fd, d) BIO_set_data(b, (void *)(((uintptr_t)(unsigned)(fd) << 1) | (d)))

static BIO_METHOD *meth;
static int meth_type;

static int bio_read(BIO *b, char *buf, int len)
{
	int fd = FD_OF(b);
	ssize_t n;

	BIO_clear_retry_flags(b);
	do
		n = nc_recv(fd, buf, (size_t)len, 0);
	while (n < 0 && errno == EINTR);
	/* a short read means the queue is empty: the next byte raises a new edge */
	SET(b, fd, n <= 0 || n < len);
	if (n < 0 && errno == EAGAIN)
		BIO_set_retry_read(b);
	return (int)n;
}

static int bio_write(BIO *b, const char *buf, int len)
{
	ssize_t n;

	BIO_clear_retry_flags(b);
	do
		n = nc_send(FD_OF(b), buf, (size_t)len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		BIO_set_retry_write(b);
	return (int)n;
}

static long bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
	(void)num;
	switch (cmd) {
	case BIO_C_GET_FD:
		if (ptr)
			*(int *)ptr = FD_OF(b);
		return FD_OF(b);
	case BIO_CTRL_FLUSH:
	case BIO_CTRL_DUP:
		return 1;
	}
	return 0;
}

static int bio_create(BIO *b)
{
	BIO_set_init(b, 1);
	return 1;
}

int tls_bio_init(void)
{
	if (meth)
		return 0;
	meth_type = BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR;
	meth = BIO_meth_new(meth_type, "hx");
	if (!meth || !BIO_meth_set_read(meth, bio_read) || !BIO_meth_set_write(meth, bio_write)
	    || !BIO_meth_set_ctrl(meth, bio_ctrl) || !BIO_meth_set_create(meth, bio_create)) {
		tls_bio_free();
		return -1;
	}
	return 0;
}

void tls_bio_free(void)
{
	BIO_meth_free(meth);
	meth = NULL;
}

int tls_bio_attach(SSL *ssl, int fd)
{
	BIO *b = BIO_new(meth);

	if (!b)
		return -1;
	SET(b, fd, 0);
	SSL_set_bio(ssl, b, b);
	return 0;
}

int tls_bio_drained(SSL *ssl)
{
	BIO *b = SSL_get_rbio(ssl);

	return b && BIO_method_type(b) == meth_type ? (int)((uintptr_t)BIO_get_data(b) & 1) : 0;
}

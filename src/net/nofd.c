/* Out of file descriptors: a reserve one to accept and answer the connection at the head of the backlog. */
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "nofd.h"

#define REFUSAL_LEN 52 /* strlen(REFUSAL_BODY): checked below */
#define NOFD_WARN_MS 10000 /* one warning per worker this often while it lasts */

#define REFUSAL_BODY "hxterm is out of file descriptors (raise ulimit -n)\n"
#define STR_(x) #x
#define STR(x) STR_(x)
static const char refusal[] = "HTTP/1.1 503 Service Unavailable\r\n"
			      "Content-Type: text/plain\r\n"
			      "Content-Length: " STR(REFUSAL_LEN) "\r\n"
			      "Retry-After: 1\r\n"
			      "Connection: close\r\n"
			      "\r\n" REFUSAL_BODY;

/* WHY an alert: before the ServerHello the record layer is clear, so a fatal
 * internal_error (80) is what a TLS client can read and name */
static const unsigned char tls_alert[] = { 0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x50 };

_Static_assert(sizeof(REFUSAL_BODY) - 1 == REFUSAL_LEN, "REFUSAL_LEN");

int nofd_init(struct nofd *r)
{
	r->warned_ms = 0;
	r->fd = -1;
	return nofd_restore(r);
}

void nofd_free(struct nofd *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

static void nofd_warn(struct nofd *r, uint64_t now_ms)
{
	struct rlimit rl;

	if (r->warned_ms && now_ms - r->warned_ms < NOFD_WARN_MS)
		return;
	r->warned_ms = now_ms;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		log_err("out of file descriptors (%llu open at most): new connections get 503 until some close",
			(unsigned long long)rl.rlim_cur);
	else
		log_err("out of file descriptors: new connections get 503 until some close");
}

static void answer(int fd, int tls)
{
	char scratch[4096];

	/* WHY read first: closing a socket with unread bytes sends a reset,
	 * which can throw away the answer before the client reads it */
	while (recv(fd, scratch, sizeof(scratch), MSG_DONTWAIT) > 0)
		;
	if (tls)
		(void)!send(fd, tls_alert, sizeof(tls_alert), MSG_DONTWAIT | MSG_NOSIGNAL);
	else
		(void)!send(fd, refusal, sizeof(refusal) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	shutdown(fd, SHUT_WR);
}

int nofd_accept(struct nofd *r, int lfd, int flags)
{
	if (r->fd < 0 && (r->fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		return -1; /* WHY: another thread took the slot; the caller pauses */
	close(r->fd);
	r->fd = -1;
	return accept4(lfd, NULL, NULL, flags | SOCK_CLOEXEC);
}

int nofd_restore(struct nofd *r)
{
	if (r->fd < 0)
		r->fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return r->fd < 0 ? -1 : 0;
}

int nofd_refuse(struct nofd *r, int lfd, int tls, uint64_t now_ms)
{
	int fd = nofd_accept(r, lfd, SOCK_NONBLOCK);

	if (fd >= 0) {
		nofd_warn(r, now_ms);
		answer(fd, tls);
		close(fd);
	}
	return nofd_restore(r) == 0 && fd >= 0 ? 0 : -1;
}

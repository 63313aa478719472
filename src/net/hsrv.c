/* A small HTTP/1.1 server for figures (hxterm's --stats, hxload's --metrics): many clients on a loop of its own thread, each head judged by hsrv_line.c, one answer each then close. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common.h"
#include "hsrv.h"

#define HSRV_HEAD_US  2000000   /* the whole head within this, else 408 */
#define HSRV_SEND_US  5000000   /* the whole answer within this, else closed */
#define HSRV_PAUSE_US 100000    /* out of descriptors, no reserve: accept again after this */

/* one client: its head as it arrives, then its answer as it leaves */
struct hsrv_req {
	struct ev ev;
	struct timer tm;
	struct hsrv *s;
	uint64_t born_us;
	int slot;
	int reserve;             /* took the reserve descriptor */
	int head_only;           /* a HEAD: the answer's head alone */
	char head[256];          /* the answer's head */
	struct iovec iov[2];     /* what is left to send: head, body */
	char *owned;             /* the body, when it is ours to free */
	size_t n;
	char req[HSRV_HEAD_MAX];
};

/* ---------- the clients ---------- */

static void hr_close(struct hsrv_req *c)
{
	struct hsrv *s = c->s;

	loop_drop(&s->loop, &c->ev);
	loop_cancel(&s->loop, &c->tm);
	close(c->ev.fd);
	if (c->reserve)
		nofd_restore(&s->reserve);
	s->conns[c->slot] = s->conns[--s->nconns];
	s->conns[c->slot]->slot = c->slot;
	free(c->owned);
	free(c);
}

/* sends what is left: 1 when all of it went, 0 when the socket is full, -1 on an error */
static int hr_send(struct hsrv_req *c)
{
	while (c->iov[0].iov_len + c->iov[1].iov_len) {
		struct msghdr m = { .msg_iov = c->iov, .msg_iovlen = 2 };
		ssize_t w = sendmsg(c->ev.fd, &m, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno == EAGAIN ? 0 : -1;
		for (int i = 0; i < 2; i++) {
			size_t k = (size_t)w < c->iov[i].iov_len ? (size_t)w : c->iov[i].iov_len;

			c->iov[i].iov_base = (char *)c->iov[i].iov_base + k;
			c->iov[i].iov_len -= k;
			w -= (ssize_t)k;
		}
	}
	return 1;
}

static void hr_flush(struct hsrv_req *c)
{
	if (hr_send(c))
		hr_close(c);
	else
		loop_modify(&c->s->loop, &c->ev, EPOLLOUT);
}

void hsrv_reply(struct hsrv_req *c, const char *status, const char *type, const char *body, size_t len,
		char *owned, const char *extra)
{
	int n = snprintf(c->head, sizeof(c->head),
			 "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "Cache-Control: no-store\r\n%sConnection: close\r\n\r\n", status, type, len, extra);

	c->owned = owned;
	c->iov[0] = (struct iovec){ c->head, (size_t)n };
	c->iov[1] = (struct iovec){ (void *)body, c->head_only ? 0 : len };
	loop_arm(&c->s->loop, &c->tm, c->s->loop.now_us + HSRV_SEND_US);
	hr_flush(c);
}

void hsrv_text(struct hsrv_req *c, const char *status, const char *text, const char *extra)
{
	hsrv_reply(c, status, "text/plain", text, strlen(text), NULL, extra);
}

/* the status line of a refusal's code */
static const char *status_of(int code)
{
	switch (code) {
	case 405: return "405 Method Not Allowed";
	case 408: return "408 Request Timeout";
	case 414: return "414 URI Too Long";
	case 431: return "431 Request Header Fields Too Large";
	default: return "400 Bad Request";
	}
}

/* the head read so far: answered, or left to wait for more */
static void hr_head(struct hsrv_req *c)
{
	struct hsrv_line l;

	hsrv_parse(c->req, c->n, &l);
	c->head_only = l.head;
	if (l.status == 200)
		c->s->serve(c, l.path, l.query);
	else if (l.status)
		hsrv_text(c, status_of(l.status), l.why, l.status == 405 ? "Allow: GET, HEAD\r\n" : "");
}

static void hr_io(struct loop *l, struct ev *e, uint32_t events)
{
	struct hsrv_req *c = container_of(e, struct hsrv_req, ev);
	ssize_t r;

	(void)l;
	if (c->iov[0].iov_base) {
		if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			hr_flush(c);
		return;
	}
	r = recv(c->ev.fd, c->req + c->n, HSRV_HEAD_MAX - 1 - c->n, 0);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0) {
		hr_close(c);
		return;
	}
	c->n += (size_t)r;
	c->req[c->n] = 0;
	hr_head(c);
}

/* the head's deadline (408), or the answer's (closed) */
static void hr_expire(struct loop *l, struct timer *t)
{
	struct hsrv_req *c = container_of(t, struct hsrv_req, tm);

	(void)l;
	if (c->iov[0].iov_base)
		hr_close(c);
	else
		hsrv_text(c, status_of(408), "request head not received within 2 s\n", "");
}

/* the oldest client makes room for a new one, the one still sending its head first */
static void hr_evict(struct hsrv *s)
{
	struct hsrv_req *old = NULL;

	for (int i = 0; i < s->nconns; i++) {
		struct hsrv_req *c = s->conns[i];

		if (!old || (!c->iov[0].iov_base && old->iov[0].iov_base) ||
		    (!c->iov[0].iov_base == !old->iov[0].iov_base && c->born_us < old->born_us))
			old = c;
	}
	hr_close(old);
}

static void hr_new(struct hsrv *s, int fd, int took_reserve)
{
	struct hsrv_req *c = calloc(1, sizeof(*c));

	if (!c) {
		close(fd);
		if (took_reserve)
			nofd_restore(&s->reserve);
		return;
	}
	if (s->nconns == HSRV_MAX)
		hr_evict(s);
	c->ev = (struct ev){ fd, hr_io };
	c->tm.cb = hr_expire;
	c->s = s;
	c->born_us = s->loop.now_us;
	c->reserve = took_reserve;
	c->slot = s->nconns;
	s->conns[s->nconns++] = c;
	loop_arm(&s->loop, &c->tm, s->loop.now_us + HSRV_HEAD_US);
	if (loop_watch(&s->loop, &c->ev, EPOLLIN) < 0)
		hr_close(c);
}

/* ---------- the listener and the thread ---------- */

static void resume_accept(struct loop *l, struct timer *t)
{
	struct hsrv *s = container_of(t, struct hsrv, resume);

	loop_modify(l, &s->lev, EPOLLIN);
}

static void accept_cb(struct loop *l, struct ev *e, uint32_t events)
{
	struct hsrv *s = container_of(e, struct hsrv, lev);

	(void)events;
	for (int i = 0; i < HSRV_MAX; i++) {
		int fd = accept4(e->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), took = 0;

		/* WHY the reserve: out of descriptors is when the figures are
		 * wanted most */
		if (fd < 0 && nofd_out(errno) && s->reserve.fd >= 0) {
			fd = nofd_accept(&s->reserve, e->fd, SOCK_NONBLOCK);
			took = fd >= 0;
			if (fd < 0)
				nofd_restore(&s->reserve);
		}
		if (fd >= 0) {
			hr_new(s, fd, took);
			continue;
		}
		if (nofd_out(errno)) {
			/* WHY: no reserve either: the pending client would wake us at once */
			loop_modify(l, &s->lev, 0);
			loop_arm(l, &s->resume, l->now_us + HSRV_PAUSE_US);
		}
		return;
	}
}

static void stop_cb(struct loop *l, struct ev *e, uint32_t events)
{
	struct hsrv *s = container_of(e, struct hsrv, stop_ev);

	(void)l, (void)events;
	s->running = 0;
}

static void *hsrv_main(void *arg)
{
	struct hsrv *s = arg;

	while (s->running)
		loop_turn(&s->loop, 1000000);
	while (s->nconns)
		hr_close(s->conns[0]);
	return NULL;
}

int hsrv_init(struct hsrv *s, int lfd, hsrv_serve_fn serve)
{
	*s = (struct hsrv){ .serve = serve, .lfd = lfd, .stop_pipe = { -1, -1 }, .reserve = { -1, 0 } };
	s->lev = (struct ev){ lfd, accept_cb };
	s->resume.cb = resume_accept;
	if (loop_init(&s->loop) < 0) {
		close(lfd);
		s->lfd = -1;
		return -1;
	}
	if (pipe2(s->stop_pipe, O_CLOEXEC) < 0 || nofd_init(&s->reserve) < 0)
		return hsrv_free(s), -1;
	s->stop_ev = (struct ev){ s->stop_pipe[0], stop_cb };
	if (loop_watch(&s->loop, &s->lev, EPOLLIN) < 0 || loop_watch(&s->loop, &s->stop_ev, EPOLLIN) < 0)
		return hsrv_free(s), -1;
	loop_clock(&s->loop);
	return 0;
}

int hsrv_run(struct hsrv *s, const char *name)
{
	s->running = 1;
	if (pthread_create(&s->th, NULL, hsrv_main, s))
		return s->running = 0, -1;
	s->started = 1;
	pthread_setname_np(s->th, name); /* WHY: bench/stats finds its CPU time by name */
	return 0;
}

void hsrv_free(struct hsrv *s)
{
	if (s->started && write(s->stop_pipe[1], "x", 1) == 1)
		pthread_join(s->th, NULL);
	s->started = 0;
	while (s->nconns)
		hr_close(s->conns[0]);
	loop_free(&s->loop);
	for (int i = 0; i < 2; i++)
		if (s->stop_pipe[i] >= 0)
			close(s->stop_pipe[i]);
	s->stop_pipe[0] = s->stop_pipe[1] = -1;
	nofd_free(&s->reserve);
	if (s->lfd >= 0)
		close(s->lfd);
	s->lfd = -1;
}

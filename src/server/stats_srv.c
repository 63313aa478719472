/* The stats listener (--stats): a thread of its own, one short HTTP/1.1 exchange at a time, never on the test ports. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "config.h"
#include "listen.h"
#include "log.h"
#include "nofd.h"
#include "stats_out.h"
#include "stats_srv.h"

static int lfd = -1;
static int stop_pipe[2] = { -1, -1 };
static struct nofd reserve = { -1, 0 }; /* out of descriptors, a scrape is still answered */
static pthread_t th;

static void send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

static void reply(int fd, const char *status, const char *type, const char *body, size_t len, int head)
{
	char h[256];
	int n = snprintf(h, sizeof(h), "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "Cache-Control: no-store\r\nConnection: close\r\n\r\n", status, type, len);

	send_all(fd, h, (size_t)n);
	if (!head)
		send_all(fd, body, len);
}

/* the document at <path> */
static void serve(int fd, const char *path, int head)
{
	struct sbuf b = { malloc(16384), 0, 16384, 0 };
	const char *type = "text/plain; version=0.0.4; charset=utf-8";

	b.failed = !b.p;
	if (!strcmp(path, "/metrics"))
		stats_metrics(&b);
	else if (!strcmp(path, "/stats.json"))
		stats_json(&b), type = "application/json";
	else if (!strcmp(path, "/") && stats_page()) {
		free(b.p);
		reply(fd, "200 OK", "text/html; charset=utf-8", stats_page(), strlen(stats_page()), head);
		return;
	} else {
		free(b.p);
		reply(fd, "404 Not Found", "text/plain", "not found: /metrics, /stats.json or /\n", 39, head);
		return;
	}
	if (b.failed)
		reply(fd, "500 Internal Server Error", "text/plain", "out of memory\n", 14, head);
	else
		reply(fd, "200 OK", type, b.p, b.len, head);
	free(b.p);
}

/* one exchange: the request head read whole (2 s at most), then the answer */
static void exchange(int fd)
{
	char req[8192], path[256];
	size_t n = 0;
	struct timeval tv = { 2, 0 };
	int head;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (n < sizeof(req) - 1) {
		ssize_t r = recv(fd, req + n, sizeof(req) - 1 - n, 0);

		if (r <= 0)
			return;
		n += (size_t)r;
		req[n] = 0;
		if (strstr(req, "\r\n\r\n"))
			break;
	}
	if (!strstr(req, "\r\n\r\n")) {
		reply(fd, "431 Request Header Fields Too Large", "text/plain", "request head too large\n", 23, 0);
		return;
	}
	head = !strncmp(req, "HEAD ", 5);
	if ((strncmp(req, "GET ", 4) && !head) || sscanf(req + 4 + head, "%255s", path) != 1) {
		reply(fd, "405 Method Not Allowed", "text/plain", "GET or HEAD only\n", 17, 0);
		return;
	}
	path[strcspn(path, "?")] = 0;
	serve(fd, path, head);
}

static void *stats_main(void *arg)
{
	struct pollfd p[2] = { { lfd, POLLIN, 0 }, { stop_pipe[0], POLLIN, 0 } };

	(void)arg;
	for (;;) {
		int fd;

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
		if (!(p[0].revents & POLLIN))
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		/* WHY the reserve: out of descriptors is when the figures are
		 * wanted most, and the pending scrape would spin poll() */
		if (fd < 0 && nofd_out(errno))
			fd = nofd_accept(&reserve, lfd, 0);
		if (fd >= 0) {
			exchange(fd);
			close(fd);
		} else if (nofd_out(errno)) {
			poll(NULL, 0, 100); /* WHY: no reserve either: wait, do not spin */
		}
		nofd_restore(&reserve);
	}
	return NULL;
}

int stats_listen(void)
{
	char name[160];

	if (!cfg.stats.clear_port)
		return 0;
	listen_name(&cfg.stats, cfg.stats.clear_port, name, sizeof(name));
	if (listen_free(&cfg.stats, cfg.stats.clear_port, SOCK_STREAM) < 0 ||
	    (lfd = listen_tcp(&cfg.stats, cfg.stats.clear_port)) < 0) {
		log_err("--stats %s: %s", name, strerror(errno));
		return -1;
	}
	log_info("stats on http://%s/ (/metrics, /stats.json)", name);
	return 0;
}

int stats_start(void)
{
	if (lfd < 0)
		return 0;
	if (pipe2(stop_pipe, O_CLOEXEC) < 0 || nofd_init(&reserve) < 0 || pthread_create(&th, NULL, stats_main, NULL)) {
		log_err("--stats: cannot start its thread");
		return -1;
	}
	pthread_setname_np(th, "hxterm-stats"); /* WHY: bench/stats finds its CPU time by name */
	return 0;
}

void stats_stop(void)
{
	if (lfd < 0)
		return;
	if (write(stop_pipe[1], "x", 1) == 1)
		pthread_join(th, NULL);
	close(lfd);
	close(stop_pipe[0]);
	close(stop_pipe[1]);
	nofd_free(&reserve);
	lfd = -1;
}

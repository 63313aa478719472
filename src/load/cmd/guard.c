/* hxload ab's and find's saturation guard: hxterm's /stats.json read with a small blocking HTTP/1.1 GET, each worker's busy time over the run's wall time. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "json.h"
#include "lc_guard.h"

#define GUARD_MAX_BODY (1 << 20)

int lc_guard_url(const char *url)
{
	return !strncmp(url, "http://", 7) && url[7] && url[7] != '/' ? 0 : -1;
}

int lc_guard_pct(const char *arg, double *share)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= 1 && v <= 100))
		return -1;
	*share = v / 100;
	return 0;
}

/* a connected socket to http://HOST:PORT/..., its path in <path>; -1 with why */
static int guard_connect(const char *url, const char **path, char *err, size_t len)
{
	char host[256], port[16] = "80";
	const char *h = url + 7, *colon;
	size_t hl;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct timeval tv = { 3, 0 };
	int fd = -1, rc;

	if (strncmp(url, "http://", 7))
		return snprintf(err, len, "%s: an http:// URL (hxterm's --stats address)", url), -1;
	*path = strchr(h, '/') ? strchr(h, '/') : "";
	hl = **path ? (size_t)(*path - h) : strlen(h);
	colon = memchr(h, ':', hl);
	snprintf(host, sizeof(host), "%.*s", (int)(colon ? (size_t)(colon - h) : hl), h);
	if (colon)
		snprintf(port, sizeof(port), "%.*s", (int)(hl - (size_t)(colon - h) - 1), colon + 1);
	if ((rc = getaddrinfo(host, port, &hints, &ai)))
		return snprintf(err, len, "%s: %s", url, gai_strerror(rc)), -1;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
			setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
			connect(fd, ai->ai_addr, ai->ai_addrlen) < 0)) {
		snprintf(err, len, "%s: %s", url, strerror(errno));
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

/* the whole answer to GET <path> (until the server closes), NUL-ended, or NULL with why */
static char *guard_get(const char *url, char *err, size_t len)
{
	const char *path;
	char req[600], *buf;
	size_t got = 0;
	ssize_t n;
	int fd = guard_connect(url, &path, err, len);

	if (fd < 0)
		return NULL;
	n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: hxload\r\nConnection: close\r\n\r\n",
		     *path ? path : "/stats.json");
	if (!(buf = malloc(GUARD_MAX_BODY))) {
		snprintf(err, len, "%s: out of memory", url);
	} else if (write(fd, req, (size_t)n) != n) {
		snprintf(err, len, "%s: %s", url, strerror(errno));
		free(buf), buf = NULL;
	} else {
		while (got < GUARD_MAX_BODY - 1 && (n = read(fd, buf + got, GUARD_MAX_BODY - 1 - got)) > 0)
			got += (size_t)n;
		buf[got] = 0;
		if (n < 0)
			snprintf(err, len, "%s: %s", url, strerror(errno)), free(buf), buf = NULL;
	}
	close(fd);
	return buf;
}

int lc_guard_read(const char *url, struct lc_guard_snap *s, char *err, size_t len)
{
	char *text = guard_get(url, err, len), *body = text ? strstr(text, "\r\n\r\n") : NULL;
	struct json *j = NULL;
	const struct json *w;
	const char *why = NULL;

	s->n = 0;
	if (!text)
		return -1;
	if (strncmp(text, "HTTP/1.1 200", 12) || !body)
		snprintf(err, len, "%s: not a 200 answer (%.40s)", url, text);
	else if (!(j = json_parse(body + 4, &why)) || !(w = json_get(j, "per_thread")) || w->type != JSON_ARR ||
		 !w->n || !json_get(&w->kid[0], "busy_s"))
		snprintf(err, len, "%s: no per_thread busy_s (an hxterm with the saturation guard's rows?)%s%s", url,
			 why ? ": " : "", why ? why : "");
	else {
		s->uptime_s = json_num(j, "uptime_s", 0);
		for (size_t i = 0; i < w->n && i < LC_GUARD_WORKERS; i++) {
			s->cpu_s[s->n] = json_num(&w->kid[i], "cpu_s", 0);
			s->busy_s[s->n++] = json_num(&w->kid[i], "busy_s", 0);
		}
	}
	json_free(j);
	free(text);
	return s->n ? 0 : -1;
}

void lc_guard_judge(const struct lc_guard_snap *a, const struct lc_guard_snap *b, double limit,
		    struct lc_guard_run *r)
{
	double wall = b->uptime_s - a->uptime_s;

	*r = (struct lc_guard_run){ .share = -1, .worker = -1 };
	if (!a->n || a->n != b->n || wall <= 0)
		return;
	/* WHY the larger: out of the wait counts a worker waiting for a core
	 * it shares; its CPU time counts the kernel's work on its sends that
	 * --io-uring does inside the wait */
	for (int i = 0; i < a->n; i++) {
		double busy = b->busy_s[i] - a->busy_s[i], cpu = b->cpu_s[i] - a->cpu_s[i];
		double s = (busy > cpu ? busy : cpu) / wall;

		if (s > r->share)
			r->share = s > 1 ? 1 : s, r->worker = i;
	}
	r->saturated = r->share > limit;
}

int lc_guard_why(const struct lc_guard_run *r, double limit, char *buf, size_t len)
{
	return snprintf(buf, len, "thread %d busy %.0f %% > %.0f %%", r->worker,
			100 * r->share, 100 * limit);
}

void lc_guard_before(struct lc_guard *g, const char *url)
{
	g->ok = url && lc_guard_read(url, &g->a, g->why, sizeof(g->why)) == 0;
}

void lc_guard_after(struct lc_guard *g, const char *url, double limit, struct lc_guard_run *r, const char *who,
		    const char *label)
{
	*r = (struct lc_guard_run){ .share = -1, .worker = -1 };
	if (!url)
		return;
	if (!g->ok || lc_guard_read(url, &g->b, g->why, sizeof(g->why)) < 0)
		fprintf(stderr, "hxload %s: %s: --backend-stats not read, the run not judged: %s\n", who, label, g->why);
	else
		lc_guard_judge(&g->a, &g->b, limit, r);
}

/* hxload --metrics ADDR: the running client's figures in Prometheus text, served by a thread of its own, so one dashboard shows hxterm, the proxy and the load together. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hist.h"
#include "lc_cmd.h"
#include "lc_opts.h"
#include "lc_stats.h"
#include "listen.h"

/* what the intervals told so far (the main thread adds, the server reads) */
static struct {
	pthread_mutex_t mu;
	uint64_t reqs, errors, bytes, intervals;
	struct hist lat;
} live = { .mu = PTHREAD_MUTEX_INITIALIZER };

static int lfd = -1;
static pthread_t th;
static atomic_int stop;

void lc_metrics_add(const struct lc_ival *v)
{
	if (lfd < 0)
		return;
	pthread_mutex_lock(&live.mu);
	live.reqs += v->reqs;
	live.errors += v->errors;
	live.bytes += v->bytes;
	live.intervals++;
	hist_merge(&live.lat, &v->h[IV_LAT]);
	pthread_mutex_unlock(&live.mu);
}

/* the page: counters, and the latency as a summary (quantiles of the run so far) */
static size_t page(char *b, size_t len)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	size_t n;

	pthread_mutex_lock(&live.mu);
	n = (size_t)snprintf(b, len,
		"# HELP hxload_requests_total Requests answered in the measured window so far.\n"
		"# TYPE hxload_requests_total counter\nhxload_requests_total %llu\n"
		"# HELP hxload_errors_total Requests lost and connections failed, every kind, so far.\n"
		"# TYPE hxload_errors_total counter\nhxload_errors_total %llu\n"
		"# HELP hxload_response_body_bytes_total Body bytes of the answered requests.\n"
		"# TYPE hxload_response_body_bytes_total counter\nhxload_response_body_bytes_total %llu\n"
		"# HELP hxload_intervals_total Intervals (one a second) the figures above add up.\n"
		"# TYPE hxload_intervals_total counter\nhxload_intervals_total %llu\n"
		"# HELP hxload_target_requests_per_second The open loop's target rate, 0 closed.\n"
		"# TYPE hxload_target_requests_per_second gauge\nhxload_target_requests_per_second %g\n"
		"# HELP hxload_latency_seconds Latency from the intended send (open loop) or the send.\n"
		"# TYPE hxload_latency_seconds summary\n",
		(unsigned long long)live.reqs, (unsigned long long)live.errors, (unsigned long long)live.bytes,
		(unsigned long long)live.intervals, lc_rate_mean(lc_o) / lc_o->shards);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]) && n < len; i++)
		n += (size_t)snprintf(b + n, len - n, "hxload_latency_seconds{quantile=\"%g\"} %.6f\n", qs[i],
				      live.lat.n ? hist_quantile(&live.lat, qs[i]) / 1e6 : 0);
	if (n < len)
		n += (size_t)snprintf(b + n, len - n, "hxload_latency_seconds_sum %.6f\nhxload_latency_seconds_count %llu\n",
				      live.lat.sum / 1e6, (unsigned long long)live.lat.n);
	pthread_mutex_unlock(&live.mu);
	return n < len ? n : len - 1;
}

/* one scrape: the request read (any path), the page written, closed */
static void serve(int fd)
{
	char req[2048], head[256], body[4096];
	struct pollfd p = { fd, POLLIN, 0 };
	size_t n = page(body, sizeof(body)), h;

	/* WHY a bounded wait: a client that says nothing holds no thread */
	if (poll(&p, 1, 1000) == 1 && recv(fd, req, sizeof(req), 0) > 0) {
		h = (size_t)snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n"
				     "Content-Length: %zu\r\nConnection: close\r\n\r\n", n);
		if (send(fd, head, h, MSG_NOSIGNAL) == (ssize_t)h)
			send(fd, body, n, MSG_NOSIGNAL);
	}
	close(fd);
}

static void *metrics_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		struct pollfd p = { lfd, POLLIN, 0 };
		int fd;

		if (poll(&p, 1, 200) == 1 && (fd = accept(lfd, NULL, NULL)) >= 0)
			serve(fd);
	}
	return NULL;
}

void lc_metrics_start(void)
{
	struct listen_addr la;
	const char *why;

	if (!lc_o->metrics)
		return;
	if (listen_parse(lc_o->metrics, &la, 1, &why) != 1 || !la.clear_port || la.tls_port)
		lc_die("--metrics '%s': expected HOST:PORT (127.0.0.1:9101)", lc_o->metrics);
	if (listen_free(&la, la.clear_port, SOCK_STREAM) < 0 || (lfd = listen_tcp(&la, la.clear_port)) < 0)
		lc_die("--metrics: cannot listen there: %s", strerror(errno));
	if (pthread_create(&th, NULL, metrics_main, NULL))
		lc_die("--metrics: %s", "cannot start its thread");
}

void lc_metrics_stop(void)
{
	if (lfd < 0)
		return;
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	close(lfd);
	lfd = -1;
}

/* hxload --metrics ADDR: the running client's figures in Prometheus text, served by net/hsrv on a thread of its own (many clients at once, a deadline for the head), so one dashboard shows hxterm, the proxy and the load together. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "hist.h"
#include "hsrv.h"
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

#define PAGE_MAX 4096

static int lfd = -1;
static struct hsrv srv;

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

/* one scrape, any path: the page as it is now */
static void serve(struct hsrv_req *r, const char *path, const char *query)
{
	char *b = malloc(PAGE_MAX);

	(void)path, (void)query;
	if (b)
		hsrv_reply(r, "200 OK", "text/plain; version=0.0.4; charset=utf-8", b, page(b, PAGE_MAX), b, "");
	else
		hsrv_text(r, "500 Internal Server Error", "out of memory\n", "");
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
	/* WHY a thread and loop of its own: a scrape, or twenty idle clients,
	 * never take a turn of the load's threads */
	if (hsrv_init(&srv, lfd, serve) < 0 || hsrv_run(&srv, "hxload-metrics") < 0)
		lc_die("--metrics: %s", "cannot start its thread");
}

void lc_metrics_stop(void)
{
	if (lfd < 0)
		return;
	hsrv_free(&srv);
	lfd = -1;
}

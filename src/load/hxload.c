/* hxload: a load generator for h1, h2 and h3 that splits latency into server time and the rest. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "lc.h"
#include "tls.h"

#include <openssl/ssl.h>

static void on_signal(int sig)
{
	(void)sig;
	lc_interrupt();
}

/* the client's TLS context, offering what the URL and --h1/--h2 allow */
static SSL_CTX *client_ctx(void)
{
	static const unsigned char alpn_any[] = "\x02h2\x08http/1.1", alpn_h2[] = "\x02h2",
				   alpn_h1[] = "\x08http/1.1";

	switch (lc_target.proto) {
	case LC_H2: return tls_client_ctx(alpn_h2, sizeof(alpn_h2) - 1);
	case LC_H1: return tls_client_ctx(alpn_h1, sizeof(alpn_h1) - 1);
	default: return tls_client_ctx(alpn_any, sizeof(alpn_any) - 1);
	}
}

int main(int argc, char **argv)
{
	struct lc_thread *ts;
	static struct lc_total T;
	uint64_t start;

	lc_cli(argc, argv);
	if (lc_target.tls && !(lc_tls = client_ctx()))
		lc_die("%s", "cannot create the TLS context");
	/* WHY before the threads: the libraries' globals are made once */
	if (lc_protos_init() < 0)
		lc_die("%s", "cannot initialise the HTTP/2 or QUIC library");
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ts = calloc((size_t)lc_opts.threads, sizeof(*ts));
	if (!ts)
		lc_die("%s", "out of memory");
	start = (uint64_t)clock_ns() / 1000;
	for (int i = 0; i < lc_opts.threads; i++)
		lc_thread_init(&ts[i], i, start);
	for (int i = 0; i < lc_opts.threads; i++)
		pthread_create(&ts[i].th, NULL, lc_thread_main, &ts[i]);
	if (!lc_opts.quiet && !lc_opts.json && isatty(2))
		lc_progress(ts, start);
	for (int i = 0; i < lc_opts.threads; i++) {
		pthread_join(ts[i].th, NULL);
		lc_total_add(&T, &ts[i]);
		lc_thread_free(&ts[i]);
	}
	free(ts);
	free(lc_target.req);
	SSL_CTX_free(lc_tls);
	lc_protos_free();
	if (!lc_opts.quiet && !lc_opts.json && isatty(2))
		fprintf(stderr, "\r%60s\r", "");
	if (lc_fatal()) {
		fprintf(stderr, "%s\n", lc_fatal());
		return 1;
	}
	T.secs = ((uint64_t)clock_ns() / 1000 - start - lc_opts.warmup_us) / 1e6;
	if (T.secs <= 0)
		T.secs = 1e-6;
	if (lc_opts.json)
		lc_report_json(&T);
	else
		lc_report_text(&T);
	return T.reqs ? 0 : 1;
}

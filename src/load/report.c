/* hxload's report: the merged totals of every thread as a text table or one JSON object. */
#include <stdio.h>

#include "common.h"
#include "lc.h"

const char *const lc_err_names[E_MAX] = { "connect", "tls", "timeout", "reset", "protocol", "body" };

void lc_total_add(struct lc_total *T, const struct lc_thread *t)
{
	hist_merge(&T->lat, &t->lat);
	hist_merge(&T->srv, &t->srv);
	hist_merge(&T->oth, &t->oth);
	for (int s = 0; s < 600; s++)
		T->status[s] += t->status[s];
	for (int e = 0; e < E_MAX; e++)
		T->errors[e] += t->errors[e];
	T->bytes += t->bytes;
	T->reqs += t->reqs;
}

static void pct_json(const char *name, const struct hist *h)
{
	printf(", \"%s\": {\"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f, \"p999\": %.3f, \"p9999\": %.3f, "
	       "\"max\": %.3f}", name, hist_quantile(h, 0.5) / 1e3, hist_quantile(h, 0.9) / 1e3,
	       hist_quantile(h, 0.99) / 1e3, hist_quantile(h, 0.999) / 1e3,
	       hist_quantile(h, 0.9999) / 1e3, h->max / 1e3);
}

void lc_report_json(const struct lc_total *T)
{
	int first = 1;

	printf("{\"requests\": %llu, \"seconds\": %.3f, \"requests_per_second\": %.1f, "
	       "\"bytes_per_second\": %.1f, \"errors\": {", (unsigned long long)T->reqs, T->secs,
	       T->reqs / T->secs, T->bytes / T->secs);
	for (int i = 0; i < E_MAX; i++)
		printf("%s\"%s\": %llu", i ? ", " : "", lc_err_names[i], (unsigned long long)T->errors[i]);
	printf("}, \"status\": {");
	for (int s = 0; s < 600; s++)
		if (T->status[s]) {
			printf("%s\"%d\": %llu", first ? "" : ", ", s, (unsigned long long)T->status[s]);
			first = 0;
		}
	printf("}");
	pct_json("latency_ms", &T->lat);
	if (T->srv.n) {
		pct_json("server_ms", &T->srv);
		pct_json("other_ms", &T->oth);
	}
	printf("}\n");
}

static void row(const char *name, const struct hist *h)
{
	static const double q[] = { 0.5, 0.9, 0.99, 0.999, 0.9999 };

	printf("%-9s", name);
	for (size_t i = 0; i < ARRAY_SIZE(q); i++)
		printf(" %9.3f", hist_quantile(h, q[i]) / 1e3);
	printf(" %9.3f\n", h->max / 1e3);
}

void lc_report_text(const struct lc_total *T)
{
	uint64_t errs = 0;

	for (int i = 0; i < E_MAX; i++)
		errs += T->errors[i];
	printf("requests  %llu in %.2f s: %.1f req/s, %.2f MB/s, %llu errors\n",
	       (unsigned long long)T->reqs, T->secs, T->reqs / T->secs, T->bytes / T->secs / 1e6,
	       (unsigned long long)errs);
	if (errs) {
		printf("errors   ");
		for (int i = 0; i < E_MAX; i++)
			if (T->errors[i])
				printf(" %s %llu", lc_err_names[i], (unsigned long long)T->errors[i]);
		printf("\n");
	}
	printf("status   ");
	for (int s = 0; s < 600; s++)
		if (T->status[s])
			printf(" %d: %llu", s, (unsigned long long)T->status[s]);
	printf("\n%-9s %9s %9s %9s %9s %9s %9s   (ms)\n", "", "p50", "p90", "p99", "p99.9", "p99.99", "max");
	row("latency", &T->lat);
	if (T->srv.n) {
		row("server", &T->srv);
		row("other", &T->oth);
	}
}

/* hxload find's judgement of one step from the figures its run recorded: held, missed by the target, or the client's limit (its CPU, its loop, its connections), with the evidence. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "lc_find.h"

const char *lc_find_word(enum lc_verdict v)
{
	return v == V_HELD ? "held" : v == V_CLIENT ? "client's limit" : v == V_CONNS ? "connections' limit" :
		v == V_VOID ? "backend saturated: void" : "missed";
}

static double pct(uint64_t a, uint64_t of)
{
	return of ? 100.0 * (double)a / (double)of : 0;
}

static double p99(const struct hist *h)
{
	return hist_quantile(h, 0.99) / 1e3;
}

/* the share of the queue time that passed before hxload's loop saw the
 * send times due: the rest waited for a free connection */
static double loop_share(const struct lc_stats *T)
{
	double q = (double)T->h[H_QUEUE].sum;

	return q > 0 ? MIN(1.0, (double)T->loop_late_us / q) : T->loop_late_us > 0;
}

/* how late the loop saw a send due, on average, in ms */
static double loop_mean(const struct lc_stats *T)
{
	return T->scheduled ? (double)T->loop_late_us / (double)T->scheduled / 1e3 : 0;
}

/* WHY the mean too: a starved client reads its answers late as well, so
 * its connections stay busy and most of the queue looks like theirs; its
 * loop seeing sends due a millisecond late on average is its own */
static int loop_late(const struct lc_stats *T)
{
	return loop_share(T) >= LC_FIND_LOOP_SHARE || loop_mean(T) * 1e3 >= LC_LATE_US;
}

/* the schedule was not kept: the late sends and the unsent, and the queue */
static int behind(const struct lc_stats *T, char *why, size_t len)
{
	uint64_t unsent = T->scheduled > T->sent ? T->scheduled - T->sent : 0;

	snprintf(why, len, "%.1f %% of the sends over 1 ms late, %.1f %% never sent; queue p99 %.3f ms of latency p99 "
		 "%.3f ms; hxload's loop saw the sends due %.3f ms late on average (%.0f %% of the queue)",
		 pct(T->late, T->sent), pct(unsent, T->scheduled), p99(&T->h[H_QUEUE]), p99(&T->h[H_LAT]),
		 loop_mean(T), 100 * loop_share(T));
	return pct(T->late, T->sent) > 100 * LC_LATE_WARN || pct(unsent, T->scheduled) > 100 * LC_UNSENT_MAX;
}

/* WHY the queue's p99.9 against the first byte's p99: a client that stalls
 * sends late and reads late by about as long; answers far slower than its
 * longest stalls were slow at the target, whatever its loop did */
static int client_explains(const struct lc_stats *T)
{
	return hist_quantile(&T->h[H_QUEUE], 0.999) >= 0.5 * hist_quantile(&T->h[H_TTFB], 0.99);
}

static enum lc_verdict client_cpu(const struct lc_find_fig *f, char *why, size_t len)
{
	snprintf(why, len, "hxload used %.0f %% of its CPU (over --client-cpu %.0f %%): the latencies were partly its "
		 "own; more -t, or another load machine", f->client_cpu * 100, f->cpu_max * 100);
	return V_CLIENT;
}

static enum lc_verdict client_loop(const struct lc_find_fig *f, const char *ev, char *why, size_t len)
{
	snprintf(why, len, "%s (hxload used %.0f %% of its CPU): hxload's loop was late, its core busy or shared; "
		 "more -t, or a core of its own", ev, f->client_cpu * 100);
	return V_CLIENT;
}

static enum lc_verdict conns(const struct lc_find_fig *f, const char *ev, char *why, size_t len)
{
	const struct lc_stats *T = f->T;
	double service = (hist_mean(&T->h[H_LAT]) - hist_mean(&T->h[H_QUEUE])) / 1e3;
	double carry = service > 0 ? f->conns * f->depth / (service / 1e3) : 0;

	snprintf(why, len, "%s, waiting for a free connection: -c %d x -m %d carry about %.0f req/s at the %.3f ms a "
		 "request took from its send; more -c (or -m) would tell the target's limit", ev, f->conns, f->depth,
		 carry, service);
	return V_CONNS;
}

/* the target missed: what from the send missed, and its parts */
static enum lc_verdict missed(const struct lc_stats *T, const char *what, const char *miss, char *why, size_t len)
{
	if (T->h[H_SRV].n)
		snprintf(why, len, "%s%s (server p99 %.3f ms, other p99 %.3f ms, the client's queue p99 %.3f ms)",
			 miss, what, p99(&T->h[H_SRV]), p99(&T->h[H_OTH]), p99(&T->h[H_QUEUE]));
	else
		snprintf(why, len, "%s%s (no X-rsp: the server's part unknown; the client's queue p99 %.3f ms)", miss,
			 what, p99(&T->h[H_QUEUE]));
	return V_MISSED;
}

/* WHY the time to the first byte from the actual send (server + other):
 * the client's queue is not the target's. WHY late sends only when the
 * SLO missed: a target that held with the sends bunched held that rate;
 * a rate not sent (unsent) was not asked of it at all */
enum lc_verdict lc_find_judge(const char *slo, const struct lc_find_fig *f, char *why, size_t len)
{
	const struct lc_stats *T = f->T;
	uint64_t unsent = T->scheduled > T->sent ? T->scheduled - T->sent : 0;
	char ev[300], ttfb[160], all[160];
	int late = behind(T, ev, sizeof(ev)), loop = loop_late(T);
	int target = lc_slo_miss_on(slo, T, f->m, &T->h[H_TTFB], ttfb, sizeof(ttfb));
	int whole = lc_slo_miss(slo, T, f->m, all, sizeof(all));

	why[0] = 0;
	if (f->client_cpu > f->cpu_max)
		return client_cpu(f, why, len);
	if (pct(unsent, T->scheduled) > 100 * LC_UNSENT_MAX && loop)
		return client_loop(f, ev, why, len);
	if (!T->reqs)
		return snprintf(why, len, "nothing answered (%llu errors)", (unsigned long long)lc_stats_errors(T)),
		       V_MISSED;
	if (!whole && pct(unsent, T->scheduled) <= 100 * LC_UNSENT_MAX)
		return V_HELD;
	if (target && !(late && loop && client_explains(T)))
		return missed(T, " from the send", ttfb, why, len);
	if (target)
		return client_loop(f, ev, why, len);
	if (late || hist_mean(&T->h[H_QUEUE]) > hist_mean(&T->h[H_BODY])) {
		if (whole)
			snprintf(ev + strlen(ev), sizeof(ev) - strlen(ev), "; %s with the queue", all);
		return loop ? client_loop(f, ev, why, len) : conns(f, ev, why, len);
	}
	return missed(T, " with the body", all, why, len);
}

/* The live page's history: every worker's counters sampled each second by the stats thread, the last 10 minutes kept (about 0.4 MB), served as /history.json with per-second rates and quantiles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"
#include "stats_out.h"

#define SH_KEEP 600 /* samples, one a second: 10 minutes */

static struct st_snap ring[SH_KEEP + 1]; /* WHY one more: a rate needs the sample before the first */
static unsigned head, count;             /* the next slot, how many are kept */

void stats_hist_tick(void)
{
	stats_snapshot(&ring[head]);
	head = (head + 1) % (SH_KEEP + 1);
	if (count < SH_KEEP + 1)
		count++;
}

static const struct st_snap *nth(unsigned i) /* 0: the oldest kept */
{
	return &ring[(head + SH_KEEP + 1 - count + i) % (SH_KEEP + 1)];
}

/* the <q> quantile (ms) of the <a> - <b> bucket counts: interpolated
 * within its bucket, from its lower bound to its upper, as a count there
 * spreads; -1 when none */
static double quantile(const uint64_t *a, const uint64_t *b, double q)
{
	uint64_t n = 0, seen = 0, rank;

	for (int i = 0; i < ST_TIME_B; i++)
		n += a[i] - b[i];
	if (!n)
		return -1;
	rank = (uint64_t)ceil(q * (double)n);
	rank = rank ? rank : 1;
	for (int i = 0; i < ST_TIME_B; i++) {
		uint64_t c = a[i] - b[i];
		double lo = i ? (double)st_time_le_us[i - 1] : 0,
		       hi = i < ST_TIME_B - 1 ? (double)st_time_le_us[i] : lo * 2;

		if (seen + c >= rank)
			return (lo + (hi - lo) * (double)(rank - seen) / (double)c) / 1000.0;
		seen += c;
	}
	return -1;
}

static void put_q(struct sbuf *b, const char *key, const uint64_t *a, const uint64_t *o)
{
	double p50 = quantile(a, o, 0.5), p99 = quantile(a, o, 0.99);

	if (p50 < 0)
		stats_put(b, ", \"%s\": null", key);
	else
		stats_put(b, ", \"%s\": [%.3f, %.3f]", key, p50, p99);
}

void stats_hist_json(struct sbuf *b, double since)
{
	stats_put(b, "{\"every_s\": 1, \"keep\": %d, \"protocols\": [", SH_KEEP);
	for (int p = 0; p < SP_MAX; p++)
		stats_put(b, "%s\"%s\"", p ? ", " : "", st_proto_names[p]);
	stats_put(b, "], \"last_minute\": {");
	if (count > 1) {
		const struct st_snap *s = nth(count - 1), *o = nth(count > 61 ? count - 61 : 0);

		stats_put(b, "\"seconds\": %.1f", s->t - o->t);
		put_q(b, "gen", s->gen, o->gen);
		put_q(b, "late", s->late, o->late);
	}
	stats_put(b, "}, \"samples\": [");
	for (unsigned i = 1, first = 1; i < count; i++) {
		const struct st_snap *s = nth(i), *o = nth(i - 1);
		double dt = s->t - o->t;

		if (s->t <= since || dt <= 0)
			continue;
		stats_put(b, "%s{\"t\": %.3f, \"rps\": [", first ? "" : ", ", s->t);
		for (int p = 0; p < SP_MAX; p++)
			stats_put(b, "%s%.1f", p ? ", " : "", (double)(s->req[p] - o->req[p]) / dt);
		stats_put(b, "], \"active\": [");
		for (int p = 0; p < SP_MAX; p++)
			stats_put(b, "%s%llu", p ? ", " : "", (unsigned long long)s->active[p]);
		stats_put(b, "], \"errors\": %.1f", (double)(s->errors - o->errors) / dt);
		put_q(b, "gen", s->gen, o->gen);
		put_q(b, "late", s->late, o->late);
		stats_put(b, "}");
		first = 0;
	}
	stats_put(b, "]}\n");
}

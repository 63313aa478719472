/* The live page's history: every worker's counters sampled each second by the stats thread, the last 10 minutes kept (about 0.5 MB), served as /history.json with per-second rates and quantiles from the fine histograms. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_out.h"

#define SH_KEEP   600 /* samples, one a second: 10 minutes */
#define SH_MINUTE 61  /* the fine histograms' last minute, for its quantiles */

/* one second: its rates and quantiles (ms; -1: none that second) */
struct sample {
	double t, dt;
	uint64_t req[SP_MAX], active[SP_MAX], errors;
	double gen[2], late[2];      /* p50, p99 */
};

static struct sample ring[SH_KEEP];
static unsigned head, count;         /* the next slot, how many are kept */
static struct st_snap minute[SH_MINUTE], now; /* cumulative, one a second */
static unsigned mhead, mcount;

/* the <q> quantile (ms) of the fine bucket counts <a> - <b>, interpolated
 * within its bucket (under 6.3 % wide); -1 when none */
static double quantile(const uint64_t *a, const uint64_t *b, double q)
{
	uint64_t n = 0, seen = 0, rank;

	for (int i = 0; i < ST_FINE_B; i++)
		n += a[i] - b[i];
	if (!n)
		return -1;
	rank = (uint64_t)ceil(q * (double)n);
	rank = rank ? rank : 1;
	for (unsigned i = 0; i < ST_FINE_B; i++) {
		uint64_t c = a[i] - b[i], w, lo = st_fine_low(i, &w);

		if (seen + c >= rank)
			return ((double)lo + (double)w * ((double)(rank - seen) - 0.5) / (double)c) / 1000.0;
		seen += c;
	}
	return -1;
}

void stats_hist_tick(void)
{
	const struct st_snap *o = mcount ? &minute[(mhead + SH_MINUTE - 1) % SH_MINUTE] : NULL;
	struct sample *s = &ring[head];

	stats_snapshot(&now);
	if (o && now.t > o->t) {
		/* WHY t to the ms: what /history.json prints, so ?since= a
		 * sample's printed t leaves that sample out */
		*s = (struct sample){ .t = floor(now.t * 1000 + 0.5) / 1000, .dt = now.t - o->t,
				      .errors = now.errors - o->errors };
		for (int p = 0; p < SP_MAX; p++) {
			s->req[p] = now.req[p] - o->req[p];
			s->active[p] = now.active[p];
		}
		s->gen[0] = quantile(now.gen, o->gen, 0.5);
		s->gen[1] = quantile(now.gen, o->gen, 0.99);
		s->late[0] = quantile(now.late, o->late, 0.5);
		s->late[1] = quantile(now.late, o->late, 0.99);
		head = (head + 1) % SH_KEEP;
		count += count < SH_KEEP;
	}
	minute[mhead] = now;
	mhead = (mhead + 1) % SH_MINUTE;
	mcount += mcount < SH_MINUTE;
}

static void put_q(struct sbuf *b, const char *key, const double *q)
{
	if (q[0] < 0)
		stats_put(b, ", \"%s\": null", key);
	else
		stats_put(b, ", \"%s\": [%.3f, %.3f]", key, q[0], q[1]);
}

/* the last minute's quantiles, from the oldest cumulative kept to the newest */
static void last_minute(struct sbuf *b)
{
	const struct st_snap *a = &minute[(mhead + SH_MINUTE - 1) % SH_MINUTE],
			     *o = &minute[(mhead + SH_MINUTE - mcount) % SH_MINUTE];
	double g[2] = { quantile(a->gen, o->gen, 0.5), quantile(a->gen, o->gen, 0.99) },
	       l[2] = { quantile(a->late, o->late, 0.5), quantile(a->late, o->late, 0.99) };

	stats_put(b, "\"seconds\": %.1f", a->t - o->t);
	put_q(b, "gen", g);
	put_q(b, "late", l);
}

void stats_hist_json(struct sbuf *b, double since)
{
	stats_put(b, "{\"every_s\": 1, \"keep\": %d, \"protocols\": [", SH_KEEP);
	for (int p = 0; p < SP_MAX; p++)
		stats_put(b, "%s\"%s\"", p ? ", " : "", st_proto_names[p]);
	stats_put(b, "], \"last_minute\": {");
	if (mcount > 1)
		last_minute(b);
	stats_put(b, "}, \"samples\": [");
	for (unsigned i = 0, first = 1; i < count; i++) {
		const struct sample *s = &ring[(head + SH_KEEP - count + i) % SH_KEEP];

		if (s->t <= since)
			continue;
		stats_put(b, "%s{\"t\": %.3f, \"rps\": [", first ? "" : ", ", s->t);
		for (int p = 0; p < SP_MAX; p++)
			stats_put(b, "%s%.1f", p ? ", " : "", (double)s->req[p] / s->dt);
		stats_put(b, "], \"active\": [");
		for (int p = 0; p < SP_MAX; p++)
			stats_put(b, "%s%llu", p ? ", " : "", (unsigned long long)s->active[p]);
		stats_put(b, "], \"errors\": %.1f", (double)s->errors / s->dt);
		put_q(b, "gen", s->gen);
		put_q(b, "late", s->late);
		stats_put(b, "}");
		first = 0;
	}
	stats_put(b, "]}\n");
}

/* hxload find's decisions (find_step.c, find_search.c) on synthetic step figures with known answers: whose limit a step met, and where the search ends. */
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "lc_find.h"
#include "tap.h"

#define SLO "p99<5ms,errors<0.1%"

/* a step's requests, each part in us: the first <late> per cent queued
 * <q_late> (the others 20 us), of which <loop> was the loop's own; the
 * server's time <srv> (the first <slow> per cent <srv_slow>), the rest of
 * the time to the first byte <oth> (<oth_late> for the late ones), the body <body> */
struct synth {
	int n, late, slow;
	uint64_t q_late, srv, srv_slow, oth, oth_late, body;
	double loop;                 /* the share of the queue before the loop saw the sends due */
	int unsent_pct, err;
};

static struct lc_stats T;

static const struct lc_stats *make(const struct synth *s)
{
	uint64_t qsum = 0;

	memset(&T, 0, sizeof(T));
	for (int i = 0; i < s->n; i++) {
		int late = i * 100 < s->late * s->n, slow = (s->n - 1 - i) * 100 < s->slow * s->n;
		uint64_t q = late ? s->q_late : 20, srv = slow ? s->srv_slow : s->srv;
		uint64_t oth = late && s->oth_late ? s->oth_late : s->oth;

		hist_add(&T.h[H_QUEUE], q);
		hist_add(&T.h[H_SRV], srv);
		hist_add(&T.h[H_OTH], oth);
		hist_add(&T.h[H_TTFB], srv + oth);
		hist_add(&T.h[H_BODY], s->body);
		hist_add(&T.h[H_LAT], q + srv + oth + s->body);
		qsum += q;
		T.late += q > 1000;
	}
	T.reqs = T.sent = (uint64_t)s->n;
	T.scheduled = T.sent + T.sent * (uint64_t)s->unsent_pct / 100;
	T.loop_late_us = (uint64_t)(s->loop * (double)qsum);
	T.errors[E_RESET] = (uint64_t)s->err;
	return &T;
}

static enum lc_verdict judge(const struct synth *s, double cpu, char *why, size_t len)
{
	struct lc_meta m = { .secs = 10 };
	struct lc_find_fig f = { make(s), &m, cpu, 0.8, 100, 1, 1 };

	return lc_find_judge(SLO, &f, why, len);
}

static void steps(void)
{
	char why[512];
	enum lc_verdict v;

	v = judge(&(struct synth){ .n = 10000, .srv = 1000, .oth = 200, .loop = 1 }, 0.3, why, sizeof(why));
	is_int(v, V_HELD, "1.2 ms a request, no queue: held");
	/* the issue's -c 100 step: queue p99 4.9 ms of a 6.8 ms p99, 17 % late, the loop on time */
	v = judge(&(struct synth){ .n = 10000, .late = 17, .q_late = 4900, .srv = 1400, .oth = 500, .loop = 0.05 }, 0.5,
		  why, sizeof(why));
	is_int(v, V_CONNS, "p99 6.8 ms of which 4.9 the queue, 17 %% late, the loop on time: the connections' limit");
	ok(strstr(why, "17.0 % of the sends") && strstr(why, "more -c") && strstr(why, "-c 100"),
	   "... with its evidence and what to do: %s", why);
	/* the busy loop beside hxload: 24 % late, responses read late too, the server's p99 1.4 ms */
	v = judge(&(struct synth){ .n = 10000, .late = 24, .q_late = 3000, .srv = 1400, .oth = 300, .oth_late = 4000,
				   .loop = 0.9 }, 0.5, why, sizeof(why));
	is_int(v, V_CLIENT, "24 %% late, 90 %% of the queue the loop's own, time to first byte over the SLO too: the "
	       "client's limit, not the target's");
	ok(strstr(why, "24.0 % of the sends") && strstr(why, "loop was late") && strstr(why, "more -t"),
	   "... its loop named, -t suggested: %s", why);
	/* starved: its answers read late, so its connections stay busy and
	 * most of the queue waits for them; the loop itself 7.5 ms late on average */
	v = judge(&(struct synth){ .n = 500, .late = 100, .q_late = 600000, .srv = 1400, .oth = 60000, .loop = 0.05,
				   .unsent_pct = 300 }, 0.05, why, sizeof(why));
	is_int(v, V_CLIENT, "a starved client, 3 of 4 never sent, its loop 7.5 ms late on average though the queue "
	       "mostly waited for connections: the client's limit");
	ok(strstr(why, "late on average") != NULL, "... said so: %s", why);
	v = judge(&(struct synth){ .n = 10000, .slow = 3, .srv = 1000, .srv_slow = 7000, .oth = 200, .loop = 1 }, 0.3,
		  why, sizeof(why));
	is_int(v, V_MISSED, "3 %% of the answers 7 ms at the server: the target missed");
	ok(strstr(why, "from the send") && strstr(why, "server p99 7.0"), "... its server time said: %s", why);
	v = judge(&(struct synth){ .n = 10000, .late = 20, .q_late = 4000, .slow = 3, .srv = 1000, .srv_slow = 600000,
				   .oth = 200, .loop = 0.99 }, 0.05, why, sizeof(why));
	is_int(v, V_MISSED, "20 %% late, the loop's own, but answers 600 ms slow at the server, far past its 4 ms "
	       "stalls: the target missed");
	v = judge(&(struct synth){ .n = 10000, .late = 30, .q_late = 4000, .slow = 3, .srv = 1000, .srv_slow = 7000,
				   .oth = 200, .loop = 0.1 }, 0.3, why, sizeof(why));
	is_int(v, V_MISSED, "late sends waiting for connections, and the server slow past the SLO: the target missed");
	v = judge(&(struct synth){ .n = 10000, .srv = 1000, .oth = 200, .loop = 1 }, 0.9, why, sizeof(why));
	is_int(v, V_CLIENT, "hxload at 90 %% of its CPU: the client's limit");
	ok(strstr(why, "hxload used 90 % of its CPU") != NULL, "... said so: %s", why);
	v = judge(&(struct synth){ .n = 10000, .srv = 1000, .oth = 200, .body = 6000, .loop = 1 }, 0.3, why, sizeof(why));
	is_int(v, V_MISSED, "a 6 ms body, no queue: the target missed with the body");
	ok(strstr(why, "with the body") != NULL, "... said so: %s", why);
	v = judge(&(struct synth){ .n = 10000, .srv = 1000, .oth = 200, .unsent_pct = 5, .loop = 0.1 }, 0.3, why,
		  sizeof(why));
	is_int(v, V_CONNS, "5 %% never sent, the loop on time: the connections' limit though what was sent held");
	v = judge(&(struct synth){ .n = 10000, .srv = 1000, .oth = 200, .unsent_pct = 5, .loop = 0.9 }, 0.3, why,
		  sizeof(why));
	is_int(v, V_CLIENT, "5 %% never sent, the loop late: the client's limit");
	v = judge(&(struct synth){ .n = 10000, .late = 20, .q_late = 2000, .srv = 1000, .oth = 200, .loop = 0.9 }, 0.3,
		  why, sizeof(why));
	is_int(v, V_HELD, "20 %% sent 2 ms late, the whole latency under the SLO all the same: held");
	v = judge(&(struct synth){ .n = 10000, .srv = 1000, .oth = 200, .err = 20, .loop = 1 }, 0.3, why, sizeof(why));
	is_int(v, V_MISSED, "0.2 %% errors: missed");
}

/* a target: held up to <cap>; the client's limit above <client> (0:
 * none); <flip> the verdict of the steps it lists (1-based), or one step
 * in <noise> per mille at random */
struct oracle {
	double cap, client, backend; /* backend: the steps above it are void */
	int flip[8];
	int noise;
	unsigned seed;
	int lucky;                   /* the first run at a rate within 10 % over the cap holds */
};

static enum lc_verdict ask(struct oracle *o, const struct lc_find_search *s, double r)
{
	enum lc_verdict v = o->backend && r > o->backend ? V_VOID : o->client && r > o->client ? V_CLIENT :
		r <= o->cap ? V_HELD : V_MISSED;
	int k = s->steps + 1;

	for (int i = 0; i < 8 && o->flip[i]; i++)
		if (o->flip[i] == k)
			v = v == V_HELD ? V_MISSED : V_HELD;
	if (o->noise) {
		o->seed = o->seed * 1103515245u + 12345u;
		if ((o->seed >> 16) % 1000 < (unsigned)o->noise)
			v = v == V_HELD ? V_MISSED : V_HELD;
	}
	if (o->lucky && r > o->cap && r <= 1.1 * o->cap) {
		for (int i = 0; i < s->nr; i++)
			if (s->r[i].rate == r && s->r[i].held + s->r[i].not_held)
				return v;
		v = V_HELD;
	}
	return v;
}

static void drive(struct lc_find_search *s, struct oracle *o, double start, double precision, double max_rate,
		  int max_steps)
{
	double r;

	lc_find_init(s, start, precision, max_rate, max_steps);
	while ((r = lc_find_next(s)) > 0)
		lc_find_add(s, ask(o, s, r));
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void search(void)
{
	struct lc_find_search s, t;
	double miss, held, found[7];
	int mixed, all_in = 1;

	drive(&s, &(struct oracle){ .cap = 10000 }, 1000, 0.05, 0, 30);
	ok(s.done == 1 && s.lo <= 10000 && s.hi > 10000 && s.hi - s.lo <= 0.05 * s.lo,
	   "a target that holds 10,000: %.1f held, %.1f not, within 5 %% (done %d)", s.lo, s.hi, s.done);
	is_int(s.hi_kind, V_MISSED, "... the target's limit");
	for (int i = 0; i < s.nr; i++)
		if (s.r[i].rate == s.lo)
			ok(s.r[i].held == 2, "... the rate found run twice, held twice (%d)", s.r[i].held);
	for (int i = 0; i < s.nr; i++)
		if (s.r[i].rate == s.hi)
			ok(s.r[i].not_held == 2, "... the rate missed run twice, missed twice (%d)", s.r[i].not_held);
	drive(&t, &(struct oracle){ .cap = 10000, .flip = { 1 } }, 1000, 0.05, 0, 30);
	ok(t.lo == s.lo && t.hi == s.hi, "a transient miss at the first step: the same %.1f and %.1f (not capped at "
	   "the start)", t.lo, t.hi);
	lc_find_spread(&t, &miss, &held, &mixed);
	ok(mixed == 1 && miss == 1000, "... the spread says the runs at 1000 req/s disagreed (%d, %.0f)", mixed, miss);
	drive(&t, &(struct oracle){ .cap = 10000, .flip = { 2 } }, 1000, 0.05, 0, 30);
	ok(t.lo == s.lo && t.steps == s.steps + 2, "a miss on the way up, its repeat held: a third run decides, "
	   "%.1f found in two steps more", t.lo);
	drive(&t, &(struct oracle){ .cap = 10000, .flip = { 2, 3 } }, 1000, 0.05, 0, 30);
	ok(t.done == 1 && t.lo < 2000, "two misses in a row are a limit, the search bisects below (%.1f)", t.lo);
	drive(&t, &(struct oracle){ .cap = 10000, .lucky = 1 }, 1000, 0.05, 0, 30);
	ok(t.done == 1 && t.lo <= 10000 && t.hi > 10000, "a lucky first run over the limit is not the rate found: "
	   "%.1f held, %.1f not", t.lo, t.hi);
	drive(&t, &(struct oracle){ .cap = 10000 }, 1000, 0.05, 0, 8);
	ok(t.done == -1 && t.steps == 8, "--max-steps 8 runs out before 5 %%: said (done %d after %d steps)", t.done,
	   t.steps);
	drive(&t, &(struct oracle){ .cap = 20000, .client = 8000 }, 1000, 0.05, 0, 30);
	ok(t.done == 3 && t.hi_kind == V_CLIENT && t.lo <= 8000 && t.lo >= 4000,
	   "the client's limit at 8,000: the search stops there, %.1f held (done %d)", t.lo, t.done);
	drive(&t, &(struct oracle){ .cap = 20000, .backend = 8000 }, 1000, 0.05, 0, 30);
	ok(t.done == 5 && !t.hi && t.lo <= 8000 && t.lo >= 4000 && t.void_rate > 8000,
	   "the backend saturated over 8,000: the step void, no bound moved (held %.1f, missed %.1f), the search "
	   "ends at %.1f (done %d)", t.lo, t.hi, t.void_rate, t.done);
	drive(&t, &(struct oracle){ .cap = 100 }, 1000, 0.05, 0, 30);
	ok(t.lo >= 95 && t.lo <= 100 && t.done == 1, "a start over the limit: bisected down to %.1f", t.lo);
	drive(&t, &(struct oracle){ .cap = 0 }, 1000, 0.05, 0, 30);
	ok(!t.lo && t.done == 4, "nothing holds: no rate (done %d after %d steps)", t.done, t.steps);
	drive(&t, &(struct oracle){ .cap = 1e9 }, 1000, 0.05, 5000, 30);
	ok(t.done == 2 && t.lo == 5000, "--max-rate 5000 held: the most asked (%.1f)", t.lo);
	/* WHY seven seeds at 8 % noise: one step in twelve flips, as on a busy machine */
	for (int i = 0; i < 7; i++) {
		drive(&t, &(struct oracle){ .cap = 10000, .noise = 80, .seed = 7u * (unsigned)i + 1 }, 1000, 0.05, 0, 40);
		found[i] = t.lo;
	}
	qsort(found, 7, sizeof(found[0]), cmp);
	for (int i = 0; i < 7; i++)
		all_in &= found[i] >= 0.85 * found[3] && found[i] <= 1.15 * found[3];
	ok(all_in, "seven searches, one step in twelve flipped: each within 15 %% of their median %.0f (%.0f .. %.0f)",
	   found[3], found[0], found[6]);
}

int main(void)
{
	steps();
	search();
	return done_testing();
}

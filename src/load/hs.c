/* hxload --handshakes: the mix parsed, each new connection's kind, what its handshake cost recorded. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "lc_cmd.h"
#include "lc_conn.h"
#include "lc_thread.h"
#include "lc_hs.h"
#include "lc_stats.h"

const char *const lc_hs_names[HS_KINDS] = { "full", "resumed", "0rtt" };

/* hxload's CPU and the clock at the first connection: its own CPU is
 * judged from then (the start's key loading and threads left out) */
static _Atomic int started;
static uint64_t cpu0_us, wall0_us;

static uint64_t lc_hs_cpu_us(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (uint64_t)ru.ru_utime.tv_sec * 1000000 + (uint64_t)ru.ru_utime.tv_usec +
	       (uint64_t)ru.ru_stime.tv_sec * 1000000 + (uint64_t)ru.ru_stime.tv_usec;
}

double lc_hs_busy(void)
{
	uint64_t now = lc_now_us();

	if (!atomic_load(&started) || now <= wall0_us + 100000)
		return -1;
	return (double)(lc_hs_cpu_us() - cpu0_us) / ((double)(now - wall0_us) * lc_o->threads);
}

double lc_hs_server_busy(const struct lc_stats *T, const struct lc_meta *m)
{
	int cpus = lc_o->server_pid && m->runs <= 1 && m->secs > 0 ? lc_proc_cpus(lc_o->server_pid) : 0;

	return cpus ? (double)T->srv_cpu_us / (m->secs * 1e6 * cpus) : -1;
}

int lc_hs_parse(const char *arg, unsigned w[HS_KINDS], char *why, size_t len)
{
	const char *p = arg;
	unsigned long sum = 0;

	for (int k = 0; k < HS_KINDS; k++) {
		char *end;
		unsigned long v;

		errno = 0;
		v = *p >= '0' && *p <= '9' ? strtoul(p, &end, 10) : (end = (char *)p, 0);
		if (end == p || errno || v > 1000000 || (k < HS_KINDS - 1 ? *end != ':' : *end != 0))
			return snprintf(why, len, "--handshakes '%s': expected FULL:RESUMED:0RTT, three whole "
					"numbers of 0 to 1000000 (shares: 70:25:5)", arg), -1;
		w[k] = (unsigned)v;
		sum += v;
		p = end + 1;
	}
	if (!sum)
		return snprintf(why, len, "--handshakes '%s': every share is 0; give at least one", arg), -1;
	return 0;
}

/* WHY the smooth weighted round robin (nginx's): each kind gains its share,
 * the one furthest ahead goes and pays the sum, so that every <sum> connections
 * hold each kind exactly its share, spread out */
int lc_hs_next(int64_t cur[HS_KINDS], const unsigned w[HS_KINDS])
{
	int64_t sum = 0;
	int best = 0;

	for (int k = 0; k < HS_KINDS; k++) {
		cur[k] += w[k];
		sum += w[k];
		if (cur[k] > cur[best])
			best = k;
	}
	cur[best] -= sum;
	return best;
}

void lc_hs_pick(struct lc_conn *c)
{
	if (!atomic_exchange(&started, 1)) {
		cpu0_us = lc_hs_cpu_us();
		wall0_us = lc_now_us();
	}
	c->hs_kind = (uint8_t)lc_hs_next(c->t->hs_cur, lc_o->hs_mix);
	c->hs_got = HS_KINDS;
	c->hs_early = c->hs_headed = 0;
}

int lc_hs_idle(const struct lc_thread *t)
{
	return lc_o->hs && lc_open_loop() && t->due_n <= t->fresh;
}

int lc_hs_ticket(const struct lc_conn *c)
{
	return !lc_o->hs || c->hs_kind != HS_FULL;
}

int lc_hs_early(const struct lc_conn *c)
{
	return !lc_o->hs || c->hs_kind == HS_0RTT;
}

static struct lc_hs_stats *hs_of(struct lc_conn *c)
{
	struct lc_thread *t = c->t;

	return lc_o->hs && lc_in_window(t, t->loop.now_us) ? &t->st.hs : NULL;
}

void lc_hs_up(struct lc_conn *c, int resumed)
{
	struct lc_hs_stats *s = hs_of(c);
	int got = !resumed ? HS_FULL : c->hs_early ? HS_0RTT : HS_RESUMED;

	c->hs_got = (uint8_t)got;
	if (!s)
		return;
	s->asked[c->hs_kind]++;
	s->got[got]++;
	if (c->hs_kind != HS_FULL && got == HS_FULL) {
		s->declined++;
		s->no_ticket += !c->hs_offered;
	}
	if (c->hs_kind == HS_0RTT && got == HS_RESUMED)
		s->no_early++;
	if (c->up_us)
		hist_add(&s->h[got][HSP_CONNECT], c->up_us - c->open_us);
	hist_add(&s->h[got][HSP_TLS], lc_now_us() - (c->up_us ? c->up_us : c->open_us));
}

void lc_hs_head(struct lc_conn *c)
{
	struct lc_hs_stats *s = hs_of(c);

	if (!s || c->hs_headed || c->hs_got >= HS_KINDS)
		return;
	c->hs_headed = 1;
	hist_add(&s->h[c->hs_got][HSP_FIRST], lc_now_us() - c->open_us);
}

void lc_hs_fail(struct lc_conn *c)
{
	struct lc_hs_stats *s = hs_of(c);

	if (!s || c->hs_got != HS_KINDS)
		return;
	c->hs_got = HS_KINDS + 1; /* WHY: counted once */
	s->asked[c->hs_kind]++;
	s->failed++;
	s->alerts[c->alert > 0 && c->alert < 256 ? c->alert : 256]++;
}

void lc_hs_add(struct lc_hs_stats *T, const struct lc_hs_stats *s)
{
	for (int k = 0; k < HS_KINDS; k++) {
		T->asked[k] += s->asked[k];
		T->got[k] += s->got[k];
		for (int p = 0; p < HSP_MAX; p++)
			hist_merge(&T->h[k][p], &s->h[k][p]);
	}
	T->declined += s->declined;
	T->no_ticket += s->no_ticket;
	T->no_early += s->no_early;
	T->failed += s->failed;
	for (int a = 0; a < 257; a++)
		T->alerts[a] += s->alerts[a];
}

/* hxload find's search over the steps' verdicts: doubled then bisected, a miss repeated before the bound moves, the rate found run again before it is given. */
#include <string.h>

#include "common.h"
#include "lc_find.h"

void lc_find_init(struct lc_find_search *s, double start, double precision, double max_rate, int max_steps)
{
	memset(s, 0, sizeof(*s));
	s->start = start;
	s->precision = precision;
	s->max_rate = max_rate;
	s->max_steps = MIN(max_steps, LC_FIND_MAX_STEPS);
	s->cur = -1;
}

static struct lc_find_rate *slot(struct lc_find_search *s, double rate)
{
	for (int i = 0; i < s->nr; i++)
		if (s->r[i].rate == rate)
			return &s->r[i];
	return NULL;
}

/* the highest rate decided held below <rate>, 0: none */
static double held_below(const struct lc_find_search *s, double rate)
{
	double best = 0;

	for (int i = 0; i < s->nr; i++)
		if (s->r[i].resolved > 0 && s->r[i].rate < rate)
			best = MAX(best, s->r[i].rate);
	return best;
}

static int lo_confirmed(struct lc_find_search *s)
{
	const struct lc_find_rate *e = slot(s, s->lo);

	return e && e->held >= 2;
}

/* the next rate to decide, 0 with s->done set when there is none */
static double choose(struct lc_find_search *s)
{
	if (!s->hi) {
		if (s->max_rate && s->lo >= s->max_rate)
			return s->done = 2, 0;
		double r = s->lo ? s->lo * 2 : s->start;

		return s->max_rate ? MIN(r, s->max_rate) : r;
	}
	/* WHY not bisected past the client's limit: beyond it the figures are the client's */
	if (s->hi_kind == V_MISSED && !s->lo)
		return s->hi / 2 >= 1 ? s->hi / 2 : (s->done = 4, 0);
	if (s->hi_kind == V_MISSED && s->hi - s->lo > s->precision * s->lo)
		return (s->lo + s->hi) / 2;
	if (s->lo && !lo_confirmed(s))
		return s->lo;
	s->done = !s->lo ? 4 : s->hi_kind == V_MISSED ? 1 : 3;
	return 0;
}

double lc_find_next(struct lc_find_search *s)
{
	struct lc_find_rate *e;
	double r;

	if (s->done)
		return 0;
	if (s->cur >= 0 && !s->r[s->cur].resolved)
		return s->steps >= s->max_steps ? (s->done = -1, 0) : s->r[s->cur].rate;
	/* WHY before the count: a search that ended with its last step ended */
	if (!(r = choose(s)))
		return 0;
	if (s->steps >= s->max_steps)
		return s->done = -1, 0;
	if (!(e = slot(s, r))) {
		if (s->nr == LC_FIND_MAX_STEPS)
			return s->done = -1, 0;
		e = &s->r[s->nr++];
		*e = (struct lc_find_rate){ .rate = r };
	}
	e->resolved = 0; /* WHY: the rate found, run again */
	s->cur = (int)(e - s->r);
	return r;
}

/* two runs must agree on a miss, and on the rate found; a held step on
 * the way up is taken at its word (the next one tests it again) */
static int decided(const struct lc_find_rate *e, int confirming)
{
	if (e->held >= 2 && e->held > e->not_held)
		return 1;
	if (e->held == 1 && !e->not_held && !confirming)
		return 1;
	if (e->not_held >= 2 && e->not_held > e->held)
		return -1;
	return 0;
}

void lc_find_add(struct lc_find_search *s, enum lc_verdict v)
{
	struct lc_find_rate *e;

	if (s->cur < 0 || s->done)
		return;
	e = &s->r[s->cur];
	s->steps++;
	/* WHY the end, the bounds as they were: above the backend's limit
	 * every step would be void again, and none says what the proxy holds */
	if (v == V_VOID) {
		s->void_rate = e->rate;
		s->done = 5;
		return;
	}
	if (v == V_HELD) {
		e->held++;
	} else {
		e->kind = e->not_held && (e->kind == V_MISSED || v == V_MISSED) ? V_MISSED : v;
		e->not_held++;
	}
	if (!(e->resolved = decided(e, e->rate == s->lo)))
		return;
	if (e->resolved > 0) {
		s->lo = MAX(s->lo, e->rate);
		return;
	}
	if (!s->hi || e->rate <= s->hi) {
		s->hi = e->rate;
		s->hi_kind = e->kind;
	}
	if (e->rate <= s->lo)
		s->lo = held_below(s, e->rate);
}

void lc_find_spread(const struct lc_find_search *s, double *lowest_miss, double *highest_held, int *mixed)
{
	*lowest_miss = *highest_held = 0;
	*mixed = 0;
	for (int i = 0; i < s->nr; i++) {
		const struct lc_find_rate *e = &s->r[i];

		if (e->not_held && (!*lowest_miss || e->rate < *lowest_miss))
			*lowest_miss = e->rate;
		if (e->held)
			*highest_held = MAX(*highest_held, e->rate);
		*mixed += e->held && e->not_held;
	}
}

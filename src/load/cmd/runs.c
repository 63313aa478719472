/* hxload's --json results read back, for merge and compare: the runs of a file, their histograms and counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "lc_tls.h"
#include "runs.h"

static char *slurp(const char *file)
{
	FILE *f = fopen(file, "r");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 65536 + 1 > cap) {
			char *nb = realloc(buf, cap = cap * 2 + 65536 + 1);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t r = fread(buf + n, 1, cap - n - 1, f);

		if (!r)
			break;
		n += r;
	}
	fclose(f);
	buf[n] = 0;
	return buf;
}

static uint64_t u(const struct json *o, const char *key)
{
	double v = json_num(o, key, 0);

	return v > 0 ? (uint64_t)v : 0;
}

/* counter row <c> of <s> from the object <o> it sits in: a number, or an
 * object by label value */
static void row_read(const struct row *c, struct lc_stats *s, const struct json *o)
{
	const struct json *v = c->label ? json_get(o, c->json) : o;

	for (unsigned i = 0; i < c->n; i++)
		*row_at(c, s, i) = c->label ? (row_jv(c, i) ? u(v, row_jv(c, i)) : 0) : u(o, c->json);
}

int lc_hist_read(struct hist *h, const struct json *o)
{
	const struct json *b = json_get(o, "buckets");
	uint64_t seen = 0;
	unsigned i0;

	memset(h, 0, sizeof(*h));
	if (!b || b->type != JSON_ARR)
		return -1;
	h->n = u(o, "n");
	h->min = u(o, "min");
	h->max = u(o, "max");
	h->sum = u(o, "sum");
	h->sumsq = json_num(o, "sumsq", 0);
	for (size_t i = 0; i < b->n; i++) {
		const struct json *p = &b->kid[i];

		if (p->type != JSON_ARR || p->n != 2 || p->kid[0].num < 0 || p->kid[0].num >= HIST_BUCKETS || p->kid[1].num < 0)
			return -1;
		i0 = (unsigned)p->kid[0].num;
		/* WHY: merge reads no bucket above the max's, so one there
		 * would be lost without a word */
		if (i0 && hist_bucket_value(i0 - 1) >= h->max)
			return -1;
		h->b[i0 / HIST_SUB][i0 % HIST_SUB] += (uint64_t)p->kid[1].num;
		seen += (uint64_t)p->kid[1].num;
	}
	return seen == h->n ? 0 : -1;
}

void lc_why_read(const struct json *r, struct lc_why *w)
{
	const struct json *j = json_get(r, "first_unexpected");

	if (w->status || !j)
		return;
	w->status = (uint16_t)json_num(j, "status", 0);
	snprintf(w->line, sizeof(w->line), "%s", json_str(j, "line"));
	snprintf(w->body, sizeof(w->body), "%s", json_str(j, "body"));
	w->len = (uint16_t)strlen(w->body);
}

int lc_run_read(const struct json *r, struct lc_stats *s)
{
	const struct json *hs = json_get(r, "histograms"), *e = json_get(r, "errors"),
			  *st = json_get(r, "status");

	if (!hs || !e || !st || !json_get(r, "schedule") || !json_get(r, "connections"))
		return -1;
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < H_MAX; i++) {
		const struct json *h = json_get(hs, lc_hist_names[i]);

		if (!h && (LC_HIST_LATER >> i & 1))
			continue;
		if (!h || lc_hist_read(&s->h[i], h) < 0)
			return -1;
	}
	for (int i = 0; i < E_MAX; i++)
		s->errors[i] = u(e, lc_err_names[i]);
	for (size_t i = 0; i < st->n; i++) {
		int code = atoi(st->key[i]);

		if (code >= 100 && code < LC_STATUS_MAX)
			s->status[code] = (uint64_t)st->kid[i].num;
	}
	const struct row *t;
	size_t n;

	for (size_t i = 0; (t = lc_rows(i, &n)); i++)
		for (size_t k = 0; k < n; k++)
			row_read(&t[k], s, t[k].group ? json_get(r, t[k].group) : r);
	return lc_hs_read(&s->hs, r);
}

/* the alert named <name> in a run's "alerts" (256: "none"), -1 unknown */
static int alert_of(const char *name)
{
	if (!strcmp(name, "none"))
		return 256;
	for (int a = 0; a < 256; a++)
		if (!strcmp(name, lc_tls_alert_name(a)))
			return a;
	return -1;
}

int lc_hs_read(struct lc_hs_stats *s, const struct json *r)
{
	static const char *const parts[HSP_MAX] = { "connect", "tls", "first_byte" };
	const struct json *o = json_get(r, "handshakes"), *a = json_get(o, "alerts");

	memset(s, 0, sizeof(*s));
	if (!o)
		return 0;
	s->declined = u(o, "asked_resumed_got_full");
	s->no_ticket = u(o, "no_ticket");
	s->no_early = u(o, "asked_0rtt_got_resumed");
	s->failed = u(o, "failed");
	for (size_t i = 0; a && i < a->n; i++)
		if (alert_of(a->key[i]) >= 0)
			s->alerts[alert_of(a->key[i])] += (uint64_t)a->kid[i].num;
	for (int k = 0; k < HS_KINDS; k++) {
		const struct json *kj = json_get(json_get(o, "kinds"), lc_hs_names[k]), *raw = json_get(kj, "raw");

		s->asked[k] = u(kj, "asked");
		s->got[k] = u(kj, "got");
		/* WHY no raw is no error: a run of an older hxload, its counts only */
		for (int p = 0; p < HSP_MAX && raw; p++)
			if (lc_hist_read(&s->h[k][p], json_get(raw, parts[p])) < 0)
				return -1;
	}
	return 0;
}

int lc_runs_each(const char *who, const char *file, int (*each)(const struct json *run, void *arg), void *arg)
{
	char *buf = slurp(file), *line, *save = NULL;
	int found = 0;

	if (!buf) {
		fprintf(stderr, "hxload %s: cannot read '%s'\n", who, file);
		return -1;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *err;
		struct json *j;

		if (!strstr(line, "\"histograms\""))
			continue; /* WHY: --interval lines are not runs */
		if (!(j = json_parse(line, &err)) || each(j, arg) < 0) {
			fprintf(stderr, "hxload %s: '%s': not an hxload --json result (%s)\n", who, file,
				j ? "fields missing, or a histogram whose buckets do not add up to its n" : err);
			json_free(j);
			free(buf);
			return -1;
		}
		json_free(j);
		found++;
	}
	free(buf);
	if (!found)
		fprintf(stderr, "hxload %s: '%s': no hxload --json result in it\n", who, file);
	return found ? 0 : -1;
}

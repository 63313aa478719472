/* hxload merge: several runs' JSON (from several load machines) read back and reported as one, from the summed histograms. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "json.h"
#include "lc.h"

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

static int hist_read(struct hist *h, const struct json *o)
{
	const struct json *b = json_get(o, "buckets");

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

		if (p->type != JSON_ARR || p->n != 2 || p->kid[0].num < 0 || p->kid[0].num >= HIST_BUCKETS)
			return -1;
		h->b[(unsigned)p->kid[0].num / HIST_SUB][(unsigned)p->kid[0].num % HIST_SUB] += (uint32_t)p->kid[1].num;
	}
	return 0;
}

/* one run's object into <s> */
static int run_read(const struct json *r, struct lc_stats *s)
{
	const struct json *hs = json_get(r, "histograms"), *e = json_get(r, "errors"),
			  *st = json_get(r, "status");

	if (!hs || !e || !st || !json_get(r, "schedule") || !json_get(r, "connections"))
		return -1;
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < H_MAX; i++) {
		const struct json *h = json_get(hs, lc_hist_names[i]);

		if (!h || hist_read(&s->h[i], h) < 0)
			return -1;
	}
	for (int i = 0; i < E_MAX; i++)
		s->errors[i] = u(e, lc_err_names[i]);
	for (size_t i = 0; i < st->n; i++) {
		int code = atoi(st->key[i]);

		if (code >= 100 && code < LC_STATUS_MAX)
			s->status[code] = (uint64_t)st->kid[i].num;
	}
	for (size_t k = 0; k < lc_ncounters; k++)
		LC_CTR(s, k) = u(lc_counters[k].group ? json_get(r, lc_counters[k].group) : r, lc_counters[k].name);
	return 0;
}

/* "a" then "a+b": labels and hosts of the merged runs */
static void join(char *dst, size_t n, const char *add)
{
	size_t l = strlen(dst);

	if (!*add || strstr(dst, add))
		return;
	snprintf(dst + l, n - l, "%s%s", l ? "+" : "", add);
}

static void meta_read(const struct json *r, struct lc_meta *m)
{
	double start = json_num(r, "start", 0), end = json_num(r, "end", 0), secs = json_num(r, "seconds", 0);
	const struct json *sc = json_get(r, "schedule");

	if (!m->runs || start < m->start)
		m->start = start;
	if (end > m->end)
		m->end = end;
	if (secs > m->secs)
		m->secs = secs; /* WHY the longest: the runs ran side by side (--start-at) */
	m->target_rps += json_num(sc, "target_rps", 0);
	m->runs += (int)json_num(r, "runs", 1);
	join(m->label, sizeof(m->label), json_str(r, "label"));
	join(m->host, sizeof(m->host), json_str(r, "host"));
	if (!m->url[0])
		snprintf(m->url, sizeof(m->url), "%s", json_str(r, "url"));
	else if (strcmp(m->url, json_str(r, "url")))
		snprintf(m->url, sizeof(m->url), "several URLs");
}

/* each line of <file> that is a run (interval lines are skipped) */
static int file_read(const char *file, struct lc_stats *T, struct lc_meta *m)
{
	char *buf = slurp(file), *line, *save = NULL;
	int found = 0;

	if (!buf) {
		fprintf(stderr, "hxload merge: cannot read '%s'\n", file);
		return -1;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *err;
		struct json *j;
		static struct lc_stats s;

		if (!strstr(line, "\"histograms\""))
			continue;
		if (!(j = json_parse(line, &err)) || run_read(j, &s) < 0) {
			fprintf(stderr, "hxload merge: '%s': not an hxload --json result (%s)\n", file,
				j ? "fields missing" : err);
			json_free(j);
			free(buf);
			return -1;
		}
		meta_read(j, m);
		lc_stats_add(T, &s);
		json_free(j);
		found++;
	}
	free(buf);
	if (!found)
		fprintf(stderr, "hxload merge: '%s': no hxload --json result in it\n", file);
	return found ? 0 : -1;
}

int lc_merge_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "json", 0, NULL, 'J' }, { "html", 1, NULL, 'H' }, { "fail-on", 1, NULL, 'F' },
		{ "label", 1, NULL, 'L' }, { "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	static struct lc_stats T;
	struct lc_meta m = { .version = HX_VERSION };
	const char *html = NULL, *fail_on = NULL, *label = NULL, *err;
	int c, json = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'J': json = 1; break;
		case 'H': html = optarg; break;
		case 'L': label = optarg; break;
		case 'F':
			if (lc_check_parse(optarg, &err) < 0) {
				fprintf(stderr, "hxload merge: --fail-on '%s': %s\n", optarg, err);
				return 2;
			}
			fail_on = optarg;
			break;
		case 'h':
			printf("Usage: hxload merge [--json] [--html FILE] [--fail-on SPEC] [--label L] RUN.json...\n"
			       "Reports several runs' --json results as one, from their summed histograms:\n"
			       "counts add up, percentiles are those of all the samples together, the rate\n"
			       "is the sum (the runs ran at the same time, see --start-at).\n");
			return 0;
		default:
			fprintf(stderr, "hxload merge: bad option '%s' (try -h)\n", argv[optind - 1]);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "hxload merge: expected one or more RUN.json files\n");
		return 2;
	}
	for (int i = optind; i < argc; i++)
		if (file_read(argv[i], &T, &m) < 0)
			return 2;
	if (label)
		snprintf(m.label, sizeof(m.label), "%s", label);
	snprintf(m.cmdline, sizeof(m.cmdline), "merge of %d runs", m.runs);
	if (m.secs <= 0)
		m.secs = 1e-6;
	return lc_finish(&T, &m, NULL, json, html, fail_on);
}

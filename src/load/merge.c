/* hxload merge: several runs' JSON (from several load machines) read back and reported as one, from the summed histograms. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "json.h"
#include "lc.h"
#include "runs.h"

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

struct merge_acc {
	struct lc_stats *T;
	struct lc_meta *m;
};

static int merge_one(const struct json *j, void *arg)
{
	struct merge_acc *acc = arg;
	static struct lc_stats s;

	if (lc_run_read(j, &s) < 0)
		return -1;
	meta_read(j, acc->m);
	lc_stats_add(acc->T, &s);
	return 0;
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
		if (lc_runs_each("merge", argv[i], merge_one, &(struct merge_acc){ &T, &m }) < 0)
			return 2;
	if (label)
		snprintf(m.label, sizeof(m.label), "%s", label);
	snprintf(m.cmdline, sizeof(m.cmdline), "merge of %d runs", m.runs);
	if (m.secs <= 0)
		m.secs = 1e-6;
	return lc_finish(&T, &m, NULL, json, html, fail_on);
}

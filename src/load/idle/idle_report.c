/* hxload --idle's figures: closes by seconds idle, each process's RSS at rest, with them open and at the end; the text and JSON. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "json.h"
#include "lc_idle.h"
#include "lc_idle_int.h"

struct idle_state lc_idle;

void idle_closed(struct idle_state *s, uint64_t idle_us)
{
	unsigned b = (unsigned)(idle_us / 1000000);

	if (!s->closed++ || idle_us < s->first_us)
		s->first_us = idle_us;
	s->last_us = MAX(s->last_us, idle_us);
	s->buckets[b < IDLE_BUCKETS ? b : IDLE_BUCKETS - 1]++;
}

void idle_why_text(struct idle_state *s, const char *why)
{
	if (!s->why[0])
		snprintf(s->why, sizeof(s->why), "%s", why);
}

void idle_why(struct idle_state *s, int err)
{
	idle_why_text(s, err ? strerror(err) : "closed by the peer before its answer");
}

/* VmRSS in KiB, 0 when it cannot be read */
static uint64_t rss_kib(int pid)
{
	char path[64], line[256];
	unsigned long long kib = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %llu", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

void idle_rss(struct idle_state *s, int when)
{
	if (!s->nrss) {
		snprintf(s->rss[0].name, sizeof(s->rss[0].name), "hxload");
		s->rss[0].pid = getpid();
		for (int i = 0; i < lc_o->npids; i++) {
			memcpy(s->rss[i + 1].name, lc_o->pids[i].name, sizeof(s->rss[0].name));
			s->rss[i + 1].pid = lc_o->pids[i].pid;
		}
		s->nrss = 1 + lc_o->npids;
	}
	for (int i = 0; i < s->nrss; i++)
		s->rss[i].kib[when] = rss_kib(s->rss[i].pid);
}

/* KiB per connection held: from at rest to all open */
static double per_conn(const struct idle_state *s, int i)
{
	unsigned n = s->rss[i].merged ? s->rss[i].per : atomic_load(&s->answered);
	uint64_t a = s->rss[i].kib[RSS_REST], b = s->rss[i].kib[RSS_OPENED];

	return n && b > a ? (double)(b - a) / n : 0;
}

void lc_idle_text(FILE *f)
{
	const struct idle_state *s = &lc_idle;

	if (!s->n)
		return;
	fprintf(f, "idle     %d opened in %.2f s: %u answered, %u failed; %u closed by the peer, %d held to the end",
		s->n, s->open_s, atomic_load(&s->answered), atomic_load(&s->failed), s->closed, s->held);
	if (s->closed) {
		fprintf(f, "; closes after %.2f to %.2f s idle (by second:", s->first_us / 1e6, s->last_us / 1e6);
		for (int b = 0; b < IDLE_BUCKETS; b++)
			if (s->buckets[b])
				fprintf(f, " %d%s:%u", b, b == IDLE_BUCKETS - 1 ? "+" : "", s->buckets[b]);
		fprintf(f, ")");
	}
	if (s->unanswered)
		fprintf(f, "; %d not answered by the load's start (%.0f s)", s->unanswered, s->open_s);
	if (s->pings)
		fprintf(f, "; %llu PINGs", (unsigned long long)s->pings);
	if (s->why[0])
		fprintf(f, "; the first failed: %s", s->why);
	fprintf(f, "\n");
	for (int i = 0; i < s->nrss; i++)
		fprintf(f, "rss      %s (pid %d): %.1f MB at rest, %.1f MB with them open, %.1f MB at the end: "
			"%.2f KiB per idle connection\n", s->rss[i].name, s->rss[i].pid,
			s->rss[i].kib[RSS_REST] / 1024.0, s->rss[i].kib[RSS_OPENED] / 1024.0,
			s->rss[i].kib[RSS_END] / 1024.0, per_conn(s, i));
}

void lc_idle_json(FILE *f)
{
	const struct idle_state *s = &lc_idle;

	if (!s->n)
		return;
	fprintf(f, ", \"idle\": {\"n\": %d, \"open_seconds\": %.3f, \"answered\": %u, \"failed\": %u, \"closed\": %u, "
		"\"held\": %d, \"unanswered_at_start\": %d, \"pings\": %llu, \"first_close_s\": %.3f, \"last_close_s\": %.3f, ",
		s->n, s->open_s, atomic_load(&s->answered), atomic_load(&s->failed), s->closed, s->held,
		s->unanswered, (unsigned long long)s->pings, s->first_us / 1e6, s->last_us / 1e6);
	if (s->why[0]) /* WHY no escaping: strerror's text or ours, no quote nor backslash */
		fprintf(f, "\"first_failure\": \"%s\", ", s->why);
	fprintf(f, "\"closed_by_second\": [");
	for (int b = 0; b < IDLE_BUCKETS; b++)
		fprintf(f, "%s%u", b ? ", " : "", s->buckets[b]);
	fprintf(f, "], \"rss\": [");
	for (int i = 0; i < s->nrss; i++)
		fprintf(f, "%s{\"name\": \"%s\", \"pid\": %d, \"rest_kib\": %llu, \"opened_kib\": %llu, "
			"\"end_kib\": %llu, \"kib_per_connection\": %.3f}", i ? ", " : "", s->rss[i].name, s->rss[i].pid,
			(unsigned long long)s->rss[i].kib[RSS_REST], (unsigned long long)s->rss[i].kib[RSS_OPENED],
			(unsigned long long)s->rss[i].kib[RSS_END], per_conn(s, i));
	fprintf(f, "]}");
}

static unsigned num(const struct json *o, const char *key)
{
	double v = json_num(o, key, 0);

	return v > 0 ? (unsigned)v : 0;
}

/* the closes' idle times, min and max over the runs that had some */
static void closes_read(struct idle_state *s, const struct json *o)
{
	uint64_t first = (uint64_t)(json_num(o, "first_close_s", 0) * 1e6),
		 last = (uint64_t)(json_num(o, "last_close_s", 0) * 1e6);
	const struct json *b = json_get(o, "closed_by_second");

	if (!num(o, "closed"))
		return;
	if (!s->closed || first < s->first_us)
		s->first_us = first;
	s->last_us = MAX(s->last_us, last);
	s->closed += num(o, "closed");
	for (size_t k = 0; b && k < b->n && k < IDLE_BUCKETS; k++)
		s->buckets[k] += b->kid[k].num > 0 ? (unsigned)b->kid[k].num : 0;
}

int lc_idle_read(const struct json *run)
{
	struct idle_state *s = &lc_idle;
	const struct json *o = json_get(run, "idle"), *rss = json_get(o, "rss");
	unsigned answered = num(o, "answered");

	if (!o)
		return 0;
	if (!rss || rss->type != JSON_ARR)
		return -1;
	s->n += (int)num(o, "n");
	s->answered += answered;
	s->failed += num(o, "failed");
	s->held += (int)num(o, "held");
	s->unanswered += (int)num(o, "unanswered_at_start");
	s->pings += num(o, "pings");
	s->open_s = MAX(s->open_s, json_num(o, "open_seconds", 0));
	closes_read(s, o);
	if (!s->why[0] && *json_str(o, "first_failure"))
		idle_why_text(s, json_str(o, "first_failure"));
	for (size_t i = 0; i < rss->n && s->nrss < (int)ARRAY_SIZE(s->rss); i++) {
		const struct json *r = &rss->kid[i];

		snprintf(s->rss[s->nrss].name, sizeof(s->rss[0].name), "%s", json_str(r, "name"));
		s->rss[s->nrss].pid = (int)json_num(r, "pid", 0);
		s->rss[s->nrss].merged = 1;
		s->rss[s->nrss].per = answered;
		s->rss[s->nrss].kib[RSS_REST] = (uint64_t)json_num(r, "rest_kib", 0);
		s->rss[s->nrss].kib[RSS_OPENED] = (uint64_t)json_num(r, "opened_kib", 0);
		s->rss[s->nrss++].kib[RSS_END] = (uint64_t)json_num(r, "end_kib", 0);
	}
	return 0;
}

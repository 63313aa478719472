/* hxload --sse's body reader: the body read as it comes as server-sent events (each one's delay, the ones that came bunched), a gzip body inflated first; its report lines. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>
#include <zlib.h>

#include "common.h"
#include "hist.h"
#include "lc_conn.h"
#include "lc_thread.h"
#include "lc_opts.h"
#include "lc_reader.h"

enum { SSE_LINE, SSE_STAMP, SSE_SKIP };

/* WHY these bounds: sent 1 ms or more after the one before and come within
 * a tenth of that, an event was held back and let go with the next; a path
 * that passes each at once keeps the server's spacing */
#define BUNCH_MIN_US 1000
#define BUNCH_SHARE  10

static uint64_t epoch_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* an event whose data: line said it was sent at <ts> came now */
static void event(struct lc_ex *e, struct lc_stats *st, struct lc_rd_sse *s, uint64_t ts)
{
	uint64_t at = epoch_us();

	s->last_us = lc_now_us();
	if (!s->n++)
		s->first_us = s->last_us;
	if (e->counted) {
		hist_add(&st->h[H_EVENT], at > ts ? at - ts : 0);
		if (s->prev_ts && ts >= s->prev_ts) { /* WHY the test: a stream resumed may restart its stamps */
			hist_add(&st->h[H_GAP_SENT], ts - s->prev_ts);
			hist_add(&st->h[H_GAP_RECV], at > s->prev_at ? at - s->prev_at : 0);
		}
		if (s->prev_ts && ts >= s->prev_ts + BUNCH_MIN_US && (at - s->prev_at) * BUNCH_SHARE < ts - s->prev_ts)
			st->bunched++;
	}
	s->prev_ts = ts;
	s->prev_at = at;
}

const struct lc_sse_fig lc_sse_figs[8] = {
	{ "first_event_ms.p50", "first event p50" }, { "first_event_ms.p99", "first event p99" },
	{ "gap_recv_ms.p50", "gap received p50" }, { "gap_recv_ms.p99", "gap received p99" },
	{ "event_ms.p50", "event held p50" }, { "event_ms.p99", "event held p99" },
	{ "last_event_ms.p50", "last event p50" }, { "events.per_second_p50", "events/s p50" },
};

/* a stream answered whole: its first and last event's times, its events per second */
static int sse_end(struct lc_ex *e, struct lc_stats *st)
{
	const struct lc_rd_sse *s = LC_RD(e, sse);
	uint64_t span = s->last_us - s->first_us;

	if (!s->n)
		return 0;
	hist_add(&st->h[H_FIRST_EV], s->first_us > e->sent_us ? s->first_us - e->sent_us : 0);
	hist_add(&st->h[H_LAST_EV], s->last_us > e->sent_us ? s->last_us - e->sent_us : 0);
	if (s->n > 1 && span)
		hist_add(&st->h[H_EV_RATE], (uint64_t)(s->n - 1) * 1000000000ULL / span);
	return 0;
}

/* the events in <n> plain bytes at <p> */
static void parse(struct lc_ex *e, struct lc_stats *st, const char *p, size_t n)
{
	static const char data[] = "data: ";
	struct lc_rd_sse *s = LC_RD(e, sse);

	for (size_t i = 0; i < n; i++) {
		char ch = p[i];

		switch (s->st) {
		case SSE_LINE:
			if (ch == data[s->m]) {
				if (++s->m == sizeof(data) - 1) {
					s->st = SSE_STAMP;
					s->ts = 0;
				}
				break;
			}
			s->st = ch == '\n' ? SSE_LINE : SSE_SKIP;
			s->m = 0;
			break;
		case SSE_STAMP:
			if (ch >= '0' && ch <= '9') {
				s->ts = s->ts * 10 + (uint64_t)(ch - '0');
				break;
			}
			if (s->ts)
				event(e, st, s, s->ts);
			s->st = ch == '\n' ? SSE_LINE : SSE_SKIP;
			s->m = 0;
			break;
		default:
			if (ch == '\n')
				s->st = SSE_LINE;
		}
	}
}

/* Content-Encoding: gzip (a proxy's compression): the body inflated
 * before it is read */
static void sse_head(struct lc_ex *e, const char *n, size_t nl, const char *v, size_t vl)
{
	struct lc_rd_sse *s = LC_RD(e, sse);
	z_stream *z;

	if (nl != 16 || strncasecmp(n, "content-encoding", 16) || vl != 4 || strncasecmp(v, "gzip", 4) || s->z)
		return;
	z = calloc(1, sizeof(*z));
	/* WHY 16 + 15: a gzip wrapper, the largest window */
	if (z && inflateInit2(z, 16 + 15) != Z_OK) {
		free(z);
		z = NULL;
	}
	s->z = z; /* WHY none without memory: the compressed bytes then show no event */
}

/* the inflater freed when the exchange ends */
static void sse_drop(struct lc_ex *e)
{
	struct lc_rd_sse *s = LC_RD(e, sse);

	if (!s->z)
		return;
	inflateEnd(s->z);
	free(s->z);
	s->z = NULL;
}

static void sse_feed(struct lc_ex *e, struct lc_stats *st, const char *p, size_t n)
{
	z_stream *z = LC_RD(e, sse)->z;
	char out[4096];

	if (!z)
		return parse(e, st, p, n);
	z->next_in = (Bytef *)(uintptr_t)p;
	z->avail_in = (uInt)n;
	do {
		int r;

		z->next_out = (Bytef *)out;
		z->avail_out = sizeof(out);
		r = inflate(z, Z_SYNC_FLUSH);
		parse(e, st, out, sizeof(out) - z->avail_out);
		if (r != Z_OK)
			break;
	} while (z->avail_in || !z->avail_out);
}

void lc_sse_json(FILE *f, const struct lc_stats *T)
{
	fprintf(f, "\"n\": %llu, \"streams\": %llu, \"per_second_p50\": %.3f, \"per_second_mean\": %.3f",
		(unsigned long long)T->h[H_EVENT].n, (unsigned long long)T->h[H_FIRST_EV].n,
		hist_quantile(&T->h[H_EV_RATE], 0.5) / 1e3, hist_mean(&T->h[H_EV_RATE]) / 1e3);
}

void lc_sse_text(FILE *f, const struct lc_stats *T)
{
	if (T->h[H_EVENT].n)
		fprintf(f, "events   %llu (--sse; the event row: from the send time each carries to its coming): "
			"%llu came bunched (%.1f %%: sent 1 ms or more after the one before, came within a tenth "
			"of that%s)\n", (unsigned long long)T->h[H_EVENT].n, (unsigned long long)T->bunched,
			100.0 * (double)T->bunched / (double)T->h[H_EVENT].n,
			T->bunched ? ": something on the path held them back" : "");
	if (T->h[H_GAP_SENT].n)
		fprintf(f, "streams  %llu: events/s p50 %.1f; gaps p50 %.3f ms sent, %.3f received; p99 %.3f sent, "
			"%.3f received (first_event, last_event: from the send; the event row: what the path held "
			"each back)\n", (unsigned long long)T->h[H_FIRST_EV].n, hist_quantile(&T->h[H_EV_RATE], 0.5) / 1e3,
			hist_quantile(&T->h[H_GAP_SENT], 0.5) / 1e3, hist_quantile(&T->h[H_GAP_RECV], 0.5) / 1e3,
			hist_quantile(&T->h[H_GAP_SENT], 0.99) / 1e3, hist_quantile(&T->h[H_GAP_RECV], 0.99) / 1e3);
}

static const struct row sse_rows[] = {
	LC_ROW("events", "bunched", bunched),
};

const struct lc_reader lc_rd_sse = {
	.name = "sse", .state = sizeof(struct lc_rd_sse), .head = sse_head, .feed = sse_feed, .end = sse_end,
	.drop = sse_drop, .rows = sse_rows, .nrows = ARRAY_SIZE(sse_rows),
};

/* hxload --sse and grpc://: a body read as it comes, as server-sent events (each one's delay, the ones that came bunched) or as gRPC messages (counted). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

#include "hist.h"
#include "lc_conn.h"
#include "lc_opts.h"

/* WHY here, set by each thread as it starts: the readers below count into
 * its figures, and the thread's file then calls this one, never back */
__thread struct lc_thread *lc_self;

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
static void event(struct lc_ex *e, uint64_t ts)
{
	uint64_t at = epoch_us();
	struct lc_stats *st = &lc_self->st;

	e->sse_last_us = lc_now_us();
	if (!e->sse_n++)
		e->sse_first_us = e->sse_last_us;
	if (e->counted) {
		hist_add(&st->h[H_EVENT], at > ts ? at - ts : 0);
		if (e->sse_prev_ts && ts >= e->sse_prev_ts) { /* WHY the test: a stream resumed may restart its stamps */
			hist_add(&st->h[H_GAP_SENT], ts - e->sse_prev_ts);
			hist_add(&st->h[H_GAP_RECV], at > e->sse_prev_at ? at - e->sse_prev_at : 0);
		}
		if (e->sse_prev_ts && ts >= e->sse_prev_ts + BUNCH_MIN_US &&
		    (at - e->sse_prev_at) * BUNCH_SHARE < ts - e->sse_prev_ts)
			st->bunched++;
	}
	e->sse_prev_ts = ts;
	e->sse_prev_at = at;
}

const struct lc_sse_fig lc_sse_figs[8] = {
	{ "first_event_ms.p50", "first event p50" }, { "first_event_ms.p99", "first event p99" },
	{ "gap_recv_ms.p50", "gap received p50" }, { "gap_recv_ms.p99", "gap received p99" },
	{ "event_ms.p50", "event held p50" }, { "event_ms.p99", "event held p99" },
	{ "last_event_ms.p50", "last event p50" }, { "events.per_second_p50", "events/s p50" },
};

void lc_sse_end(const struct lc_ex *e)
{
	struct lc_stats *st = &lc_self->st;
	uint64_t span = e->sse_last_us - e->sse_first_us;

	hist_add(&st->h[H_FIRST_EV], e->sse_first_us > e->sent_us ? e->sse_first_us - e->sent_us : 0);
	hist_add(&st->h[H_LAST_EV], e->sse_last_us > e->sent_us ? e->sse_last_us - e->sent_us : 0);
	if (e->sse_n > 1 && span)
		hist_add(&st->h[H_EV_RATE], (uint64_t)(e->sse_n - 1) * 1000000000ULL / span);
}

/* the events in <n> plain bytes at <p> */
static void parse(struct lc_ex *e, const char *p, size_t n)
{
	static const char data[] = "data: ";

	for (size_t i = 0; i < n; i++) {
		char ch = p[i];

		switch (e->sse_st) {
		case SSE_LINE:
			if (ch == data[e->sse_m]) {
				if (++e->sse_m == sizeof(data) - 1) {
					e->sse_st = SSE_STAMP;
					e->sse_ts = 0;
				}
				break;
			}
			e->sse_st = ch == '\n' ? SSE_LINE : SSE_SKIP;
			e->sse_m = 0;
			break;
		case SSE_STAMP:
			if (ch >= '0' && ch <= '9') {
				e->sse_ts = e->sse_ts * 10 + (uint64_t)(ch - '0');
				break;
			}
			if (e->sse_ts)
				event(e, e->sse_ts);
			e->sse_st = ch == '\n' ? SSE_LINE : SSE_SKIP;
			e->sse_m = 0;
			break;
		default:
			if (ch == '\n')
				e->sse_st = SSE_LINE;
		}
	}
}

void lc_sse_gzip(struct lc_ex *e)
{
	z_stream *z = calloc(1, sizeof(*z));

	/* WHY 16 + 15: a gzip wrapper, the largest window */
	if (z && inflateInit2(z, 16 + 15) != Z_OK) {
		free(z);
		z = NULL;
	}
	e->sse_z = z; /* WHY none without memory: the compressed bytes then show no event */
}

void lc_sse_done(struct lc_ex *e)
{
	inflateEnd(e->sse_z);
	free(e->sse_z);
	e->sse_z = NULL;
}

void lc_sse_feed(struct lc_ex *e, const char *p, size_t n)
{
	z_stream *z = e->sse_z;
	char out[4096];

	if (!z)
		return parse(e, p, n);
	z->next_in = (Bytef *)(uintptr_t)p;
	z->avail_in = (uInt)n;
	do {
		int r;

		z->next_out = (Bytef *)out;
		z->avail_out = sizeof(out);
		r = inflate(z, Z_SYNC_FLUSH);
		parse(e, out, sizeof(out) - z->avail_out);
		if (r != Z_OK)
			break;
	} while (z->avail_in || !z->avail_out);
}

void lc_grpc_feed(struct lc_ex *e, const char *p, size_t n)
{
	while (n) {
		if (e->gr_head) { /* the prefix: a flag byte, then the length, big-endian */
			if (e->gr_head <= 4)
				e->gr_left = e->gr_left << 8 | (uint8_t)*p;
			p++, n--;
			if (--e->gr_head)
				continue;
			if (e->counted)
				lc_self->st.grpc_msgs++;
		} else {
			size_t k = MIN(n, (size_t)e->gr_left);

			p += k, n -= k;
			e->gr_left -= (uint32_t)k;
		}
		if (!e->gr_head && !e->gr_left)
			e->gr_head = 5;
	}
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

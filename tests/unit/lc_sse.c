/* hxload --sse's stream statistics (its body reader, rd_sse.c) on synthetic events: gaps as stamped and as come, bunched events, a stream's first and last event and its rate. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lc_conn.h"
#include "lc_record.h"
#include "lc_thread.h"
#include "tap.h"

static struct lc_thread th;

static uint64_t epoch_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* one event as hxterm's sse=1 writes it, stamped <ts>, fed in one piece */
static void feed(struct lc_ex *e, uint64_t id, uint64_t ts)
{
	char b[128];
	int n = snprintf(b, sizeof(b), "id: %010llu\ndata: %016llu .123456789\n\n", (unsigned long long)id,
			 (unsigned long long)ts);

	lc_rd_sse.feed(e, &th.st, b, (size_t)n);
}

/* events stamped 2 s apart that all come now: a proxy held them. WHY
 * seconds: "bunched" is within a tenth of the gap, and a test stalled for a
 * while on a busy machine still reads them within 200 ms */
static void held_back(void)
{
	struct lc_ex e = { .counted = 1 };
	uint64_t now = epoch_us();
	struct lc_stats *st = &th.st;

	for (uint64_t i = 0; i < 5; i++)
		feed(&e, i + 1, now - 8000000 + i * 2000000);
	lc_rd_sse.feed(&e, &th.st, "data: [DONE]\n\n", 14);
	is_int(st->h[H_EVENT].n, 5, "five events read, [DONE] not one");
	is_int(st->h[H_GAP_SENT].n, 4, "four gaps, between each event and the one before");
	ok(hist_quantile(&st->h[H_GAP_SENT], 0.5) >= 1960000 && hist_quantile(&st->h[H_GAP_SENT], 0.5) <= 2040000,
	   "gaps as sent: 2 s by the stamps (p50 %llu us)", (unsigned long long)hist_quantile(&st->h[H_GAP_SENT], 0.5));
	ok(hist_quantile(&st->h[H_GAP_RECV], 0.99) < 200000, "gaps as come: at once (p99 %llu us)",
	   (unsigned long long)hist_quantile(&st->h[H_GAP_RECV], 0.99));
	is_int(st->bunched, 4, "the four after the first came bunched");
	ok(st->h[H_EVENT].max >= 7900000, "the first held back 8 s (event max %llu us)",
	   (unsigned long long)st->h[H_EVENT].max);
	is_int(LC_RD(&e, sse)->n, 5, "the stream counted five events");
}

/* a stream's ends: the first event 200 ms after the send, 4 more over 80 ms */
static void stream_end(void)
{
	struct lc_ex e = { .counted = 1, .sent_us = 1000000,
			   .rd.sse = { .first_us = 1200000, .last_us = 1280000, .n = 5 } };
	struct lc_stats *st = &th.st;

	memset(st, 0, sizeof(*st));
	lc_rd_sse.end(&e, st);
	ok(hist_quantile(&st->h[H_FIRST_EV], 0.5) >= 196000 && hist_quantile(&st->h[H_FIRST_EV], 0.5) <= 204000,
	   "first event 200 ms after the send (%llu us)", (unsigned long long)hist_quantile(&st->h[H_FIRST_EV], 0.5));
	ok(st->h[H_LAST_EV].max >= 276000 && st->h[H_LAST_EV].max <= 284000, "last event 280 ms after it");
	ok(hist_quantile(&st->h[H_EV_RATE], 0.5) >= 49000 && hist_quantile(&st->h[H_EV_RATE], 0.5) <= 51000,
	   "4 events in 80 ms after the first: 50 a second (%llu thousandths)",
	   (unsigned long long)hist_quantile(&st->h[H_EV_RATE], 0.5));
	e.rd.sse.n = 1;
	lc_rd_sse.end(&e, st);
	is_int(st->h[H_EV_RATE].n, 1, "one event alone gives no rate");
	is_int(st->h[H_FIRST_EV].n, 2, "... but its first event's time");
	e.rd.sse.n = 0;
	lc_rd_sse.end(&e, st);
	is_int(st->h[H_FIRST_EV].n, 2, "a stream without an event: no first event's time");
}

int main(void)
{
	lc_self = &th;
	held_back();
	stream_end();
	return done_testing();
}

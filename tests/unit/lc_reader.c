/* hxload's body readers' table (readers.c, rd_*.c): the one a run picks, the grpc and verify readers on bodies made here, their counter rows among the report's. */
#include <stdint.h>
#include <string.h>

#include "body.h"
#include "lc_cli.h"
#include "lc_conn.h"
#include "lc_record.h"
#include "lc_thread.h"
#include "lc_reader.h"
#include "tap.h"

static struct lc_thread th;

static void pick(void)
{
	struct lc_opts o = { 0 };
	struct lc_target tg = { 0 };

	ok(lc_reader_pick(&o, &tg) == &lc_rd_plain, "no option: the plain reader");
	o.verify = 1;
	ok(lc_reader_pick(&o, &tg) == &lc_rd_verify, "--verify: the verify reader");
	tg.grpc = 1;
	ok(lc_reader_pick(&o, &tg) == &lc_rd_grpc, "grpc://: the grpc reader");
	o.sse = 1;
	ok(lc_reader_pick(&o, &tg) == &lc_rd_sse, "--sse: the sse reader, before grpc");
	ok(!lc_rd_plain.feed && !lc_rd_plain.end && !lc_rd_plain.nrows, "the plain reader: no hook, no row");
	for (size_t i = 0; i < lc_nreaders; i++)
		ok(lc_readers[i]->state <= sizeof(union lc_rd_slot), "%s: its state fits the slot (%zu bytes)",
		   lc_readers[i]->name, lc_readers[i]->state);
}

/* a gRPC message of <n> bytes, its 5-byte prefix first, into <b> */
static size_t message(char *b, uint32_t n)
{
	b[0] = 0;
	b[1] = (char)(n >> 24), b[2] = (char)(n >> 16), b[3] = (char)(n >> 8), b[4] = (char)n;
	memset(b + 5, 'm', n);
	return 5 + n;
}

static void grpc(void)
{
	struct lc_ex e = { .counted = 1 };
	struct lc_stats *st = &th.st;
	char b[600];
	size_t n = message(b, 300);

	n += message(b + n, 0);
	n += message(b + n, 7);
	memset(st, 0, sizeof(*st));
	lc_rd_grpc.init(&e);
	for (size_t i = 0; i < n; i += 4) /* WHY 4: prefixes cut anywhere */
		lc_rd_grpc.feed(&e, st, b + i, n - i < 4 ? n - i : 4);
	is_int(st->grpc_msgs, 3, "three messages, one empty, fed 4 bytes at a time");
	lc_rd_grpc.head(&e, "grpc-status", 11, "14", 2);
	is_int(lc_rd_grpc.end(&e, st), 0, "the call ends");
	is_int(st->grpc[14], 1, "... counted as grpc-status 14");
	memset(&e, 0, sizeof(e));
	lc_rd_grpc.end(&e, st);
	is_int(st->grpc[LC_GRPC_CODES], 1, "a call without grpc-status: counted as none");
}

static void verify(void)
{
	struct lc_ex e = { .counted = 1, .announced = -1 };
	struct lc_stats *st = &th.st;
	char bad[10];

	memset(st, 0, sizeof(*st));
	lc_rd_verify.feed(&e, st, body_line, 40);
	e.bytes += 40;
	lc_rd_verify.feed(&e, st, body_line + 40, 10);
	e.bytes += 10;
	lc_rd_verify.feed(&e, st, body_line, 10); /* WHY: the pattern's line repeats */
	e.bytes += 10;
	is_int(lc_rd_verify.end(&e, st), 0, "the pattern, in pieces, past its line's end: right");
	ok(st->verified == 1 && st->verified_bytes == 60, "... one body, 60 bytes verified");
	e.announced = 61;
	e.status = 200;
	is_int(lc_rd_verify.end(&e, st), -1, "X-rsp said 61 bytes, 60 came: a body error");
	memset(&e, 0, sizeof(e));
	e.announced = -1;
	memcpy(bad, body_line, sizeof(bad));
	bad[7] ^= 1;
	lc_rd_verify.feed(&e, st, bad, sizeof(bad));
	is_int(lc_rd_verify.end(&e, st), -1, "a byte off the pattern: a body error");
	memset(&e, 0, sizeof(e));
	e.announced = -1;
	e.random = 1;
	lc_rd_verify.feed(&e, st, bad, sizeof(bad));
	is_int(lc_rd_verify.end(&e, st), 0, "a random body (R=1) is not the pattern's to check");
}

/* each reader's rows are among the report's counters, once */
static void rows(void)
{
	size_t n = lc_counters_n();
	int found = 0;

	for (size_t r = 0; r < lc_nreaders; r++)
		for (size_t i = 0; i < lc_readers[r]->nrows; i++)
			for (size_t k = 0; k < n; k++)
				found += lc_counter(k) == &lc_readers[r]->rows[i];
	is_int(found, lc_rd_sse.nrows + lc_rd_grpc.nrows + lc_rd_verify.nrows, "every reader's row once among the counters");
	ok(lc_counter(n - 1) && !lc_counter(n), "%zu rows, none past them", n);
}

int main(void)
{
	lc_self = &th;
	lc_opts.method = "GET";
	pick();
	grpc();
	verify();
	rows();
	return done_testing();
}

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

/* each reader's rows are one of the counter tables, once, after the report's own */
static void rows(void)
{
	const struct row *t;
	size_t n, i;
	int found = 0;

	for (i = 1; (t = lc_rows(i, &n)); i++)
		for (size_t r = 0; r < lc_nreaders; r++)
			found += t == lc_readers[r]->rows && n == lc_readers[r]->nrows;
	is_int(found, (int)lc_nreaders, "every reader's rows a table of the counters, once");
	is_int((int)i, (int)lc_nreaders + 1, "the tables: the report's, then one a reader, none past them");
	t = lc_rows(0, &n);
	ok(t && n > 30, "the report's own table first (%zu rows)", n);
}

/* rows_add adds each row's counters, rows_json writes a group's rows, a
 * labelled row as an object, and leaves out a value not in use */
static void shared_rows(void)
{
	static const char *const lv[3] = { "a", NULL, "c" };
	const struct row t[] = {
		{ .json = "x", .n = 1, .off = 0 },
		{ .group = "g", .json = "y", .n = 1, .off = 8 },
		{ .json = "z", .label = "k", .lv = lv, .n = 3, .off = 16 },
	};
	uint64_t a[5] = { 1, 2, 3, 4, 5 }, b[5] = { 10, 20, 30, 40, 50 };
	char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	const struct row_out o = { rows_fput, f };

	rows_add(t, 3, a, b);
	is_int((int)(a[0] + a[1] + a[2] + a[3] + a[4]), 165, "rows_add: every counter of every row added");
	rows_json(&o, t, 3, a, NULL);
	rows_json(&o, t, 3, a, "g");
	fclose(f);
	is_str(buf, ", \"x\": 11, \"z\": {\"a\": 33, \"c\": 55}, \"y\": 22",
	       "rows_json: the top level's rows, then the group's; the value not in use left out");
}

int main(void)
{
	lc_self = &th;
	lc_opts.method = "GET";
	pick();
	grpc();
	verify();
	rows();
	shared_rows();
	return done_testing();
}

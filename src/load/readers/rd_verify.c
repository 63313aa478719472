/* hxload --verify's body reader: every body byte against hxterm's pattern, the length against X-rsp's size; a body off either is a body error. */
#include <stddef.h>
#include <string.h>

#include "body.h"
#include "common.h"
#include "lc_conn.h"
#include "lc_reader.h"

static void verify_feed(struct lc_ex *e, struct lc_stats *st, const char *p, size_t n)
{
	struct lc_rd_verify *v = LC_RD(e, verify);

	(void)st;
	if (v->bad || e->random)
		return;
	for (size_t i = 0; i < n; i++)
		if (p[i] != body_line[(e->bytes + i) % BODY_LINE]) {
			v->bad = 1;
			return;
		}
}

static int verify_end(struct lc_ex *e, struct lc_stats *st)
{
	if (LC_RD(e, verify)->bad ||
	    (e->announced >= 0 && e->status != 204 && e->status != 304 && strcmp(lc_o->method, "HEAD") &&
	     (uint64_t)e->announced != e->bytes))
		return -1;
	st->verified += !e->random;
	st->verified_bytes += !e->random ? e->bytes : 0;
	return 0;
}

static const struct row verify_rows[] = {
	LC_ROW("verify", "bodies", verified),
	LC_ROW("verify", "bytes", verified_bytes),
};

const struct lc_reader lc_rd_verify = {
	.name = "verify", .state = sizeof(struct lc_rd_verify), .feed = verify_feed, .end = verify_end,
	.rows = verify_rows, .nrows = ARRAY_SIZE(verify_rows),
};

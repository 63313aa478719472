/* hxload's body readers' table: the row of each, the one this run picked. */
#include "common.h"
#include "lc_reader.h"

/* WHY this order: --sse reads a grpc:// body as events too, and neither
 * has hxterm's pattern to verify */
const struct lc_reader *const lc_readers[] = { &lc_rd_sse, &lc_rd_grpc, &lc_rd_verify, &lc_rd_plain };
const size_t lc_nreaders = ARRAY_SIZE(lc_readers);
const struct lc_reader *lc_rd = &lc_rd_plain;

_Static_assert(sizeof(union lc_rd_slot) == LC_RD_WORDS * 8, "a reader's state outgrew the exchange's slot");

const struct lc_reader *lc_reader_pick(const struct lc_opts *o, const struct lc_target *tg)
{
	if (o->sse)
		return &lc_rd_sse;
	if (tg->grpc)
		return &lc_rd_grpc;
	return o->verify ? &lc_rd_verify : &lc_rd_plain;
}

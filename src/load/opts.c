/* hxload's options and target: the objects the command line fills, read-only (lc_o, lc_tg) once it is parsed. */
#include "lc_cli.h"

/* its defaults: the rows' (cli.c), but one shard of one (WHY here: no row
 * but --shard's own sets it, and the schedule multiplies by it) */
struct lc_opts lc_opts = { .shards = 1 };
struct lc_target lc_target;
const struct lc_opts *const lc_o = &lc_opts;
const struct lc_target *const lc_tg = &lc_target;

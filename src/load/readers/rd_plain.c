/* hxload's plain body reader: the body's bytes counted (by the caller), nothing read in them: no hook, no state, no row. */
#include "lc_reader.h"

const struct lc_reader lc_rd_plain = { .name = "plain" };

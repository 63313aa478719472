/* hxload's options and target: the objects the command line fills, read-only (lc_o, lc_tg) once it is parsed. */
#include "lc_cli.h"

struct lc_opts lc_opts;       /* its defaults: the rows' (cli.c) */
struct lc_target lc_target;
const struct lc_opts *const lc_o = &lc_opts;
const struct lc_target *const lc_tg = &lc_target;

/* hxload's grpc:// body reader: length-prefixed messages counted, the call's grpc-status (a trailer) kept and counted by code. */
#include <stddef.h>
#include <string.h>

#include "common.h"
#include "lc_conn.h"
#include "lc_reader.h"

static void grpc_init(struct lc_ex *e)
{
	LC_RD(e, grpc)->head = 5;
}

static void grpc_head(struct lc_ex *e, const char *n, size_t nl, const char *v, size_t vl)
{
	if (nl == 11 && !memcmp(n, "grpc-status", 11) && vl >= 1 && vl <= 2)
		LC_RD(e, grpc)->status = (uint8_t)(1 + (vl == 1 ? v[0] - '0' : (v[0] - '0') * 10 + v[1] - '0'));
}

static void grpc_feed(struct lc_ex *e, struct lc_stats *st, const char *p, size_t n)
{
	struct lc_rd_grpc *g = LC_RD(e, grpc);

	while (n) {
		if (g->head) { /* the prefix: a flag byte, then the length, big-endian */
			if (g->head <= 4)
				g->left = g->left << 8 | (uint8_t)*p;
			p++, n--;
			if (--g->head)
				continue;
			if (e->counted)
				st->grpc_msgs++;
		} else {
			size_t k = MIN(n, (size_t)g->left);

			p += k, n -= k;
			g->left -= (uint32_t)k;
		}
		if (!g->head && !g->left)
			g->head = 5;
	}
}

/* the call by its grpc-status, "none" when it came without */
static int grpc_end(struct lc_ex *e, struct lc_stats *st)
{
	uint8_t s = LC_RD(e, grpc)->status;

	st->grpc[s && s <= LC_GRPC_CODES ? s - 1 : LC_GRPC_CODES]++;
	return 0;
}

#define C(f, n) LC_ROW("grpc", n, f)
static const struct row grpc_rows[] = {
#define G(k, name) C(grpc[k], name),
	LC_GRPC_LIST(G)
#undef G
	C(grpc_msgs, "messages"),
};
#undef C

const struct lc_reader lc_rd_grpc = {
	.name = "grpc", .state = sizeof(struct lc_rd_grpc), .init = grpc_init, .head = grpc_head, .feed = grpc_feed,
	.end = grpc_end, .rows = grpc_rows, .nrows = ARRAY_SIZE(grpc_rows),
};

/* HTTP/2's row of the protocol table: the shell (h2_conn.c) given its two engines, ours (h2_hx.c) and nghttp2's (h2_ng.c). */
#include "h2_conn.h"
#include "h2_eng.h"

static int h2_init(void)
{
	h2c_engines(&h2_eng_hx, &h2_eng_ng);
	return h2_ng_init();
}

const struct proto proto_h2 = {
	.name = "h2",
	.alpn = "h2",
	.init = h2_init,
	.free = h2_ng_free,
	.thread_init = h2_thread_init,
	.close_all = h2_close_all,
	.thread_free = h2_thread_free,
	.trim = h2_trim,
	.start = h2c_start,
	.drain = h2c_drain,
};

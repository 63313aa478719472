/* hxload's client protocols: their rows by enum lc_proto, their libraries' globals made and freed around the run. */
#include "common.h"
#include "lc_conn.h"
#include "lc_thread.h"

/* LC_AUTO: chosen by ALPN, no row of its own; HTTP/2's by --h2-engine */
static const struct lc_protocol *protos[LC_NPROTO] = { [LC_H1] = &lc_h1, [LC_H2] = &lc_h2x, [LC_H3] = &lc_h3,
							[LC_WS] = &lc_ws };

int lc_protos_init(void)
{
	protos[LC_H2] = lc_o->h2_nghttp2 ? &lc_h2 : &lc_h2x;
	lc_conn_protocols(protos);
	for (size_t i = LC_H1; i < ARRAY_SIZE(protos); i++)
		if (protos[i]->global_init && protos[i]->global_init() < 0)
			return -1;
	return 0;
}

void lc_protos_free(void)
{
	for (size_t i = LC_H1; i < ARRAY_SIZE(protos); i++)
		if (protos[i]->global_free)
			protos[i]->global_free();
}

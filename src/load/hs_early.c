/* hxload --handshakes 0-RTT over TCP (HTTP/1.1): the connection's request written as TLS 1.3 early data, sent again after the handshake when the server refuses it. */
#include <openssl/ssl.h>

#include "lc_conn.h"
#include "lc_record.h"
#include "lc_thread.h"

#define HS_EARLY_SENT 2 /* c->hs_early while the server has not said */

int lc_hs_early_send(struct lc_conn *c)
{
	SSL_SESSION *s = SSL_get0_session(c->nc.x.ssl);
	struct lc_ex *e = &c->ex[0];
	const struct lc_path *p;
	size_t n;

	if (!lc_o->hs || c->hs_kind != HS_0RTT || lc_tg->proto != LC_H1 || !c->hs_offered || !s ||
	    !SSL_SESSION_get_max_early_data(s) || !lc_take(c, e))
		return 0;
	p = &lc_tg->paths[e->path];
	c->ex_head = 0;
	c->inflight = 1;
	/* WHY no retry: a fresh socket takes a ClientHello and a request whole */
	if (p->reqlen > SSL_SESSION_get_max_early_data(s) || SSL_write_early_data(c->nc.x.ssl, p->req, p->reqlen, &n) != 1 ||
	    n != p->reqlen) {
		lc_error(c, E_TLS);
		return -1;
	}
	c->hs_early = HS_EARLY_SENT;
	return 0;
}

int lc_hs_early_end(struct lc_conn *c)
{
	struct lc_thread *t = c->t;

	if (c->hs_early != HS_EARLY_SENT)
		return 0;
	c->hs_early = SSL_get_early_data_status(c->nc.x.ssl) == SSL_EARLY_DATA_ACCEPTED;
	if (lc_in_window(t, t->loop.now_us)) {
		t->st.early += c->hs_early;
		t->st.early_rejected += !c->hs_early;
	}
	return !c->hs_early;
}

/* hxload's HTTP/3 client: sessions to resume (TLS tickets with the server's transport parameters) and 0-RTT. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "lc_h3.h"

/* a thread's sessions to resume are blobs of [a byte, 1 once offered; 2
 * bytes of length, the server's transport parameters; 4 bytes of length,
 * GnuTLS's session data] */

static int ticket_hook(gnutls_session_t s, unsigned htype, unsigned when, unsigned incoming, const gnutls_datum_t *msg)
{
	ngtcp2_crypto_conn_ref *ref = gnutls_session_get_ptr(s);
	struct q *q = container_of(ref, struct q, ref);
	struct lc_thread *t = q->c->t;
	const ngtcp2_transport_params *rtp = ngtcp2_conn_get_remote_transport_params(q->conn);
	uint8_t tp[512], *b;
	ngtcp2_ssize n = rtp ? ngtcp2_encode_transport_params(tp, sizeof(tp),
							     NGTCP2_TRANSPORT_PARAMS_TYPE_ENCRYPTED_EXTENSIONS, rtp) : -1;
	gnutls_datum_t d;

	(void)htype, (void)when, (void)incoming, (void)msg;
	if (n < 0 || gnutls_session_get_data2(s, &d))
		return 0;
	if ((b = malloc(3 + (size_t)n + 4 + d.size))) {
		b[0] = 0, b[1] = (uint8_t)(n >> 8), b[2] = (uint8_t)n;
		memcpy(b + 3, tp, (size_t)n);
		memcpy(b + 3 + n, &d.size, 4);
		memcpy(b + 7 + n, d.data, d.size);
		if (t->nqtick == LC_TICKETS) {
			free(t->qtick[0]);
			memmove(t->qtick, t->qtick + 1, (LC_TICKETS - 1) * sizeof(t->qtick[0]));
			t->nqtick--;
		}
		t->qtick[t->nqtick++] = b;
	}
	q->ticket = 1;
	gnutls_free(d.data);
	return 0;
}

/* the session a new connection offers: the thread's newest, or NULL */
uint8_t *lc_h3_ticket_peek(struct lc_thread *t)
{
	return lc_o->no_resume || !t->nqtick ? NULL : t->qtick[t->nqtick - 1];
}

/* 0-RTT on <b>: with --0rtt, on a session not offered before (a server
 * refuses 0-RTT on a ticket it saw twice, and GnuTLS, told early data may
 * come, fails the handshake when it does not) */
int lc_h3_ticket_early(const uint8_t *b)
{
	return b && lc_o->zero_rtt && !b[0];
}

/* offers <b> (lc_h3_ticket_peek), each session once (a TLS 1.3 ticket is for one
 * use) but the last, which is offered again (a --close connection whose
 * answer came in 0.5-RTT is gone before the server's ticket comes); with
 * <early> the server's last transport parameters let requests go before
 * the handshake ends. 0, or -1 */
int lc_h3_resume(struct q *q, uint8_t *b, int early)
{
	struct lc_thread *t = q->c->t;
	size_t n;
	unsigned dlen;
	ngtcp2_transport_params tp;
	int rv = 0;

	gnutls_handshake_set_hook_function(q->tls, GNUTLS_HANDSHAKE_NEW_SESSION_TICKET, GNUTLS_HOOK_POST, ticket_hook);
	if (!b)
		return 0;
	n = (size_t)b[1] << 8 | b[2];
	memcpy(&dlen, b + 3 + n, 4);
	if (gnutls_session_set_data(q->tls, b + 7 + n, dlen) == 0 && early &&
	    ngtcp2_decode_transport_params(&tp, NGTCP2_TRANSPORT_PARAMS_TYPE_ENCRYPTED_EXTENSIONS, b + 3, n) == 0) {
		ngtcp2_conn_set_early_remote_transport_params(q->conn, &tp);
		q->early = 1;
		rv = lc_h3_session_open(q);
	}
	b[0] = 1;
	if (t->nqtick > 1)
		free(t->qtick[--t->nqtick]);
	return rv;
}

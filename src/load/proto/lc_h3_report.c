/* hxload's HTTP/3 client: what it saw of QUIC (datagrams both ways, GRO and GSO, its UDP drops, waits on MAX_STREAMS), added to its thread's figures. */
#include "lc_h3.h"

/* the figures of <q>'s thread while its window is open, else NULL */
static struct lc_h3_stats *counted(struct q *q)
{
	struct lc_thread *t = q->c->t;

	return lc_in_window(t, t->loop.now_us) ? &t->st.h3 : NULL;
}

void lc_h3_tally_read(struct q *q, size_t len, size_t seg, uint32_t ovfl)
{
	struct lc_h3_stats *s = counted(q);

	/* WHY the whole run: a drop is the client's limit whenever it comes */
	q->c->t->st.h3.udp_drops += (uint32_t)(ovfl - q->ovfl);
	q->ovfl = ovfl;
	if (!s)
		return;
	s->reads++;
	s->dgrams_in += (len + seg - 1) / seg;
	s->gro_reads += len > seg;
}

void lc_h3_tally_sent(struct q *q, const struct qw_tally *w)
{
	struct lc_h3_stats *s = counted(q);

	if (!s)
		return;
	s->dgrams_out += w->datagrams;
	s->sends += w->sends;
	s->gso_sends += w->gso;
}

void lc_h3_limited(struct q *q)
{
	struct lc_h3_stats *s = counted(q);

	if (q->limited_at)
		return;
	q->limited_at = lc_now_us();
	if (s)
		s->limited++;
}

int lc_h3_max_streams(ngtcp2_conn *conn, uint64_t max, void *user)
{
	struct q *q = user;
	struct lc_h3_stats *s = counted(q);
	const ngtcp2_transport_params *tp = ngtcp2_conn_get_remote_transport_params(conn);
	uint64_t was = q->max_streams ? q->max_streams : tp ? tp->initial_max_streams_bidi : 0;

	if (s && max > was)
		s->raised++;
	q->max_streams = max;
	if (q->limited_at && s)
		s->limited_us += lc_now_us() - q->limited_at;
	q->limited_at = 0;
	return 0;
}

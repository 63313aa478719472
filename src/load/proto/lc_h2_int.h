/* What hxload's two HTTP/2 clients share (lc_h2.c on nghttp2, lc_h2x.c our own): a stream's exchange, a response field, a stream's end, the server's stream limit and GOAWAY, a request's fields. */
#ifndef HX_LC_H2_INT_H
#define HX_LC_H2_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common.h"
#include "hpack.h"
#include "lc_conn.h"
#include "lc_thread.h"

#define LC_H2_REFUSED 7u        /* REFUSED_STREAM (RFC 9113 7) */
#define LC_H2_FIELDS  (4 + 3 + 32) /* a request's fields at most: pseudo, gRPC's, -H */
#define LC_H2_STREAMS 100u      /* the server's stream limit until its SETTINGS say (nghttp2's choice) */

/* lc_h2_ex() when the hint missed */
struct lc_ex *lc_h2_ex_scan(struct lc_conn *c, int32_t id);

/* <c>'s exchange on stream <id> (> 0), NULL: none. WHY the hint first:
 * called for each header, and a response's headers come together; the
 * scan alone, with the slots a stride apart (LC_EX), cost 63 instructions
 * a request more than with them side by side */
static inline struct lc_ex *lc_h2_ex(struct lc_conn *c, int32_t id)
{
	struct lc_ex *e = LC_EX(c, c->ex_hint);

	return c->ex_hint < c->ex_used && e->id == id ? e : lc_h2_ex_scan(c, id);
}

/* a response field of <e>'s (NULL: a stream we forgot: nothing) */
void lc_h2_field(struct lc_conn *c, struct lc_ex *e, const uint8_t *n, size_t nl, const uint8_t *v, size_t vl);
/* <e>'s stream closed with <code> (0: its answer whole): recorded, retried
 * (REFUSED_STREAM) or failed; its slot free */
void lc_h2_closed(struct lc_conn *c, struct lc_ex *e, uint32_t code);
/* the server's SETTINGS_MAX_CONCURRENT_STREAMS: <v>; its changes after the first counted */
void lc_h2_limit(struct lc_conn *c, uint32_t v);
/* the server's first SETTINGS came (with or without a limit) */
static inline void lc_h2_settings_done(struct lc_conn *c)
{
	c->h2_set = 1;
}
/* the server's GOAWAY: <code>, its last stream <last> */
void lc_h2_goaway(struct lc_conn *c, uint32_t code, int32_t last);
/* the read ended with <n> (lc_conn_recv's 0, XPRT_ERROR, LC_RECV_REFUSED):
 * 1 when the server closed after a graceful GOAWAY's streams, else -1 (an
 * error counted) */
int lc_h2_ended(struct lc_conn *c, long n);
/* a frame of <type> began on stream <sid>: one past the server's own GOAWAY is counted */
static inline void lc_h2_frame_begins(struct lc_conn *c, uint8_t type, int32_t sid)
{
	if (unlikely(c->goaway) && sid > c->goaway_sid && type <= 1) /* DATA, HEADERS */
		c->t->st.past_goaway++;
}
/* <e>'s request fields into <f> (LC_H2_FIELDS of them): their count */
size_t lc_h2_fields(const struct lc_ex *e, struct hpk_field *f);
/* a request body's bytes: 'u', a gRPC call's zeros (an empty message) */
static inline void lc_h2_body(uint8_t *p, size_t n)
{
	memset(p, lc_tg->grpc ? 0 : 'u', n);
}

#endif

/* hxload's body readers: how an answer's body is read (plain, verify, sse, grpc), one row each, picked once per run; each owns its slot of the exchange and its counter rows. */
#ifndef HX_LC_READER_H
#define HX_LC_READER_H

#include <stddef.h>
#include <stdint.h>

#include "lc_opts.h"
#include "lc_stats.h"

struct lc_ex;

#define LC_RD_WORDS 8 /* the exchange's slot for its reader: 64 bytes at most */

/* One reader. The exchange's slot is zeroed when the exchange starts; the
 * hooks a reader does without are NULL (the plain reader has none). */
struct lc_reader {
	const char *name;            /* "plain", "verify", "sse", "grpc" */
	size_t state;                /* the bytes of the slot it uses (at most LC_RD_WORDS * 8) */
	/* the exchange starts: its slot set up beyond zeros */
	void (*init)(struct lc_ex *e);
	/* a field of the answer's head (trailers too on h2): <n> lower case */
	void (*head)(struct lc_ex *e, const char *n, size_t nl, const char *v, size_t vl);
	/* <n> body bytes (before e->bytes counts them); what they show counts
	 * into <st>, the thread's figures */
	void (*feed)(struct lc_ex *e, struct lc_stats *st, const char *p, size_t n);
	/* the exchange answered, in the window: its figures into <st>; -1: the
	 * body was wrong (a body error, the answer not counted) */
	int (*end)(struct lc_ex *e, struct lc_stats *st);
	/* the exchange is over, counted or not: what its slot holds freed */
	void (*drop)(struct lc_ex *e);
	const struct row *rows;      /* its counters in struct lc_stats (LC_ROW), for the sums, the JSON, merge */
	size_t nrows;
};

/* the readers, in the order they are picked (the first that wants the run) */
extern const struct lc_reader lc_rd_sse, lc_rd_grpc, lc_rd_verify, lc_rd_plain;
extern const struct lc_reader *const lc_readers[];
extern const size_t lc_nreaders;
/* this run's reader (lc_reader_pick() set it; the plain one before) */
extern const struct lc_reader *lc_rd;
/* the reader of these options and this target */
const struct lc_reader *lc_reader_pick(const struct lc_opts *o, const struct lc_target *tg);

/* the states of the readers that keep one: each a member of the
 * exchange's slot (union lc_rd_slot), read through LC_RD */
#define LC_RD(e, member) (&(e)->rd.member)
struct lc_rd_sse {
	uint8_t st, m;               /* where the parser is in a line, how much of "data: " it saw */
	uint32_t n;                  /* events come */
	uint64_t ts;                 /* the send time (epoch us) being read */
	uint64_t prev_ts, prev_at;   /* the last event's send time and coming (epoch us) */
	uint64_t first_us, last_us;  /* the first and the last event's coming (lc_now_us) */
	void *z;                     /* a gzip body's inflater (a proxy's compression), or NULL */
};
struct lc_rd_grpc {
	uint8_t status;              /* the grpc-status + 1, 0: none came */
	uint8_t head;                /* bytes of the message prefix still to read (0: in a message) */
	uint32_t left;               /* the message's bytes still to read */
};
struct lc_rd_verify {
	uint8_t bad;                 /* a byte off the pattern seen */
};

/* the exchange's slot: one member for each reader with a state */
union lc_rd_slot {
	uint64_t w[LC_RD_WORDS];
	struct lc_rd_sse sse;
	struct lc_rd_grpc grpc;
	struct lc_rd_verify verify;
};

#endif

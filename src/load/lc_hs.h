/* hxload --handshakes: the full : resumed : 0-RTT mix of new connections, what each kind cost, the report of it. */
#ifndef HX_LC_HS_H
#define HX_LC_HS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"

enum lc_hs_kind { HS_FULL, HS_RESUMED, HS_0RTT, HS_KINDS };
/* the parts of a handshake: connect() to TCP up, to TLS (QUIC) done, connect() to the answer's head */
enum lc_hs_part { HSP_CONNECT, HSP_TLS, HSP_FIRST, HSP_MAX };

struct lc_hs_stats {
	uint64_t asked[HS_KINDS];    /* connections in the window, by the kind asked */
	uint64_t got[HS_KINDS];      /* ... by the kind they were (0-RTT: early data taken) */
	uint64_t declined;           /* asked resumed or 0-RTT, got full: the server declined the ticket */
	uint64_t no_ticket;          /* ... of those, none to offer yet */
	uint64_t no_early;           /* asked 0-RTT, got resumed without early data */
	uint64_t failed;             /* handshakes (or connects) that failed */
	uint64_t alerts[257];        /* ... by the server's fatal alert, the last: none came */
	struct hist h[HS_KINDS][HSP_MAX]; /* by the kind they were */
};

extern const char *const lc_hs_names[HS_KINDS];

struct lc_conn;
struct lc_thread;
struct lc_stats;
struct lc_meta;

/* --handshakes 'F:R:Z' into <w>: 0, or -1 with a reason in <why> */
int lc_hs_parse(const char *arg, unsigned w[HS_KINDS], char *why, size_t len);
/* the next kind of the mix <w>, <cur> each kind's credit (zeroed at first) */
int lc_hs_next(int64_t cur[HS_KINDS], const unsigned w[HS_KINDS]);
/* a new connection of <c>: its kind, the next of the mix (an exact interleave, not drawn) */
void lc_hs_pick(struct lc_conn *c);
/* 1 when <c> offers a session ticket (not --handshakes, or asked resumed or 0-RTT) */
int lc_hs_ticket(const struct lc_conn *c);
/* 1 when <c> may send early data (not --handshakes, or asked 0-RTT) */
int lc_hs_early(const struct lc_conn *c);
/* --handshakes at a rate (-R): 1 while every send time due has a
 * connection opening for it (a new one waits for the next: its handshake
 * starts when its request is due); 0 otherwise */
int lc_hs_idle(const struct lc_thread *t);
/* <c>'s handshake ended, resumed or not (c->hs_early: its early data taken) */
void lc_hs_up(struct lc_conn *c, int resumed);
/* <c>'s first answer head came */
void lc_hs_head(struct lc_conn *c);
/* <c> failed before its handshake ended (c->alert: the server's alert) */
void lc_hs_fail(struct lc_conn *c);
/* hxload's CPU since the first connection as a share of its threads'
 * time (near 1: the client was the limit); -1 under 0.1 s or none */
double lc_hs_busy(void);
/* --server-pid's CPU in the window as a share of the CPUs it can keep busy
 * (near 1: the server was the limit); -1 unknown, or runs merged */
double lc_hs_server_busy(const struct lc_stats *T, const struct lc_meta *m);
/* 0-RTT over TCP (--h1): <c>'s request written as early data before its
 * handshake, when its session lets it: 0, or -1 (lost) */
int lc_hs_early_send(struct lc_conn *c);
/* ... its handshake done: counted taken (0), or refused (1: the caller sends it again) */
int lc_hs_early_end(struct lc_conn *c);
void lc_hs_add(struct lc_hs_stats *T, const struct lc_hs_stats *s);
/* the report's handshake lines, JSON object; nothing without --handshakes */
void lc_hs_text(FILE *f, const struct lc_stats *T, const struct lc_meta *m);
void lc_hs_json(FILE *f, const struct lc_stats *T, const struct lc_meta *m);

#endif

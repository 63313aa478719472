/* hxload's record.c: what a protocol calls as its exchanges go (taken, headed, answered, failed, their bytes), and --log. */
#ifndef HX_LC_RECORD_H
#define HX_LC_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "lc_stats.h"

struct lc_conn;
struct lc_ex;
struct lc_thread;

/* Starts exchange <e> on <c> if one may start now: returns 1 and fills
 * <e> (times, path), or 0. */
int lc_take(struct lc_conn *c, struct lc_ex *e);
/* the response head of <e> arrived */
void lc_head(struct lc_conn *c, struct lc_ex *e, unsigned status);
void lc_record(struct lc_conn *c, struct lc_ex *e);
void lc_error(struct lc_conn *c, enum lc_err kind);
/* the first bytes of a cleartext connection: -1 when the server speaks
 * another protocol (the run stops, one line says which) */
int lc_first_bytes(struct lc_conn *c, const char *p, size_t n);
/* exchange <e> is lost (stream reset): counted, not recorded */
void lc_lost(struct lc_conn *c, struct lc_ex *e);
/* <e> alone failed for <kind> (a stream reset, a request never submitted):
 * its connection goes on */
void lc_fail(struct lc_conn *c, struct lc_ex *e, enum lc_err kind);
/* <n> body bytes of <e>: quoted when its answer is the report's, read by
 * the run's body reader (lc_rd), counted */
void lc_verify(struct lc_ex *e, const char *p, size_t n);
/* h1: the response head at <p> (<n> bytes) of <e>: its status line kept
 * when <e>'s answer is the one the report quotes */
void lc_status_line(struct lc_ex *e, const char *p, size_t n);
/* the thread running (its figures, for what is fed bytes without it) */
extern __thread struct lc_thread *lc_self;
/* reads X-rsp into <e> */
void lc_xrsp(struct lc_ex *e, const char *v, size_t len);
/* X-Hxterm-Ignored: the server did not know these keys of the URL (a
 * typo?); the first one a thread sees is kept for the report */
void lc_ignored(struct lc_thread *t, const char *v, size_t len);
/* --log FILE, before the threads start: 0 or -1 */
int lc_log_open(const char *file);
/* whether --log is on; the lines <t> still holds, written */
int lc_log_on(void);
void lc_log_flush(struct lc_thread *t);

#endif

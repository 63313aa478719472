/* hxload's sched.c: a thread's open-loop schedule, the send times due. */
#ifndef HX_LC_SCHED_H
#define HX_LC_SCHED_H

#include <stdint.h>

struct lc_thread;

/* the queue of <t>'s send times; exits 2 out of memory */
void lc_due_init(struct lc_thread *t);
/* every send time now due goes into the queue, whatever the server does */
void lc_due_fill(struct lc_thread *t);
/* the send time <t0> goes back at the head of the queue (its exchange is
 * sent again); 0, or -1 when the queue is full */
int lc_due_unshift(struct lc_thread *t, uint64_t t0);
/* the next send time in the queue, taken out; 0 when none */
int lc_due_take(struct lc_thread *t, uint64_t *due);

#endif

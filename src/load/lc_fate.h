/* hxload's fate.c: whether the run goes on (interrupted, fatal, something answered). */
#ifndef HX_LC_FATE_H
#define HX_LC_FATE_H

#include "lc_thread.h"

/* SIGINT, SIGTERM: the threads stop */
void lc_interrupt(void);
int lc_interrupted(void);
/* the one line saying why no connection could be made, or NULL */
const char *lc_fatal(void);
/* one line saying why nothing can work (a protocol mismatch); the run stops */
void lc_fatal_set(const char *msg);
/* a response came: nothing is fatal that works once */
void lc_success(void);
int lc_succeeded(void);
/* a cleartext connection closed before a byte came: how many so far */
int lc_silent_close(void);
/* <t> starts nothing more: interrupted, fatal, or its window closed */
static inline int lc_run_over(const struct lc_thread *t)
{
	return lc_interrupted() || lc_fatal() || t->closed_us;
}

#endif

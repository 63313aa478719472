/* Worker threads: one epoll loop each, shared nothing; start, stop, connection accounting. */
#ifndef HX_WORKER_H
#define HX_WORKER_H

#include "worker-t.h"

extern volatile int hx_stop;

/* Opens every listener, starts cfg.threads workers. Returns 0 or -1 after
 * printing why on stderr. */
int workers_start(void);
/* Asks the workers to stop and waits for them. */
void workers_stop(void);

/* registers <e> for <events>; returns 0 or -1 */
int worker_watch(struct worker *w, struct ev *e, uint32_t events);

/* global connection accounting for -n */
void worker_conn_gone(struct worker *w);

#endif

/* Worker threads: one epoll loop each, shared nothing; start, stop, connection accounting. */
#ifndef HX_WORKER_H
#define HX_WORKER_H

#include "worker-t.h"


/* Opens every listener, starts cfg.threads workers. Returns 0 or -1 after
 * printing why on stderr. */
int workers_start(void);
/* Graceful drain: listeners closed, GOAWAY on h2, in-flight responses
 * finished, idle connections closed; the workers end when they have no
 * connection left or after --drain-timeout. */
void workers_drain(void);
/* Asks the workers to stop now and waits for them. */
void workers_stop(void);
/* 1 once every worker has left its loop */
int workers_idle(void);
/* Waits for the workers to end by themselves (after a drain). */
void workers_join(void);
/* per-thread counters on stderr (SIGUSR1) */
void workers_report(void);

/* One turn of a worker's loop: events, then expired timers. Waits at most
 * <max_wait_us> (the fuzzers drive a worker this way, with 0). */
void worker_turn(struct worker *w, uint64_t max_wait_us);

/* global connection accounting for -n */
void worker_conn_gone(struct worker *w);

#endif

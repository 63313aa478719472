/* Worker threads: one loop each, shared nothing; listeners, start, drain, stop. */
#ifndef HX_WORKER_H
#define HX_WORKER_H

struct wstats;
struct loop;

/* Opens every listener, starts cfg.threads workers. Returns 0 or -1 after
 * printing why on stderr. */
int workers_start(void);
/* Graceful drain: listeners closed, GOAWAY on h2, in-flight responses
 * finished, idle connections closed; the workers end when they have no
 * connection left or after --drain-timeout. */
void workers_drain(void);
/* Asks the workers to stop now. */
void workers_stop(void);
/* 1 once every worker has left its loop */
int workers_idle(void);
/* Waits for the workers to end by themselves (after a drain or a stop). */
void workers_join(void);
/* worker <i>'s counters (another thread reads them: relaxed loads), or NULL */
const struct wstats *worker_stats(int i);
/* worker <i>'s CPU time in seconds (user and system: its syscalls' kernel
 * work too, which --io-uring does in the wait), 0 when unknown */
double worker_cpu_s(int i);
/* worker <i>'s loop, for its busy time and ready count (relaxed loads), or NULL */
const struct loop *worker_loop(int i);

#endif

/* hxload's commands (a run, ab, find, merge, compare, quic-flood) and the processes they run or measure. */
#ifndef HX_LC_CMD_H
#define HX_LC_CMD_H

#include <stdint.h>

struct lc_ival;
/* --metrics: its server thread starts (or exits 2 with one line) ... */
void lc_metrics_start(void);
/* ... each interval the main thread reads is added to what it serves ... */
void lc_metrics_add(const struct lc_ival *v);
/* ... and it stops when the run is done */
void lc_metrics_stop(void);

/* --hlog: the file is made (0, or -1 with errno) ... */
int lc_hlog_open(const char *path);
/* ... its header says when the window opened (epoch s, monotonic us) ... */
void lc_hlog_start(double start_epoch, uint64_t start_us, const char *url);
/* ... each interval the main thread reads is a line (and its parts, tagged) ... */
void lc_hlog_add(const struct lc_ival *v);
/* ... and it is closed: 0, or -1 when it could not all be written */
int lc_hlog_close(void);

struct lc_probe;
/* --probe: its run starts beside the load (a child hxload, at the probe's
 * rate on its own connection, from the shared --start-at) ... */
void lc_probe_start(void);
/* ... and, once the load is done, its figures into <p> (p->ok 0: none) */
void lc_probe_finish(struct lc_probe *p);

/* a load run (hxload [options] URL): returns the exit status */
int lc_run_main(int argc, char **argv);
/* hxload ab: returns the exit status */
int lc_ab_main(int argc, char **argv);
/* hxload find: returns the exit status */
int lc_find_main(int argc, char **argv);
/* runs hxload <args> (args[0] its name) with stdout to <out> and stderr to
 * <err> (NULL: ours): its exit status, or -1; <*cpu_us> (when not NULL)
 * the CPU time it used */
int lc_child(char *const *args, const char *out, const char *err, uint64_t *cpu_us);
/* the folder <who>'s runs are kept in: <keep>, or hxload-<who>-<time>,
 * made when missing; NULL after one line on stderr */
const char *lc_keep_dir(const char *who, const char *keep);
/* hxload merge [options] FILE...: returns the exit status */
int lc_merge_main(int argc, char **argv);
/* hxload compare A.json... [vs B.json...]: the exit status */
int lc_compare_main(int argc, char **argv);
/* hxload quic-flood [options] HOST:PORT: the exit status */
int lc_qflood_main(int argc, char **argv);
/* the CPU time (user and system) process <pid> has used, in us; 0 when it
 * cannot be read */
uint64_t lc_proc_cpu_us(int pid);
/* the CPUs process <pid> can keep busy: those it may run on, at most one a
 * thread of it; 0 when it cannot be read */
int lc_proc_cpus(int pid);


#endif

/* hxload ab's and find's saturation guard: the backend's per-worker busy time read from hxterm's /stats.json before and after a run. */
#ifndef HX_LC_GUARD_H
#define HX_LC_GUARD_H

#include <stddef.h>

#define LC_GUARD_WORKERS 256
#define LC_GUARD_BUSY    0.8 /* --backend-busy's default: a worker busy 80 % of the run */

/* one read of the backend's /stats.json: its uptime and each worker's busy
 * seconds (out of its wait) and CPU seconds (user and system) */
struct lc_guard_snap {
	double uptime_s;
	double busy_s[LC_GUARD_WORKERS], cpu_s[LC_GUARD_WORKERS];
	int n;                       /* workers read, 0: the read failed */
};

/* what the guard made of one run: the busiest worker's share (of its
 * busy time or its CPU time, the larger), -1 unread */
struct lc_guard_run {
	double share;
	int worker;
	int saturated;               /* share over the limit: the run is void */
};

/* the reads around one run */
struct lc_guard {
	struct lc_guard_snap a, b;
	int ok;                      /* the read before worked */
	char why[300];               /* else why not */
};

/* before a run at <url> (NULL: no guard): the first read */
void lc_guard_before(struct lc_guard *g, const char *url);
/* after it: the second read, the busiest worker against <limit> in <r>
 * (share -1 with no guard); a failed read is said on stderr, for <who>'s
 * run <label>, and the run not judged */
void lc_guard_after(struct lc_guard *g, const char *url, double limit, struct lc_guard_run *r, const char *who,
		    const char *label);

/* checks --backend-stats' URL: 0, or -1 when it is not http://HOST:PORT/... */
int lc_guard_url(const char *url);
/* parses --backend-busy's PCT (1 to 100) into <share>: 0, or -1 */
int lc_guard_pct(const char *arg, double *share);
/* reads <url> (http://HOST:PORT/stats.json): 0, or -1 with why in <err> */
int lc_guard_read(const char *url, struct lc_guard_snap *s, char *err, size_t len);
/* the busiest worker between <a> and <b> against <limit> */
void lc_guard_judge(const struct lc_guard_snap *a, const struct lc_guard_snap *b, double limit,
		    struct lc_guard_run *r);
/* why a run is void: "thread 0 busy 97 % > 80 %" */
int lc_guard_why(const struct lc_guard_run *r, double limit, char *buf, size_t len);

#endif

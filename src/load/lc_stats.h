/* hxload's results: what a run records, its report, page and checks, as one run's or several merged. */
#ifndef HX_LC_STATS_H
#define HX_LC_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"
#include "lc_hs.h"
#include "lc_opts.h"
#include "rows.h"

/* gRPC's status codes, 0 (OK) to 16 (UNAUTHENTICATED), then "none" (a
 * call without grpc-status): one list for the names, the JSON and merge */
#define LC_GRPC_LIST(X) X(0, "OK") X(1, "CANCELLED") X(2, "UNKNOWN") X(3, "INVALID_ARGUMENT") \
	X(4, "DEADLINE_EXCEEDED") X(5, "NOT_FOUND") X(6, "ALREADY_EXISTS") X(7, "PERMISSION_DENIED") \
	X(8, "RESOURCE_EXHAUSTED") X(9, "FAILED_PRECONDITION") X(10, "ABORTED") X(11, "OUT_OF_RANGE") \
	X(12, "UNIMPLEMENTED") X(13, "INTERNAL") X(14, "UNAVAILABLE") X(15, "DATA_LOSS") \
	X(16, "UNAUTHENTICATED") X(17, "none")
#define LC_GRPC_CODES 17
extern const char *const lc_grpc_names[LC_GRPC_CODES + 1];

/* error kinds, as reported */
enum lc_err { E_CONNECT, E_TLS, E_TIMEOUT, E_RESET, E_PROTOCOL, E_BODY, E_MAX };

/* the distributions every run records, in microseconds (H_RPC: a count;
 * H_EVENT: --sse, each event from the send time it carries to its coming
 * (what the path held it back); H_FIRST_EV, H_LAST_EV: from the send to a
 * stream's first and last event; H_GAP_SENT, H_GAP_RECV: between an event
 * and the one before, by their send times and by their comings; H_EV_RATE:
 * a stream's events per second after its first, in thousandths;
 * H_HIT: the latency of a cache's hits, H_SRV and H_OTH then the misses') */
enum lc_hist { H_LAT, H_SRV, H_OTH, H_HIT, H_QUEUE, H_TTFB, H_BODY, H_PACED, H_BOTH, H_CONNECT, H_TLS, H_EVENT,
	       H_FIRST_EV, H_LAST_EV, H_GAP_SENT, H_GAP_RECV, H_RPC, H_EV_RATE, H_MAX };
/* the rows a run of an older hxload may lack (read as empty): the hit row,
 * --sse's token rows. WHY here: a new row is added to the enum and to this */
#define LC_HIST_LATER ((1u << H_HIT) | (1u << H_FIRST_EV) | (1u << H_LAST_EV) | (1u << H_GAP_SENT) | \
		       (1u << H_GAP_RECV) | (1u << H_EV_RATE))

/* --sse: the figures hxload ab compares when the runs have events (sse.c) */
struct lc_sse_fig {
	const char *path, *name;
};
extern const struct lc_sse_fig lc_sse_figs[8];

/* everything a run records; a thread's, the run's, or several runs' merged */
struct lc_stats {
	struct hist h[H_MAX];
	uint64_t status[LC_STATUS_MAX];
	uint64_t errors[E_MAX];
	uint64_t bytes, reqs;        /* answered in the window, and their body bytes */
	uint64_t verified;           /* --verify: answered bodies checked byte by byte (not R=1's) */
	uint64_t verified_bytes;     /* ... and their bytes */
	uint64_t non2xx;
	uint64_t unexpected;         /* answered with a status --expect (or 2xx) does not name */
	uint64_t interim;            /* 1xx heads before an answer (103 Early Hints, 100 Continue), h1 and h2 */
	uint64_t scheduled;          /* open loop: send times that fell in the window */
	uint64_t sent;               /* exchanges started in the window */
	uint64_t late;               /* open loop: sent over LC_LATE_US after their time */
	uint64_t loop_late_us;       /* open loop: of the queue, us before the loop saw a send time due (its CPU) */
	uint64_t failed;             /* sent, then lost: reset, protocol or body error, timeout */
	uint64_t inflight_end;       /* unanswered when the window closed */
	uint64_t end_answered;       /* of those, answered within --timeout after it */
	uint64_t end_timeout;        /* of those, counted as timeouts */
	uint64_t conns, resumed;     /* connections made (TLS: resumed) */
	uint64_t hello_retries;      /* TLS 1.3 handshakes the server retried: our key share was not for its group */
	uint64_t early, early_rejected; /* h3 --0rtt: connections whose 0-RTT was taken, refused */
	uint64_t goaways;            /* connections the server ended gracefully (h1 Connection: close, h2 GOAWAY NO_ERROR, h3 GOAWAY) */
	uint64_t past_goaway;        /* h2: frames of a stream above the server's own GOAWAY's last stream id (a server bug) */
	uint64_t pings;              /* h2: PINGs the server sent */
	uint64_t limit_changes;      /* h2: SETTINGS that changed the server's stream limit after its first */
	uint64_t limit_min, limit_last; /* ... the lowest it changed to, the last (merged: the lowest, the last run's) */
	uint64_t retried;            /* requests refused unprocessed and sent again (not failed) */
	uint64_t conn_errors;        /* connections that failed with no request in flight (connect, TLS) */
	uint64_t by_proto[LC_NPROTO]; /* connections by protocol */
	uint64_t srv_cpu_us;         /* --server-pid: its CPU time in the window */
	uint64_t bunched;            /* --sse: events that came with the one before, though sent well after it */
	uint64_t grpc[LC_GRPC_CODES + 1]; /* grpc://: calls by grpc-status (the last: none came) */
	uint64_t grpc_msgs;          /* ... the messages they brought */
	struct lc_h3_stats {         /* h3: what the client saw of QUIC, in the window (lc_h3_report.c) */
		uint64_t dgrams_in, reads, gro_reads; /* datagrams read; recvmsg calls, those a GRO train */
		uint64_t dgrams_out, sends, gso_sends; /* datagrams sent; sendmsg calls, those a GSO train */
		uint64_t udp_drops;          /* datagrams the kernel dropped on hxload's sockets (SO_RXQ_OVFL), whole run */
		uint64_t limited, limited_us; /* a request waiting on the server's MAX_STREAMS: times, us */
		uint64_t raised;             /* the server's MAX_STREAMS raised */
		uint64_t rcvbuf_capped;      /* sockets given a receive buffer under --udp-rcvbuf's, whole run */
	} h3;
	uint64_t hits, misses;       /* answers a cache gave again, and the first of each (lc_hit) */
	struct lc_hs_stats hs;       /* --handshakes (hs.c) */
};

/* --sse: the events object's figures (after its "{"), the text report's lines */
void lc_sse_json(FILE *f, const struct lc_stats *T);
void lc_sse_text(FILE *f, const struct lc_stats *T);


#define LC_WHY_BODY 200 /* bytes of the first unexpected answer's body quoted */

/* the first answer whose status was not expected (--expect, or 2xx): what
 * the report quotes; <status> 0: none came */
struct lc_why {
	uint16_t status;
	uint16_t len;
	char line[64];               /* its status line (h2, h3: "HTTP/2 400") */
	char body[LC_WHY_BODY + 1];
};

/* the distributions each interval keeps too: what compare resamples */
enum lc_iv { IV_LAT, IV_SRV, IV_OTH, IV_BOTH, IV_QUEUE, IV_MAX };
/* their JSON names, and which run-wide histogram each one is */
extern const char *const lc_iv_names[IV_MAX];
extern const int lc_iv_hist[IV_MAX];

/* one --interval's figures, as a thread publishes them */
struct lc_ival {
	uint64_t from_us, to_us;
	uint64_t reqs, errors, bytes;
	uint64_t hits, misses;       /* of the answers, a cache's hits and misses (lc_hit) */
	uint64_t srv_cpu_us;         /* --server-pid: its CPU time in the interval */
	struct hist h[IV_MAX];       /* the parts of time compare resamples (enum lc_iv) */
};

#define LC_IVAL_RING 64

#define LC_IGN 64 /* X-Hxterm-Ignored kept */

/* what the report says besides the figures */
struct lc_meta {
	char label[256], url[1024], cmdline[1024], host[256], version[32];
	char ignored[LC_IGN];        /* keys the server said it did not know (X-Hxterm-Ignored), or "" */
	char expect[64];             /* the statuses that are right: --expect's, or "2xx" */
	struct lc_why first_bad;     /* the first unexpected answer, quoted */
	double start, end;           /* epoch seconds */
	double secs;                 /* the measured window */
	double target_rps;           /* 0: closed loop */
	int runs;                    /* merged runs */
	int npids;                   /* --pid: the CPU time of each named process in the window */
	struct { char name[32]; int pid; uint64_t us; } cpu[LC_MAX_PIDS];
	struct lc_probe {            /* --probe: the reference probe's figures, from its run */
		double rate;             /* 0: no probe */
		int ok;                  /* its run's figures were read */
		uint64_t requests, errors;
		double p50, p90, p99, p999, max; /* its latency, ms */
	} probe;
};

struct lc_series {
	struct lc_ival *v;           /* merged intervals, in order */
	size_t n, cap;
};

extern const char *const lc_err_names[E_MAX];
extern const char *const lc_hist_names[H_MAX];

/* the plain counters of struct lc_stats as counter rows (core/rows.h), in
 * tables: one list for the sums, the JSON and merge. LC_ROW(group, key,
 * field): <group> NULL: at the top level */
#define LC_ROW(g, key, f) { .group = (g), .json = (key), .n = 1, .off = offsetof(struct lc_stats, f) }
/* table <i> of them (0: the report's own, then each body reader's), its
 * rows in <*n>; NULL past the last */
const struct row *lc_rows(size_t i, size_t *n);
void lc_stats_add(struct lc_stats *T, const struct lc_stats *s);
uint64_t lc_stats_errors(const struct lc_stats *s);
void lc_report_text(FILE *f, const struct lc_stats *T, const struct lc_meta *m);
/* over half the answers unexpected: one line saying so, quoting the first
 * (the text report's first); else nothing */
void lc_why_line(FILE *f, const struct lc_stats *T, const struct lc_meta *m);
/* <w> quoted: 'HTTP/1.1 400 Bad Request, "its body"' (or ', no body') */
void lc_why_quote(char *buf, size_t len, const struct lc_why *w);
/* ', "first_unexpected": {...}' when <w> holds one */
void lc_why_json(FILE *f, const struct lc_why *w);
/* <s>: the intervals, with their histograms (for hxload compare), or NULL */
void lc_report_json(FILE *f, const struct lc_stats *T, const struct lc_meta *m, int full, const struct lc_series *ser);
/* one --interval line */
void lc_ival_json(FILE *f, const struct lc_ival *v, uint64_t start_us, unsigned k);
/* a JSON string: quotes, backslashes, controls and '<' '>' '&' escaped */
void lc_jstr(FILE *f, const char *s);
/* a page's head (its <title>, the charts' style) up to its <body> */
void lc_html_open(FILE *f, const char *title);
/* a histogram's percentile spectrum as "<name>": [[q, ms]...] for a page */
void lc_html_spectrum(FILE *f, const char *name, const struct hist *h, int first);
/* the page's scripts after its inline JSON: that closed, Chart.js, the
 * chart helpers (lines, bars), a <script> left open for the page's own */
void lc_html_scripts(FILE *f);
/* --html FILE: a self-contained page; 0 or -1 (errno) */
int lc_report_html(const char *file, const struct lc_stats *T, const struct lc_meta *m,
		   const struct lc_series *s);
/* --expect '200,3xx,500-503': the statuses named set in <set> (LC_STATUS_MAX
 * of them); 0, or -1 with a reason */
int lc_expect_parse(const char *spec, uint8_t *set, const char **err);
/* most answers (over half) unexpected: the run measured failures */
int lc_mostly_unexpected(const struct lc_stats *T);
/* --fail-on: checks the grammar (0, or -1 with a reason) */
int lc_check_parse(const char *spec, const char **err);
/* prints each threshold crossed; returns how many */
int lc_check(const char *spec, const struct lc_stats *T, const struct lc_meta *m);
/* find's --slo, the same grammar read the other way: each term must hold.
 * Returns how many do not, the first one's reason in <why> ("p99 24.100
 * ms, not < 20 ms") */
int lc_slo_miss(const char *spec, const struct lc_stats *T, const struct lc_meta *m, char *why, size_t len);
/* ... its latency terms read from <lat> rather than T's latency (find: the
 * time from the actual send, the client's queue out) */
int lc_slo_miss_on(const char *spec, const struct lc_stats *T, const struct lc_meta *m, const struct hist *lat,
		   char *why, size_t len);
/* the report, its checks and its page, from merged figures: the exit status */
int lc_finish(const struct lc_stats *T, const struct lc_meta *m, const struct lc_series *s,
	      int json, const char *html, const char *fail_on);

#endif

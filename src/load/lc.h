/* hxload's shared types: targets, per-thread state, client connections of every protocol. */
#ifndef HX_LC_H
#define HX_LC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "h1_parse.h"
#include "hist.h"
#include "oq.h"
#include "loop.h"
#include "rng.h"
#include "xprt.h"

typedef struct ssl_ctx_st SSL_CTX;
#define LC_TICKETS 16 /* TLS sessions kept per thread, to resume */
typedef struct ssl_session_st SSL_SESSION;

#define LC_MAX_DEPTH  1024      /* -m */
#define LC_MAX_PATH   65536     /* a longer path is refused, never cut */
#define LC_MAX_HDRS   32        /* -H */
#define LC_MAX_PIDS   8        /* --pid NAME=PID */
#define LC_UNSENT_MAX 0.01     /* open loop: never sent past this share of the due: exit 1 */
#define LC_LATE_WARN  0.10     /* open loop: sent over LC_LATE_US late past this share: a warning */
#define LC_MAX_STAGES 64        /* --stages */
#define LC_LATE_US    1000      /* open loop: sent this long after its time is late */
#define LC_STATUS_MAX 1000      /* statuses 100..999 are counted */

enum lc_proto { LC_AUTO, LC_H1, LC_H2, LC_H3, LC_WS, LC_NPROTO };

/* error kinds, as reported */
enum lc_err { E_CONNECT, E_TLS, E_TIMEOUT, E_RESET, E_PROTOCOL, E_BODY, E_MAX };

/* the distributions every run records, in microseconds (H_RPC: a count) */
enum lc_hist { H_LAT, H_SRV, H_OTH, H_QUEUE, H_TTFB, H_BODY, H_PACED, H_BOTH, H_CONNECT, H_TLS, H_RPC, H_MAX };

/* a rate stage: <rate0> to <rate1> requests per second, linearly, over <us> */
struct lc_stage {
	uint64_t us;
	double rate0, rate1;
};

struct lc_opts {
	int threads, conns, depth;
	uint64_t duration_us, warmup_us, timeout_us;
	uint64_t total;              /* -n, 0: until the duration ends */
	double rate, rate_to;        /* -R A[:B], requests per second, 0: closed loop */
	struct lc_stage stages[LC_MAX_STAGES]; /* -R A:B, --stages: the open-loop shape */
	int nstages;                 /* 0: closed loop */
	int verify, json, quiet;
	int close;                   /* --close: one request per connection */
	int no_resume;               /* --no-resume: a full TLS handshake every time */
	int zero_rtt;                /* --0rtt: h3 requests of a resumed connection in 0-RTT */
	int h3_no_credit;            /* --h3-no-credit: stream windows never extended */
	int h3_no_body;              /* --h3-no-body: the request body never sent */
	int proxy_proto;             /* --proxy-protocol: 1 or 2, 0: none */
	int server_pid;              /* --server-pid: its CPU time is measured, 0: none */
	struct lc_named_pid {        /* --pid NAME=PID: more processes whose CPU time is measured */
		char name[32];
		int pid;
	} pids[LC_MAX_PIDS];
	int npids;
	enum lc_proto force;         /* --h1 / --h2 / --h3 */
	const char *method;
	uint64_t body;               /* --body: request body bytes */
	const char *hdrs[LC_MAX_HDRS]; /* -H, without Host */
	int nhdrs;
	const char *label, *html, *log, *fail_on;
	const char *cert, *key, *cacert;
	uint64_t interval_us;        /* --interval: one JSON line each */
	uint64_t series_us;          /* intervals recorded (--interval, or 1 s for --html) */
	double start_at;             /* --start-at, epoch seconds, 0: now */
	char cmdline[1024];          /* the options, as given, for the report */
};

/* one path of the target (--urls gives several, with weights) */
struct lc_path {
	char *path;
	char *req;                   /* its HTTP/1 request */
	size_t reqlen;
	double cum;                  /* cumulative weight, 0..1 */
};

struct lc_target {
	enum lc_proto proto;         /* LC_AUTO: TLS with ALPN */
	int tls;
	struct sockaddr_storage addr; /* where connections go */
	socklen_t alen;
	char host[256];              /* the URL's host, brackets removed */
	int port;
	char authority[300];         /* Host / :authority: the URL's, or -H Host's */
	char sni[256];               /* "": no SNI */
	char where[300];             /* the address connected to, for messages */
	const char *url;
	struct lc_path *paths;
	int npaths;
};

/* one in-flight exchange */
struct lc_ex {
	int64_t id;                  /* h2/h3 stream, -1 when free */
	uint64_t t0;                 /* us: intended (open loop) or actual send */
	uint64_t sent_us;            /* us: when it was taken to be sent */
	uint64_t head_us;            /* us: the response head came, 0: not yet */
	uint64_t server_us;          /* from X-rsp, UINT64_MAX when absent */
	uint64_t pace_us;            /* X-rsp pace=: the server's pauses in the body, 0: none */
	uint64_t bytes;              /* body bytes received */
	int64_t announced;           /* X-rsp size=, -1 when absent */
	uint64_t body_left;          /* request body still to send (h2, h3) */
	uint16_t status;
	uint16_t path;               /* index in lc_target.paths */
	uint8_t bad;                 /* body mismatch seen */
	uint8_t random;              /* not the pattern (R=1 and the like) */
	uint8_t counted;             /* sent inside the measured window */
};

struct lc_thread;

struct lc_conn {
	struct ev ev;
	struct xprt x;
	struct timer tm;
	struct lc_thread *t;
	const struct lc_target *tg;
	enum lc_proto proto;
	int idx;
	uint8_t state;               /* LS_* */
	uint8_t rd_ready, wr_ready;
	uint8_t rdhup;               /* the peer shut its side: read on to EOF */
	uint8_t got_bytes;           /* something came back on this connection */
	uint8_t up;                  /* its protocol started: 1, and in the window: 2 */
	uint8_t goaway;              /* h2: the server's GOAWAY came: 1 NO_ERROR (a graceful end), 2 another */
	uint8_t err_kind;            /* enum lc_err of what ended it: its requests lost count as that */
	uint32_t inflight;
	uint32_t taken;              /* exchanges started on this connection */
	uint64_t open_us, up_us;     /* connect() called, TCP connected */
	int alert;                   /* the server's fatal TLS alert, 0: none */
	/* in-flight exchanges: a FIFO on HTTP/1, slots on h2/h3 (-m of them) */
	struct lc_ex *ex;
	uint32_t ex_head;
	char *in;
	uint32_t in_len, in_size;
	uint8_t h1_body;             /* reading a body */
	uint8_t h1_chunked;
	uint8_t h1_close;            /* close-delimited body */
	uint64_t h1_left;            /* Content-Length left */
	struct h1_chunk ck;
	struct oq oq;
	void *proto_state;           /* nghttp2 session, QUIC connection */
};

#define LS_CONNECTING 1
#define LS_TLS        2
#define LS_READY      3

/* everything a run records; a thread's, the run's, or several runs' merged */
struct lc_stats {
	struct hist h[H_MAX];
	uint64_t status[LC_STATUS_MAX];
	uint64_t errors[E_MAX];
	uint64_t bytes, reqs;        /* answered in the window, and their body bytes */
	uint64_t verified;           /* --verify: answered bodies checked byte by byte (not R=1's) */
	uint64_t verified_bytes;     /* ... and their bytes */
	uint64_t non2xx;
	uint64_t scheduled;          /* open loop: send times that fell in the window */
	uint64_t sent;               /* exchanges started in the window */
	uint64_t late;               /* open loop: sent over LC_LATE_US after their time */
	uint64_t failed;             /* sent, then lost: reset, protocol or body error, timeout */
	uint64_t inflight_end;       /* unanswered when the window closed */
	uint64_t end_answered;       /* of those, answered within --timeout after it */
	uint64_t end_timeout;        /* of those, counted as timeouts */
	uint64_t conns, resumed;     /* connections made (TLS: resumed) */
	uint64_t early, early_rejected; /* h3 --0rtt: connections whose 0-RTT was taken, refused */
	uint64_t goaways;            /* connections the server ended gracefully (h2 GOAWAY NO_ERROR) */
	uint64_t retried;            /* requests refused unprocessed and sent again (not failed) */
	uint64_t conn_errors;        /* connections that failed with no request in flight (connect, TLS) */
	uint64_t by_proto[LC_NPROTO]; /* connections by protocol */
	uint64_t srv_cpu_us;         /* --server-pid: its CPU time in the window */
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
	uint64_t srv_cpu_us;         /* --server-pid: its CPU time in the interval */
	struct hist h[IV_MAX];       /* the parts of time compare resamples (enum lc_iv) */
};

#define LC_IVAL_RING 64

#define LC_IGN 64 /* X-Hxterm-Ignored kept */

struct lc_thread {
	struct loop loop;            /* epoll, timers, the clock (loop.now_us) */
	int id;
	pthread_t th;
	uint64_t start_us, end_us, record_from_us;
	uint64_t closed_us;          /* the window closed (0: open); in flight then is waited for */
	const struct lc_opts *o;
	const struct lc_target *tg;
	struct lc_conn *conns;
	int nconns;
	uint64_t budget;             /* requests this thread may still start */
	uint64_t started, done;
	uint64_t fresh;              /* connections opened that have not started a request */
	struct rng rng;              /* --urls: the path of each request */
	SSL_SESSION *sess[LC_TICKETS]; /* TLS sessions to resume, the newest last */
	int nsess;
	uint8_t *qtick[LC_TICKETS];  /* h3: sessions to resume (lc_h3.c's blobs), the newest last */
	int nqtick;
	/* open loop: intended send times waiting for a free slot */
	uint64_t next_due_us, due_k;  /* the next send time, this thread's k-th */
	uint64_t *due;
	uint32_t due_head, due_n, due_cap;
	/* results */
	struct lc_stats st;
	uint64_t ival_errs, ival_bytes; /* errors, bytes when the current interval began */
	uint64_t next_ival_us;
	struct lc_ival ival;         /* the interval being recorded */
	struct lc_ival ring[LC_IVAL_RING];
	_Atomic uint32_t ival_pub;   /* intervals published in <ring> */
	_Atomic uint32_t ival_read;  /* of those, read by the main thread */
	_Atomic int ended;
	_Atomic uint64_t progress;   /* requests done, read by the main thread */
	char *logbuf;                /* --log: lines not yet written */
	size_t loglen;
	uint8_t *qbuf;               /* h3: a GSO batch out (QW_BUF), then a GRO batch in (LC_QRX) */
	char ignored[LC_IGN];        /* the first X-Hxterm-Ignored the server sent, or "" */
};

/* ---------- the client protocols: one row each ---------- */

/* Return convention: int functions give 0, -1 when the connection is lost
 * (reset, retried), 1 when the server closed it as it said (renewed). */
struct lc_protocol {
	const char *name;
	int fifo;                    /* exchanges answered in order (HTTP/1) */
	/* library globals, made before the threads start and freed after */
	int (*global_init)(void);
	void (*global_free)(void);
	/* a connection of its own (QUIC over UDP); NULL: TCP, then TLS */
	int (*open)(struct lc_conn *c);
	/* the TCP (and TLS) connection is up */
	int (*start)(struct lc_conn *c);
	/* its socket is ready: read and write what can be */
	int (*io)(struct lc_conn *c);
	/* frees its per-connection state */
	void (*free)(struct lc_conn *c);
	/* 1: a --close connection whose exchanges are done stays open a while
	 * (h3 --0rtt: the server's ticket for the next one is yet to come);
	 * NULL: never */
	int (*linger)(struct lc_conn *c);
};

extern const struct lc_protocol lc_h1, lc_h2, lc_h3, lc_ws;

/* ---------- run.c: threads, connections, what the protocols call ---------- */

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
/* --log FILE, before the threads start: 0 or -1 */
int lc_log_open(const char *file);
/* exchange <e> is lost (stream reset): counted, not recorded */
void lc_lost(struct lc_conn *c, struct lc_ex *e);
/* <e> alone failed for <kind> (a stream reset, a request never submitted):
 * its connection goes on */
void lc_fail(struct lc_conn *c, struct lc_ex *e, enum lc_err kind);
/* <e> was refused unprocessed (a stream above a GOAWAY's last id,
 * REFUSED_STREAM): sent again on a new connection, counted as retried */
void lc_retry(struct lc_conn *c, struct lc_ex *e);
/* a connection's handshake ended (QUIC: the whole of it) */
void lc_conn_up(struct lc_conn *c, int resumed);
/* closes <c> (its protocol state freed) and schedules a new connection */
void lc_reset(struct lc_conn *c);
/* one line saying why nothing can work (a protocol mismatch); the run stops */
void lc_fatal_set(const char *msg);
void lc_verify(struct lc_ex *e, const char *p, size_t n);
/* reads X-rsp into <e> */
void lc_xrsp(struct lc_ex *e, const char *v, size_t len);
/* X-Hxterm-Ignored: the server did not know these keys of the URL (a
 * typo?); the first one a thread sees is kept for the report */
void lc_ignored(struct lc_thread *t, const char *v, size_t len);

/* every protocol's library globals, before the threads start */
int lc_protos_init(void);
void lc_protos_free(void);
void lc_thread_init(struct lc_thread *t, int id, uint64_t start);
void *lc_thread_main(void *arg);
void lc_thread_free(struct lc_thread *t);
/* SIGINT, SIGTERM: the threads stop */
void lc_interrupt(void);
int lc_interrupted(void);
/* the one line saying why no connection could be made, or NULL */
const char *lc_fatal(void);
/* the client TLS context (https://) */
extern SSL_CTX *lc_tls;
/* makes lc_tls from the options (ALPN, certificates, verification, resumption) */
int lc_tls_init(void);

/* ---------- shape.c: the open-loop schedule ---------- */

/* µs after the start at which request <n> (0-based, of every thread) is due,
 * UINT64_MAX past the schedule (lc_opts.stages: warm-up first) */
uint64_t lc_due_at(const struct lc_opts *o, double n);
/* the mean rate of the measured part (the target rate) */
double lc_rate_mean(const struct lc_opts *o);
/* parses --stages 'D@R,D@A:B,...' into <o> (durations: s, ms, m, h) */
int lc_stages_parse(struct lc_opts *o, const char *s, const char **err);
/* a duration of <len> bytes at <s>: a number with ms, s, m or h (s when
 * none), in microseconds; 0 or -1 */
int lc_duration(const char *s, size_t len, uint64_t *us);
/* builds o->stages from -R, -R A:B or --stages, the warm-up first */
void lc_stages_finish(struct lc_opts *o);

/* ---------- cli.c, url.c: the command line, the target ---------- */

extern struct lc_opts lc_opts;
extern struct lc_target lc_target;
/* parses the command line into lc_opts and lc_target, or exits 2 */
void lc_cli(int argc, char **argv);
/* prints "hxload: <fmt with arg>" and exits 2 */
void lc_die(const char *fmt, const char *arg) __attribute__((noreturn));
/* a size with k/m/g suffixes (powers of 1024) */
uint64_t lc_size_arg(const char *opt, const char *arg, uint64_t max);

/* routing, in the order they apply */
struct lc_route {
	const char *connect_to[16], *resolve[16];
	int nconnect_to, nresolve;
	const char *unix_path;
	const char *sni;             /* NULL: the URL's host when it is a name */
};
extern struct lc_route lc_route;
/* reads <url> into lc_target (scheme, host, port, authority, path), or exits 2 */
void lc_url_parse(const char *url, int first);
/* where to connect and what SNI to send, from the URL and lc_route, or exits 2 */
void lc_url_route(void);
/* reads --urls FILE */
void lc_urls_file(const char *file);
/* a path for a new request, by the --urls weights */
uint16_t lc_path_pick(struct lc_thread *t);

/* ---------- stats.c, report.c, merge.c, html.c, check.c: the results ---------- */

/* what the report says besides the figures */
struct lc_meta {
	char label[256], url[1024], cmdline[1024], host[256], version[32];
	char ignored[LC_IGN];        /* keys the server said it did not know (X-Hxterm-Ignored), or "" */
	double start, end;           /* epoch seconds */
	double secs;                 /* the measured window */
	double target_rps;           /* 0: closed loop */
	int runs;                    /* merged runs */
	int npids;                   /* --pid: the CPU time of each named process in the window */
	struct { char name[32]; int pid; uint64_t us; } cpu[LC_MAX_PIDS];
};

struct lc_series {
	struct lc_ival *v;           /* merged intervals, in order */
	size_t n, cap;
};

extern const char *const lc_err_names[E_MAX];
extern const char *const lc_hist_names[H_MAX];

/* the CPU time (user and system) process <pid> has used, in us; 0 when it
 * cannot be read */
uint64_t lc_proc_cpu_us(int pid);

/* the plain counters of struct lc_stats by JSON name: one list for the
 * sums, the JSON and merge; <group> NULL: at the top level */
struct lc_counter {
	const char *group, *name;
	size_t off;
};
extern const struct lc_counter lc_counters[];
extern const size_t lc_ncounters;
#define LC_CTR(st, k) (*(uint64_t *)((char *)(st) + lc_counters[k].off))
void lc_stats_add(struct lc_stats *T, const struct lc_stats *s);
uint64_t lc_stats_errors(const struct lc_stats *s);
void lc_report_text(FILE *f, const struct lc_stats *T, const struct lc_meta *m);
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
/* --html FILE: a self-contained page; 0 or -1 (errno) */
int lc_report_html(const char *file, const struct lc_stats *T, const struct lc_meta *m,
		   const struct lc_series *s);
/* --fail-on: checks the grammar (0, or -1 with a reason) */
int lc_check_parse(const char *spec, const char **err);
/* prints each threshold crossed; returns how many */
int lc_check(const char *spec, const struct lc_stats *T, const struct lc_meta *m);
/* find's --slo, the same grammar read the other way: each term must hold.
 * Returns how many do not, the first one's reason in <why> ("p99 24.100
 * ms, not < 20 ms") */
int lc_slo_miss(const char *spec, const struct lc_stats *T, const struct lc_meta *m, char *why, size_t len);
/* hxload merge [options] FILE...: returns the exit status */
int lc_merge_main(int argc, char **argv);
/* hxload compare A.json... [vs B.json...]: the exit status */
int lc_compare_main(int argc, char **argv);
/* hxload quic-flood [options] HOST:PORT: the exit status */
int lc_qflood_main(int argc, char **argv);
/* the report, its checks and its page, from merged figures: the exit status */
int lc_finish(const struct lc_stats *T, const struct lc_meta *m, const struct lc_series *s,
	      int json, const char *html, const char *fail_on);

#endif

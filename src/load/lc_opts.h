/* hxload's options and target: what the command line set, read-only once it is parsed. */
#ifndef HX_LC_OPTS_H
#define HX_LC_OPTS_H

#include <stdint.h>
#include <sys/socket.h>

#define LC_MAX_DEPTH  1024      /* -m */
#define LC_QS_PORTS_MAX 64     /* --h3-ports */
#define LC_MAX_PATH   65536     /* a longer path is refused, never cut */
#define LC_MAX_HDRS   32        /* -H */
#define LC_MAX_PIDS   8        /* --pid NAME=PID */
#define LC_UNSENT_MAX 0.01     /* open loop: never sent past this share of the due: exit 1 */
#define LC_LATE_WARN  0.10     /* open loop: sent over LC_LATE_US late past this share: a warning */
#define LC_MAX_STAGES 64        /* --stages */
#define LC_LATE_US    1000      /* open loop: sent this long after its time is late */
#define LC_STATUS_MAX 1000      /* statuses 100..999 are counted */


enum lc_proto { LC_AUTO, LC_H1, LC_H2, LC_H3, LC_WS, LC_NPROTO };

/* a rate stage: <rate0> to <rate1> requests per second, linearly, over <us> */
struct lc_stage {
	uint64_t us;
	double rate0, rate1;
};

/* routing, in the order they apply */
struct lc_route {
	const char *connect_to[16], *resolve[16];
	int nconnect_to, nresolve;
	const char *unix_path;
	const char *sni;             /* NULL: the URL's host when it is a name */
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
	int hs;                      /* --handshakes: new connections of a full : resumed : 0-RTT mix */
	unsigned hs_mix[3];          /* ... its shares (lc_hs.h's kinds) */
	int h3_no_credit;            /* --h3-no-credit: stream windows never extended */
	int h3_no_body;              /* --h3-no-body: the request body never sent */
	int h2_nghttp2;              /* --h2-engine nghttp2: nghttp2's session, not ours */
	int h3_ports;                /* --h3-ports: UDP sockets a thread's h3 connections share, 0 one each */
	int h3_no_ring;              /* --h3-no-ring: each socket's reads and sends a system call of their own */
	int udp_rcvbuf;              /* --udp-rcvbuf: h3 sockets' receive buffer, 0 the kernel's */
	int exact_wake;              /* --exact-wake: the threads' timer slack 1 ns */
	int h3_window, h3_conn_window; /* --h3-window, --h3-conn-window: the flow-control windows h3 advertises */
	struct lc_field {            /* --h3-fields: a connection's first request, as given */
		const char *name, *value;
		size_t nlen, vlen;
	} h3_fields[LC_MAX_HDRS];
	int nh3_fields;
	int proxy_proto;             /* --proxy-protocol: 1 or 2, 0: none */
	int server_pid;              /* --server-pid: its CPU time is measured, 0: none */
	struct lc_named_pid {        /* --pid NAME=PID: more processes whose CPU time is measured */
		char name[32];
		int pid;
	} pids[LC_MAX_PIDS];
	int npids;
	int idle;                    /* --idle: connections held idle beside the load */
	uint64_t idle_ping_us;       /* --idle-ping: h2 PINGs on them, 0: none */
	enum lc_proto force;         /* --h1 / --h2 / --h3 */
	const char *method;
	uint64_t body;               /* --body: request body bytes */
	const char *hdrs[LC_MAX_HDRS]; /* -H, without Host */
	int nhdrs;
	const char *host_hdr;        /* -H 'Host: ...': its value, NULL: the URL's */
	int have_conn_hdr;           /* -H 'Connection: ...' given */
	int have_stages;             /* --stages given */
	const char *source;          /* --source's addresses, read by lc_cli (source.c) */
	const char *label, *html, *log, *fail_on;
	const char *expect;          /* --expect: the statuses that are right, NULL: 2xx */
	uint8_t expect_set[LC_STATUS_MAX]; /* ... by status, when given */
	const char *cert, *key, *cacert;
	uint64_t interval_us;        /* --interval: one JSON line each */
	uint64_t series_us;          /* intervals recorded (--interval, or 1 s for --html) */
	double start_at;             /* --start-at, epoch seconds, 0: now */
	char cmdline[1024];          /* the options, as given, for the report */
	const char *urls;            /* --urls FILE, NULL: one URL */
	double probe;                /* --probe RATE: a reference probe at this rate beside the load, 0: none */
	int sse;                     /* --sse: the bodies are server-sent events, each one's delay measured */
	const char *hlog;            /* --hlog FILE: HdrHistogram's interval log, NULL: none */
	const char *metrics;         /* --metrics HOST:PORT: Prometheus text while it runs, NULL: none */
	int shard, shards;           /* --shard I/N: this run is the I-th of N sharing one schedule (N 1: all) */
	int argc;                    /* the command line, for the probe's child */
	char **argv;
	struct lc_route route;       /* where to connect, as named (url.c reads it) */
};

/* one path of the target (--urls gives several, with weights) */
struct lc_path {
	char *path;
	const char *meta;            /* grpc://: the URL's query, sent as x-hxterm metadata, or NULL */
	char *req;                   /* its HTTP/1 request */
	size_t reqlen;
	double cum;                  /* cumulative weight, 0..1 */
};

struct lc_target {
	enum lc_proto proto;         /* LC_AUTO: TLS with ALPN */
	int tls;
	int grpc;                    /* grpc://, grpcs://: gRPC calls on h2 */
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

/* The options and the target, as the command line set them (opts.c holds
 * them, cli.c and url.c alone write them, through lc_cli.h): every other
 * file reads them through these, after lc_cli() returned. */
extern const struct lc_opts *const lc_o;

/* the flow-control windows hxload's h3 advertises: a stream's
 * (--h3-window, 1 KiB with --h3-no-credit), the connection's
 * (--h3-conn-window) */
#define LC_H3_WINDOW (8u << 20)
#define LC_H3_NO_CREDIT_WINDOW 1024u /* --h3-no-credit's */
#define LC_H3_CONN_WINDOW (64u << 20)

static inline uint32_t lc_h3_window(void)
{
	return lc_o->h3_no_credit ? LC_H3_NO_CREDIT_WINDOW : (uint32_t)lc_o->h3_window;
}

extern const struct lc_target *const lc_tg;

/* prints "hxload: <fmt with arg>" and exits 2 */
void lc_die(const char *fmt, const char *arg) __attribute__((noreturn));
/* parses the command line into the options and the target, or exits 2 */
void lc_cli(int argc, char **argv);
/* --probe: the probe run's command line, the load's own but for its shape
 * and outputs, at the probe's rate on one connection, from <start_at> */
char **lc_probe_argv(double start_at);

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

#endif

/* hxload's shared types: targets, per-thread state, client connections of every protocol. */
#ifndef HX_LC_H
#define HX_LC_H

#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>

#include "h1_parse.h"
#include "hist.h"
#include "oq.h"
#include "loop.h"
#include "xprt.h"

typedef struct ssl_ctx_st SSL_CTX;

#define LC_MAX_DEPTH 1024 /* -m */

enum lc_proto { LC_AUTO, LC_H1, LC_H2, LC_H3 };

/* error kinds, as reported */
enum lc_err { E_CONNECT, E_TLS, E_TIMEOUT, E_RESET, E_PROTOCOL, E_BODY, E_MAX };

struct lc_opts {
	int threads, conns, depth;
	uint64_t duration_us, warmup_us, timeout_us;
	uint64_t total;              /* -n, 0: until the duration ends */
	double rate;                 /* -R, requests per second, 0: closed loop */
	int verify, json, quiet;
	enum lc_proto force;         /* --h1 / --h2 / --h3 */
	const char *method;
	uint64_t body;               /* --body: request body bytes */
	const char *hdrs[32];        /* -H */
	int nhdrs;
};

struct lc_target {
	enum lc_proto proto;         /* LC_AUTO: TLS with ALPN */
	int tls;
	struct sockaddr_storage addr;
	socklen_t alen;
	char authority[300];
	char path[4096];
	char *req;                   /* HTTP/1 request template */
	size_t reqlen;
};

/* one in-flight exchange */
struct lc_ex {
	int64_t id;                  /* h2/h3 stream, -1 when free */
	uint64_t t0;                 /* us: intended (open loop) or actual send */
	uint64_t server_us;          /* from X-rsp, UINT64_MAX when absent */
	uint64_t bytes;              /* body bytes received */
	int64_t announced;           /* X-rsp size=, -1 when absent */
	uint64_t body_left;          /* request body still to send (h2) */
	uint16_t status;
	uint8_t bad;                 /* body mismatch seen */
	uint8_t random;              /* not the pattern (R=1 and the like) */
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
	uint32_t inflight;
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

struct lc_thread {
	struct loop loop;            /* epoll, timers, the clock (loop.now_us) */
	int id;
	pthread_t th;
	uint64_t start_us, end_us, record_from_us;
	const struct lc_opts *o;
	const struct lc_target *tg;
	struct lc_conn *conns;
	int nconns;
	uint64_t budget;             /* requests this thread may still start */
	uint64_t started, done;
	/* open loop: intended send times waiting for a free slot */
	uint64_t next_due_us;
	double interval_us;
	uint64_t *due;
	uint32_t due_head, due_n, due_cap;
	/* results */
	struct hist lat, srv, oth;
	uint64_t status[600];
	uint64_t errors[E_MAX];
	uint64_t bytes;
	uint64_t reqs;
	_Atomic uint64_t progress;   /* requests done, read by the main thread */
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
};

extern const struct lc_protocol lc_h1, lc_h2, lc_h3;

/* ---------- run.c: threads, connections, what the protocols call ---------- */

/* Returns the send time for a new exchange, or 0 when none may start now. */
uint64_t lc_take(struct lc_conn *c);
void lc_record(struct lc_conn *c, struct lc_ex *e);
void lc_error(struct lc_conn *c, enum lc_err kind);
/* closes <c> (its protocol state freed) and schedules a new connection */
void lc_reset(struct lc_conn *c);
void lc_verify(struct lc_ex *e, const char *p, size_t n);
/* reads X-rsp into <e> */
void lc_xrsp(struct lc_ex *e, const char *v, size_t len);

/* every protocol's library globals, before the threads start */
int lc_protos_init(void);
void lc_protos_free(void);
void lc_thread_init(struct lc_thread *t, int id, uint64_t start);
void *lc_thread_main(void *arg);
void lc_thread_free(struct lc_thread *t);
/* the progress line on stderr, once a second, until the threads end */
void lc_progress(struct lc_thread *ts, uint64_t start);
/* SIGINT, SIGTERM: the threads stop */
void lc_interrupt(void);
/* the one line saying why no connection could be made, or NULL */
const char *lc_fatal(void);
/* the client TLS context (https://) */
extern SSL_CTX *lc_tls;

/* ---------- cli.c: the command line ---------- */

extern struct lc_opts lc_opts;
extern struct lc_target lc_target;
/* parses the command line into lc_opts and lc_target, or exits 2 */
void lc_cli(int argc, char **argv);
/* prints "hxload: <fmt with arg>" and exits 2 */
void lc_die(const char *fmt, const char *arg) __attribute__((noreturn));

/* ---------- report.c ---------- */

struct lc_total {
	struct hist lat, srv, oth;
	uint64_t status[600], errors[E_MAX], bytes, reqs;
	double secs;
};

extern const char *const lc_err_names[E_MAX];
void lc_total_add(struct lc_total *T, const struct lc_thread *t);
void lc_report_text(const struct lc_total *T);
void lc_report_json(const struct lc_total *T);

#endif

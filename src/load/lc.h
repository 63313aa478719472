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

/* hxload.c: what the protocol modules call */
/* Returns the send time for a new exchange, or 0 when none may start now. */
uint64_t lc_take(struct lc_conn *c);
void lc_record(struct lc_conn *c, struct lc_ex *e);
void lc_error(struct lc_conn *c, enum lc_err kind);
/* closes <c> (its protocol state freed) and schedules a new connection */
void lc_reset(struct lc_conn *c);
void lc_verify(struct lc_ex *e, const char *p, size_t n);
/* reads X-rsp into <e> */
void lc_xrsp(struct lc_ex *e, const char *v, size_t len);

/* lc_h1.c */
int lc_h1_start(struct lc_conn *c);
int lc_h1_io(struct lc_conn *c);
/* lc_h2.c */
/* library globals, made before the threads start and freed after */
int lc_h2_global_init(void);
void lc_h2_global_free(void);
int lc_h2_start(struct lc_conn *c);
int lc_h2_io(struct lc_conn *c);
void lc_h2_free(struct lc_conn *c);
/* lc_h3.c */
int lc_h3_open(struct lc_conn *c);
int lc_h3_io(struct lc_conn *c);
void lc_h3_free(struct lc_conn *c);
int lc_h3_global_init(void);
void lc_h3_global_free(void);

#endif

/* hxload --idle's state between its files: the held connections, their closes, the RSS taken. */
#ifndef HX_LC_IDLE_INT_H
#define HX_LC_IDLE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "lc_opts.h"

#define IDLE_BUCKETS 64 /* closes per second of idleness; the last takes the rest */

enum { IC_NONE, IC_CONNECTING, IC_TLS, IC_SENT, IC_ANSWERED, IC_CLOSED, IC_FAILED };
enum { RSS_REST, RSS_OPENED, RSS_END, RSS_N };

/* one held connection: a few bytes, no buffer */
typedef struct ssl_st SSL;

struct idle_conn {
	int fd;
	uint8_t st;                  /* IC_* */
	uint8_t h2;                  /* h2c://, or ALPN chose h2 */
	uint8_t hn;                  /* h2: bytes of the frame header in <hb> */
	uint8_t hb[9];
	uint32_t skip;               /* h2: the frame's payload bytes still to skip */
	uint64_t since_us;           /* its answer came: idle from then */
	SSL *ssl;                    /* https://, else NULL */
};

struct idle_state {
	int n, h2, ep, running;      /* h2: h2c:// */
	int opened, connecting;      /* the idle thread's */
	struct idle_conn *conns;
	pthread_t th;
	_Atomic int stop;
	_Atomic unsigned answered, failed;
	uint64_t start_us;
	double open_s;               /* the time all were answered (or given up on) */
	/* closes by the peer, by seconds idle (read after the thread ends) */
	unsigned closed, buckets[IDLE_BUCKETS];
	uint64_t first_us, last_us;  /* idle time of the first and the last close */
	uint64_t pings;              /* --idle-ping: PINGs sent */
	int held;                    /* still open at the end */
	int unanswered;              /* neither answered nor failed when the load started */
	char why[128];               /* the first failure's cause, or "" */
	int nrss;                    /* rows: hxload itself, then each --pid */
	struct { char name[32]; int pid; uint64_t kib[RSS_N]; } rss[LC_MAX_PIDS + 1];
};

extern struct idle_state lc_idle;

/* idle_proto.c: the one request, what comes back, the PINGs */
int idle_send_request(struct idle_conn *c);
int idle_read(struct idle_conn *c, const char *p, size_t n, uint64_t now);
void idle_ping_all(struct idle_state *s, uint64_t now);
/* idle_tls.c: the handshake; bytes in and out, TLS or not */
int idle_tls_start(struct idle_conn *c);
int idle_tls_step(struct idle_conn *c);
int idle_send(struct idle_conn *c, const void *p, size_t n);
long idle_recv(struct idle_conn *c, char *buf, size_t n);
void idle_tls_free(struct idle_conn *c);
/* idle_report.c */
void idle_closed(struct idle_state *s, uint64_t idle_us);
/* the first connection that failed: its errno, said once in the report */
void idle_why(struct idle_state *s, int err);
void idle_rss(struct idle_state *s, int when);

#endif

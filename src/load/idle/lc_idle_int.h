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
	struct idle_q *q;            /* h3: its QUIC connection (idle_h3.c), else NULL */
};

struct idle_state {
	int n, h2, h3, ep, running;  /* h2: h2c://; h3: --h3 */
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
	/* <merged>: a row of a run read back (hxload merge), its KiB over <per>, its own run's answered */
	struct { char name[32]; int pid, merged; unsigned per; uint64_t kib[RSS_N]; } rss[LC_MAX_PIDS + 1];
};

extern struct idle_state lc_idle;

/* idle_proto.c: the one request, what comes back, the PINGs */
int idle_send_request(struct idle_conn *c);
int idle_read(struct idle_conn *c, const char *p, size_t n, uint64_t now);
/* its answer came (the first bytes of it): idle from <now> */
void idle_answered(struct idle_conn *c, uint64_t now);
/* h3: the request's HEADERS frame (QPACK, static table and literals) in <p>: its length, 0 when it does not fit */
size_t idle_h3_request(uint8_t *p, size_t max);
void idle_ping_all(struct idle_state *s, uint64_t now);
/* the run's end on a held connection: h2's GOAWAY, TLS's close_notify */
void idle_end(struct idle_conn *c);
/* idle_tls.c: the handshake; bytes in and out, TLS or not */
int idle_tls_start(struct idle_conn *c);
int idle_tls_step(struct idle_conn *c);
int idle_send(struct idle_conn *c, const void *p, size_t n);
long idle_recv(struct idle_conn *c, char *buf, size_t n);
void idle_tls_free(struct idle_conn *c);
/* idle_h3.c: QUIC; <c>'s fd set and watched, then 0, or -1 with errno */
int idle_h3_open(struct idle_conn *c, int ep, uint32_t source);
/* its socket is readable: 0, or -1 when it ended (idle_gone's to free) */
int idle_h3_event(struct idle_conn *c);
/* the idle thread's wait: <most> ms, less when a QUIC timer is due sooner */
int idle_h3_wait_ms(int most);
/* the due timers run, up to one whose connection ended: it (idle_gone's), or NULL */
struct idle_conn *idle_h3_timers(struct idle_state *s);
void idle_h3_free(struct idle_conn *c);
/* the thread's timers freed (all connections are) */
void idle_h3_end(void);
/* idle.c: <c> closed (by the peer, or failed), its state freed, counted */
void idle_gone(struct idle_conn *c, uint64_t now);
/* idle_report.c */
void idle_closed(struct idle_state *s, uint64_t idle_us);
/* the first connection that failed: its errno, said once in the report */
void idle_why(struct idle_state *s, int err);
void idle_why_text(struct idle_state *s, const char *why);
void idle_rss(struct idle_state *s, int when);

#endif

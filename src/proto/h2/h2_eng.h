/* HTTP/2: the connection shell (h2_conn.c) and its framing engines (ours, h2_hx.c; nghttp2's session, h2_ng.c): what they share. */
#ifndef HX_H2_ENG_H
#define HX_H2_ENG_H

#include <nghttp2/nghttp2.h>
#include <stddef.h>
#include <stdint.h>

#include "h2_sids.h"
#include "list.h"
#include "oq.h"
#include "rio.h"
#include "timer-t.h"
#include "tconn.h"
#include "xprt.h"
#include "xstream.h"

/* connection flags */
#define H2C_RD_READY NC_RD_READY
#define H2C_WR_READY NC_WR_READY
#define H2C_DEAD     TC_DEAD
#define H2C_BLOCKED  0x08 /* the engine wanted to send but the queue was full */
#define H2C_RDHUP    NC_RDHUP
#define H2C_EARLY    0x20 /* reading TLS early data: its streams say early=1 */
#define H2C_ENDING   0x40 /* its request limit reached: GOAWAY sent, later streams refused */

#define H2_STAGE_MAX (1 << 20) /* bytes staged per writev */

/* error codes (RFC 9113 7) */
enum {
	H2E_NO_ERROR = 0, H2E_PROTOCOL = 1, H2E_INTERNAL = 2, H2E_FLOW = 3, H2E_SETTINGS_TMO = 4,
	H2E_STREAM_CLOSED = 5, H2E_FRAME_SIZE = 6, H2E_REFUSED = 7, H2E_CANCEL = 8,
	H2E_COMPRESSION = 9, H2E_CONNECT = 10, H2E_CALM = 11,
};

/* WHY the casts: nghttp2_nv is laid out as xstream's nv pairs */
_Static_assert(sizeof(nghttp2_nv) == sizeof(struct xs_nv) &&
	       offsetof(nghttp2_nv, valuelen) == offsetof(struct xs_nv, valuelen) &&
	       offsetof(nghttp2_nv, flags) == offsetof(struct xs_nv, flags), "nghttp2_nv layout");

struct h2c;
struct wss;

/* our SETTINGS, as both engines send them */
struct h2_setting {
	uint16_t id;
	uint32_t val;
};
#define H2_NSETTINGS 7
void h2_settings(struct h2_setting *out);

struct h2s {
	struct h2c *c;
	struct list node;    /* on the connection's streams or the free list */
	int32_t id;
	uint32_t size;       /* bytes allocated: its engine's ssize */
	uint64_t since;      /* ms: its last progress, for its stall deadline */
	struct wss *wss;     /* an extended CONNECT's WebSocket, or NULL */
	struct xstream x;    /* (an engine's own state follows, h2_eng.ssize) */
};

struct h2c {
	struct tconn t;      /* first: nc (ev, x, tm, last_act, flags, why, proto: SP_H2, SP_H2C), w, node */
	const struct h2_eng *eng;
	void *sess;          /* the engine's state: nghttp2_session, struct h2x */
	uint32_t nstreams;
	uint32_t total;      /* streams opened on it, for the stats */
	uint32_t max_req;    /* its last request's number (--conn-requests, maxreq=), 0: none */
	struct plan_conn chg; /* h2s=, h2w=, ping= an answer asked for, applied once it went */
	uint64_t ping_at;    /* ms: our next PING (ping=), UINT64_MAX: none */
	char *in;
	uint32_t in_size;
	uint64_t scan_at;    /* ms: the next look at its streams' stalls */
	uint64_t rst_sec;    /* second of the reset count */
	uint32_t rst_count;
	uint16_t alt_port;   /* Alt-Svc h3 port, 0: none */
	struct cinfo *ci;    /* the client beyond the socket (X-Client), or NULL */
	struct list streams; /* live streams, freed with the connection */
	struct big *big;     /* oversized frames staged outside the scratch */
	struct oq oq;
	struct rio rio;      /* --io-uring, clear text: the ring transport (x.rio) */
	struct h2_sids sids; /* the client's stream ids, which it used */
};

/* A framing engine: the shell calls it for everything the wire carries.
 * int functions give 0, or -1 (out of memory, or the connection is done). */
struct h2_eng {
	size_t ssize;        /* its stream's size: struct h2s, or a wrapper starting with one */
	size_t wsize;        /* its work state's size (h2c_work_get), 0: none */
	int (*open)(struct h2c *c);                  /* its state and our SETTINGS */
	void (*close)(struct h2c *c);
	/* an h2c Upgrade: the client's HTTP2-Settings; <s> is stream 1 */
	int (*upgrade)(struct h2c *c, struct h2s *s, const uint8_t *settings, size_t n, int head);
	int (*recv)(struct h2c *c, const uint8_t *p, size_t n); /* -1: a fatal error */
	int (*send)(struct h2c *c);                  /* stages and writes frames */
	int (*alive)(struct h2c *c);                 /* more to read or to send */
	void (*goaway)(struct h2c *c, uint32_t code); /* GOAWAY, the end once sent */
	void (*drain)(struct h2c *c);                /* GOAWAY, the open streams go on */
	/* a SETTINGS of ours mid-connection (h2s=, h2w=): -1 out of memory */
	int (*settings)(struct h2c *c, const struct h2_setting *set, size_t n);
	void (*ping)(struct h2c *c);                 /* a PING of ours (ping=) */
	void (*rst)(struct h2s *s, uint32_t code);   /* <s> may be freed at once */
	int (*respond)(struct h2s *s, const struct xs_nv *nv, size_t n, int body);
	/* a 1xx head without END_STREAM: 100 Continue, 103 Early Hints */
	int (*info)(struct h2s *s, const struct xs_nv *nv, size_t n);
	void (*resume)(struct h2s *s);               /* its body can go on */
	int64_t (*window)(struct h2c *c, struct h2s *s); /* the peer's: <s>, or the connection's */
	/* no stream open, nothing to send: what it holds may go back; when
	 * to call it again (ms, UINT64_MAX: never), or NULL */
	uint64_t (*rest)(struct h2c *c);
};

extern const struct h2_eng h2_eng_ng, h2_eng_hx;

/* the nghttp2 engine's process-wide callbacks and options */
int h2_ng_init(void);
void h2_ng_free(void);

/* ---- what the shell offers the engines ---- */

/* an engine's work state (h2_eng.wsize bytes, not zeroed), from the
 * thread's pool while requests flow: NULL out of memory / given back */
void *h2c_work_get(struct h2c *c);
void h2c_work_put(struct h2c *c, void *p);

/* a stream opens (-1: out of memory) / is gone */
struct h2s *h2s_get(struct h2c *c, int32_t id);
void h2s_put(struct h2s *s);

/* the request's header list came to its end; <end>: so did the request */
void h2s_head_in(struct h2s *s, int end);
/* request body bytes / its end */
void h2s_data_in(struct h2s *s, const uint8_t *p, size_t n);
void h2s_end_in(struct h2s *s);

/* the stream cannot be answered (out of memory): reset, never left hanging */
void h2s_fail(struct xstream *x);

/* The stream's next DATA, at most <max> bytes, as the generator says */
enum h2_next {
	H2N_DATA,    /* <a> bytes */
	H2N_LAST,    /* <a> bytes, the body's last */
	H2N_END,     /* nothing more: the body ended before */
	H2N_WAIT,    /* nothing now (a d= pause, a close under way) */
	H2N_RESET,   /* the stream is to be reset */
};
enum h2_next h2s_next(struct h2s *s, size_t max, struct ex_action *a);

/* stages <a>'s bytes (iovecs into the body) after a frame header <hd> */
void h2s_stage_body(struct h2c *c, struct h2s *s, const uint8_t *hd, const struct ex_action *a);
/* whether the queue has room for a DATA frame of <len> bytes */
int h2c_room(const struct h2c *c, size_t len);
/* the largest DATA frame an empty queue takes (h2c_room): a bound on the
 * peer's SETTINGS_MAX_FRAME_SIZE */
size_t h2c_frame_max(void);

/* the first reason given is the one counted */
void h2c_why(struct h2c *c, unsigned why);
/* RFC 9113 rapid reset (CVE-2023-44487): 1 when over --h2-max-resets */
int h2c_count_reset(struct h2c *c);
/* GOAWAY and RST_STREAM sent, counted by code */
void h2c_sent_goaway(struct h2c *c, uint32_t code);
void h2c_sent_rst(struct h2c *c, uint32_t code);
void h2c_recv_rst(struct h2c *c, uint32_t code);

/* writes what is staged: 0 all out, HX_AGAIN the socket is full, -1 dead */
int h2c_flush(struct h2c *c);
/* stages <n> bytes, copied; -1 when out of memory */
int h2c_stage(struct h2c *c, const uint8_t *data, size_t n);
/* stages <n> bytes copied into the queue's own buffer when they fit there
 * (no malloc, no write), else -1 and nothing staged */
int h2c_stage_copy(struct h2c *c, const uint8_t *data, size_t n);

#endif

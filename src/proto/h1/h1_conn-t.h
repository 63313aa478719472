/* Types of an HTTP/1.x connection: buffers, output queue, request and response state. */
#ifndef HX_H1_CONN_T_H
#define HX_H1_CONN_T_H

#include <stdint.h>
#include <sys/uio.h>

#include "gen.h"
#include "h1_memo.h"
#include "h1_parse.h"
#include "list.h"
#include "msg-t.h"
#include "oq.h"
#include "pool.h"
#include "rio.h"
#include "session-t.h"
#include "splice.h"
#include "timer-t.h"
#include "uring.h"
#include "tc_set.h"
#include "xprt.h"

/* connection flags */
#define H1C_RD_READY  NC_RD_READY
#define H1C_WR_READY  NC_WR_READY
#define H1C_EOF       0x0004 /* the peer shut its side */
#define H1C_KEEP      0x0008 /* keep alive after the current response */
#define H1C_HEAD_OUT  0x0010 /* the current response head is staged */
#define H1C_TRL_OUT   0x0020 /* last chunk and trailers staged */
#define H1C_CONTINUE  0x0040 /* 100 Continue is owed before reading body */
#define H1C_DEAD      TC_DEAD
#define H1C_HEAD_END  0x0100 /* the whole head, padding included, is staged */
#define H1C_SHUT      0x0200 /* write side shut (lingering close) */
#define H1C_HANDOFF   TC_MOVED /* the socket went to another protocol */
#define H1C_RDHUP     NC_RDHUP
#define H1C_NOSPLICE  0x2000 /* the rest of this body goes by writev */
#define H1C_FRESH     0x4000 /* t_recv's bytes have ended no head yet */

/* states, in the order one request goes through them */
enum h1_state {
	H1S_HEAD,    /* reading a request head */
	H1S_BODY,    /* draining the request body before responding */
	H1S_SEND,    /* staging and sending the response */
	H1S_DRAIN,   /* draining the rest of the body after responding */
	H1S_UNTIL,   /* a wait the generator asked for, then <next_st> */
	H1S_LINGER,  /* closing: write side shut, discarding input */
};

struct h1c {
	struct tconn t;      /* first: nc (ev, x, tm, last_act, flags, why, proto: SP_H1, SP_H1TLS), w, node */
	uint8_t st;
	uint8_t next_st;     /* the state after H1S_UNTIL */
	uint8_t minor;       /* HTTP/1.<minor> of the current request */

	/* input: unread bytes at [rd, wr); the current head stays at
	 * [hend - head_size, hend) until its response is staged (E=1) */
	char *in;
	uint32_t in_size;
	uint32_t rd;
	uint32_t wr;
	uint32_t hend;
	uint32_t nreq;       /* requests seen on this connection */
	uint32_t max_req;    /* its last request's number (--conn-requests, maxreq=), 0: none */
	uint16_t alt_port;   /* Alt-Svc h3 port on a TLS connection, else 0 */

	struct oq oq;

	/* time */
	int64_t t_recv;      /* ns: last recv that brought bytes */
	uint64_t until;      /* us: end of a wait (t=, d=, P=) or a linger */
	uint64_t idle_ms;    /* keep-alive idle timeout (w= overrides) */

	/* request body */
	uint32_t info;       /* H1I_* of the current request */
	uint64_t body_left;  /* Content-Length bytes not yet read */
	uint64_t body_read;  /* payload bytes read */
	struct h1_chunk ck;

	/* response body: the cursor is the exchange's */
	uint64_t chunk_left; /* bytes left in the current chunk */
	struct spipe *sp;    /* pipe of a spliced body, NULL otherwise */

	int64_t t_first;     /* ns: first byte of the request being read, 0 none */
	struct ist settings; /* HTTP2-Settings of an Upgrade: h2c request */
	struct ist ws_key;   /* Sec-WebSocket-Key of an Upgrade: websocket request */
	struct exch *ex;     /* the exchange being served, from a pool; NULL idle */
	struct cinfo *ci;    /* the client beyond the socket (X-Client), or NULL */
	uint32_t early_left; /* bytes at the start of the input that came as TLS early data */

	/* --io-uring, clear text: the ring transport (x.rio points here) */
	struct rio rio;
};

/* HTTP/1's state in each worker (worker->ps[P_H1]) */
struct h1w {
	struct tc_set set;   /* its connections */
	struct pool in;      /* input buffers, held while a request is read */
	struct pool sc;      /* output scratch, held while a response is staged */
	struct pool ex;      /* exchanges (struct exch) */
	struct h1_req req;   /* parser scratch: headers are only read in place */
	struct h1_memo memo; /* the last head accepted, replayed for the same bytes */
};

static inline struct h1w *h1w(const struct worker *w)
{
	return w->ps[P_H1];
}

#endif

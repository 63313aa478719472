/* The response plan: what one request asked for, protocol-neutral. */
#ifndef HX_PLAN_T_H
#define HX_PLAN_T_H

#include <stdint.h>

#define PLAN_MAX_FIELDS 16  /* H= and T= items, each */
#define PLAN_DEC_SIZE   2048 /* percent-decoded H=/T= bytes */
#define PLAN_MAX_PAD    (1 << 20)

/* plan flags */
#define PF_NOCACHE   0x00000001 /* c=0: Cache-Control: no-cache */
#define PF_CLOSE     0x00000002 /* C=1: close after this response */
#define PF_KEEP      0x00000004 /* K=1: keep alive after this response */
#define PF_NOSPLICE  0x00000008 /* S=0 */
#define PF_RANDOM    0x00000010 /* R=1: random body bytes */
#define PF_ACKFIRST  0x00000020 /* A=1: respond, then drain the body */
#define PF_NOLEN     0x00000040 /* b=0: no Content-Length */
#define PF_LIE       0x00000080 /* b=N: announce <announce> */
#define PF_ETAG      0x00000100 /* e=1 */
#define PF_ECHO      0x00000200 /* E=1: body = request headers */
#define PF_HELP      0x00000400 /* /? or h: the help page */
#define PF_CHUNK     0x00000800 /* k=N */
#define PF_RESET     0x00001000 /* x=N: reset after <fault_at> body bytes */
#define PF_TRUNC     0x00002000 /* X=N: close after <fault_at> body bytes */
#define PF_BODYMAX   0x00004000 /* B=N */
#define PF_IDLE      0x00008000 /* w=N */
#define PF_PIECE     0x00010000 /* p=N */
#define PF_BAD       0x00020000 /* bad input: answer <status> with <err> */
#define PF_LASTMOD   0x00040000 /* L=1: Last-Modified from the target, If-Modified-Since */
#define PF_MAXAGE    0x00080000 /* m=N: Cache-Control: max-age=N */
#define PF_SMAXAGE   0x00100000 /* M=N: Cache-Control: s-maxage=N */
#define PF_ECHOBODY  0x00200000 /* E=2: body = the request body */
#define PF_VARY      0x00400000 /* V=Name: Vary: Name, X-Hxterm-Vary: its value */
#define PF_SSE       0x00800000 /* sse=1: server-sent events, n= of s= bytes, d= apart */
#define PF_GRPC      0x01000000 /* a gRPC call: n= messages of s= bytes, grpc-status in trailers */
#define PF_CC        0x02000000 /* cc=: Cache-Control directives (enum plan_cc) */
#define PF_AGE       0x04000000 /* age=N: Age: N */
#define PF_RETRY     0x08000000 /* retry=MS: sse=1's retry: line */
#define PF_CONN      0x10000000 /* maxreq=, h2s=, h2w=, ping=: the connection's behaviour (ext->conn) */
#define PF_HINT      0x20000000 /* hint=: a 103 Early Hints with ext->hint's Link first */
#define PF_SSEDONE   0x40000000 /* done=1: sse=1's last event followed by data: [DONE] */
#define PF_TTFT      0x80000000 /* ttft=MS: the body's first byte this long after the head */

/* cc= directives, each a bit of plan.cc, in the order Cache-Control says them */
enum plan_cc { CC_PUBLIC = 1, CC_PRIVATE = 2, CC_NOSTORE = 4, CC_MUSTREV = 8, CC_IMMUTABLE = 16, CC_NOTRANSFORM = 32 };
#define PLAN_CC_NAMES { "public", "private", "no-store", "must-revalidate", "immutable", "no-transform" }

/* ws= */
enum { WS_NONE, WS_ECHO, WS_GEN };
#define PLAN_SPEC 48 /* the text of s= and d=, drawn again per WebSocket message */
#define PLAN_IGN  48 /* the names of the unknown keys, comma-separated, for X-Hxterm-Ignored */

struct hfield {
	const char *name;
	const char *lname;   /* the lower-case name, a literal (HPK_LITERAL_NAME), when known (h2/h3), else NULL */
	const char *val;
	uint32_t nlen;
	uint32_t vlen;
};

/* the connection behaviours a request asks for (PF_CONN): each set when
 * its bit of <set> is, for the rest of the connection */
enum { PC_MAXREQ = 1, PC_STREAMS = 2, PC_WINDOW = 4, PC_PING = 8 };
struct plan_conn {
	uint8_t set;         /* PC_* bits */
	uint32_t maxreq;     /* maxreq=: the connection ends after its Nth request */
	uint32_t streams;    /* h2s=: SETTINGS_MAX_CONCURRENT_STREAMS sent after the answer */
	uint32_t window;     /* h2w=: SETTINGS_INITIAL_WINDOW_SIZE sent after the answer */
	uint32_t ping_ms;    /* ping=: a server PING every ping_ms (0: once) */
};

/* What few plans use: the H= and T= fields, the decoded bytes they point
 * into, s= and d= in a random form, the reason of a bad item. Taken when a
 * key asks for it (plan_ext_need), from a per-thread list (plan_ext.c).
 * WHY apart: 3.3 KB in every stream and exchange, where most queries are
 * s=, t= and flags (issue 38) */
struct plan_ext {
	struct plan_ext *next; /* on the thread's free list */
	uint32_t dec_used;
	struct hfield hdr[PLAN_MAX_FIELDS];
	struct hfield trl[PLAN_MAX_FIELDS];
	char spec_s[PLAN_SPEC]; /* s= and d= in a random form (empty: none or a plain number), for each message */
	char spec_d[PLAN_SPEC];
	struct plan_conn conn; /* PF_CONN */
	struct hfield hint;  /* PF_HINT: the Link of a 103 Early Hints, its value in dec */
	char err[160];       /* one-line reason when parsing failed, '\n' ended */
	char dec[PLAN_DEC_SIZE];
};

struct plan {
	uint32_t flags;
	uint16_t status;
	uint8_t nhdr;        /* H= fields, in ext->hdr */
	uint8_t ntrl;        /* T= fields (and gRPC's), in ext->trl */
	uint64_t size;       /* s */
	uint64_t wait_ms;    /* t */
	uint64_t chunk;      /* k */
	uint64_t announce;   /* b */
	uint64_t body_max;   /* B */
	uint64_t piece;      /* p */
	uint64_t drip_ms;    /* d */
	uint64_t pause_ms;   /* P */
	uint64_t idle_ms;    /* w */
	uint64_t fault_at;   /* x or X */
	uint64_t pad;        /* z */
	uint64_t max_age;    /* m */
	uint64_t s_maxage;   /* M */
	uint64_t age;        /* age= */
	uint64_t count;      /* n: WebSocket messages of ws=gen, events of sse=1 */
	uint64_t retry_ms;   /* retry= (PF_RETRY): sse=1's retry: line */
	uint64_t ttft_ms;    /* ttft=: sse=1's first event this long after the head */
	struct plan_ext *ext; /* NULL until a key needs it */
	uint8_t cc;          /* cc= (PF_CC): enum plan_cc bits */
	uint8_t ws;          /* ws=: WS_NONE, WS_ECHO, WS_GEN */
	uint8_t vary_len;
	uint8_t ign_len;     /* bytes of <ignored>: 0, every key was known */
	char vary[32];       /* V=: a request header's name */
	char ignored[PLAN_IGN];
};

#endif

/* Our HTTP/2 engine's own: the connection's state, its frames' bytes, errors and streams, what its files share (h2_hx.c, h2x_*.c). */
#ifndef HX_H2X_H
#define HX_H2X_H

#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "h2_eng.h"
#include "hpack.h"
#include "xmemo.h"

/* frame types and flags (RFC 9113 6) */
enum { FR_DATA, FR_HEADERS, FR_PRIORITY, FR_RST, FR_SETTINGS, FR_PUSH, FR_PING, FR_GOAWAY, FR_WINDOW, FR_CONT };
#define FL_END_STREAM  0x01
#define FL_ACK         0x01
#define FL_END_HEADERS 0x04
#define FL_PADDED      0x08
#define FL_PRIORITY    0x20

#define WIN_MAX        0x7fffffff

/* flood limits, as nghttp2's session has them */
#define HX_MAX_ACKS     1000 /* SETTINGS and PING acks unsent (its max_outbound_ack) */
#define HX_MAX_SETTINGS 32   /* entries in one SETTINGS frame (its max_settings) */
#define HX_MAX_CONTS    8    /* CONTINUATION frames in a header block (its max_continuations) */
#define HX_MAX_GLITCHES 1000 /* empty DATA or CONTINUATION frames a second */
#define HX_CLOSED       128  /* closed streams remembered, as nghttp2 keeps them (at most --h2-streams) */

/* WHY: xstream's never-indexed flag is nghttp2's, and our encoder's */
_Static_assert(HPK_NO_INDEX == NGHTTP2_NV_FLAG_NO_INDEX, "never-indexed flag");

/* hxs.st */
#define H2S_RCLOSED 0x01     /* END_STREAM received */
#define H2S_LCLOSED 0x02     /* END_STREAM staged: the stream goes once the peer's side is closed */
#define H2S_RESET   0x04     /* RST_STREAM staged: the stream goes at the next send */

/* a stream of our engine: the shell's, then our state of it (nghttp2's
 * session keeps its own, h2_eng.ssize). WHY apart: nghttp2's streams
 * carry none of it */
struct hxs {
	struct h2s s;
	struct list ready;   /* on the engine's list of streams with DATA to send */
	int64_t win_out;     /* what the peer's window lets us send */
	int64_t win_in;      /* what our window lets the peer send */
	uint64_t cl;         /* the request's content-length, UINT64_MAX: none */
	uint8_t st;          /* H2S_* */
};

static inline struct hxs *HXS(struct h2s *s)
{
	return container_of(s, struct hxs, s);
}

/* h2x.gone */
#define HX_SENT     0x01     /* our GOAWAY is staged: new streams are ignored */
#define HX_RECV     0x02     /* the peer's GOAWAY came */
#define HX_CLOSING  0x04     /* the connection ends once what is staged went out */

struct buf {
	uint8_t *p;
	uint32_t n, cap;
};

#define HX_CTL_KEEP 4096 /* <ctl> grows past it only when the queue has no room (h2x_out.c) */

#define PS_METHOD 0x01
#define PS_SCHEME 0x02
#define PS_PATH   0x04
#define PS_AUTH   0x08
#define PS_PROTO  0x10
#define PS_HOST   0x20 /* not a pseudo-header, but checked as one */

/* what a header list said, to check it (RFC 9113 8.1.1, 8.2, 8.3) */
struct hv {
	uint8_t seen;     /* PS_* */
	uint8_t regular;  /* a regular field came */
	uint8_t connect;  /* :method CONNECT */
	uint8_t options;  /* :method OPTIONS */
	uint8_t star;     /* :path * */
	uint8_t slash;    /* :path starts with / */
	uint8_t http;     /* :scheme http or https */
};

/* The last request head that left the decoder's table as it was (indexed
 * fields, literals not indexed), and what it decoded to: the same bytes
 * decode the same for as long as no other block changed the table (<gen>). */
struct memo {
	uint32_t gen;            /* the table's generation it was decoded in */
	uint64_t cl;             /* what its fields set on the stream */
	struct hv hv;
	struct xmemo x;
};

/* WHY apart: what only matters while requests flow (5.9 KB) goes back to
 * the thread's pool once the connection rested HX_REST_MS (an idle h2c
 * connection 8.26 -> ~2 KiB, bench/mem-h2); not at each "no stream open",
 * which would drop the memo between a client's one-at-a-time requests */
#define HX_REST_MS 100
struct hxw {
	struct hpk_enc def;      /* the response heads' encoder */
	struct memo memo;
	uint32_t closed_n;       /* streams closed since it was taken */
	struct {
		int32_t id;
		uint8_t rd;      /* it had ended its side (END_STREAM, RST_STREAM) */
	} closed[HX_CLOSED];
};

struct h2x {
	struct h2c *c;
	nghttp2_hd_inflater *inf; /* NULL while the connection rests */
	struct buf table;        /* then the decoder's table, as a header block that rebuilds it */
	struct hxw *w;           /* NULL while the connection rests */
	uint32_t enc_max, enc_low; /* while it rests: the encoder's table size, its update owed */
	uint8_t enc_update;
	uint32_t pre;            /* bytes of the client preface matched */
	uint8_t fh[9];           /* the frame header being read */
	uint8_t fh_n;
	uint8_t ftype, fflags;
	uint32_t flen;
	int32_t fsid;
	struct buf fb;           /* a frame's payload split across reads */
	int32_t hb_sid;          /* the stream of a header block under way, 0: none */
	uint8_t hb_end;          /* its HEADERS frame had END_STREAM */
	uint8_t hb_conts;
	uint8_t hb_kind;         /* HB_*: what it is for */
	uint8_t hb_bad;          /* a field broke the rules */
	struct hv hv;            /* what its fields said so far */
	uint8_t gone;            /* HX_* */
	uint32_t peer_last;      /* the last stream of the peer's GOAWAY, which may only go down */
	uint8_t settings;        /* the client's first SETTINGS came */
	uint8_t acks_owed;       /* our SETTINGS not yet acknowledged (0: they were) */
	uint32_t streams_max;    /* our SETTINGS_MAX_CONCURRENT_STREAMS, the last sent (h2s=) */
	uint32_t iwin;           /* our SETTINGS_INITIAL_WINDOW_SIZE as the peer applies it (h2w=) */
	uint32_t iwin_next;      /* a lower one sent, applied at its ACK ... */
	uint8_t iwin_acks;       /* ... the ACKs until that one (0: none pending) */
	uint8_t acked;           /* our first SETTINGS was acknowledged */
	uint8_t nopri;           /* the peer's SETTINGS_NO_RFC7540_PRIORITIES, 2: not said */
	struct buf ctl;          /* frames for the next send, in their order */
	struct buf enc;          /* a header block to split into frames */
	int32_t last_sid;        /* the highest stream the client opened */
	int64_t win_out;         /* the connection's window for our DATA */
	int64_t win_in;          /* ours for the peer's */
	uint32_t peer_iwin;      /* its SETTINGS_INITIAL_WINDOW_SIZE */
	uint32_t peer_frame;     /* its SETTINGS_MAX_FRAME_SIZE */
	uint32_t acks;           /* acks in <ctl> */
	uint32_t glitches;
	uint64_t glitch_sec;
	struct list ready;       /* streams with DATA to send, or to sweep */
	uint32_t gen;            /* the decoder's table generation */
};

#define HX(c) ((struct h2x *)(c)->sess)


static inline int hx_buf_room(struct buf *b, size_t more)
{
	size_t need = (size_t)b->n + more, cap;
	uint8_t *p;

	if (need <= b->cap)
		return 0;
	if (need > UINT32_MAX / 2)
		return -1;
	cap = MAX(need, (size_t)b->cap * 2);
	cap = MAX(cap, 256);
	if (!(p = realloc(b->p, cap)))
		return -1;
	b->p = p;
	b->cap = (uint32_t)cap;
	return 0;
}

static inline uint32_t hx_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void hx_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static inline void hx_fr_head(uint8_t *o, size_t len, uint8_t type, uint8_t flags, int32_t sid)
{
	o[0] = (uint8_t)(len >> 16), o[1] = (uint8_t)(len >> 8), o[2] = (uint8_t)len;
	o[3] = type, o[4] = flags;
	hx_put32(o + 5, (uint32_t)sid);
}

/* a stream the peer may not name yet: one of ours (even), or above its last */
static inline int hx_idle(const struct h2x *h, int32_t sid)
{
	return !(sid & 1) || sid > h->last_sid;
}

/* the stream <sid>, reset ones too */
static inline struct h2s *hx_find_any(struct h2x *h, int32_t sid)
{
	struct list *n, *tmp;

	list_each_safe(n, tmp, &h->c->streams) {
		struct h2s *s = list_elem(n, struct h2s, node);

		if (s->id == sid)
			return s;
	}
	return NULL;
}

/* the stream <sid>, NULL when it is gone or being reset */
static inline struct h2s *hx_find(struct h2x *h, int32_t sid)
{
	struct h2s *s = hx_find_any(h, sid);

	return s && !(HXS(s)->st & H2S_RESET) ? s : NULL;
}

/* our END_STREAM is staged: the stream goes now or once the peer's side closes */
static inline void hx_local_end(struct h2x *h, struct h2s *s)
{
	HXS(s)->st |= H2S_LCLOSED;
	if (!list_empty(&HXS(s)->ready))
		list_del(&HXS(s)->ready);
	if (HXS(s)->st & H2S_RCLOSED)
		list_add(&h->ready, &HXS(s)->ready); /* swept at the next send */
}

/* the work state (and HPACK decoder), taken back after a rest (h2x_rest.c):
 * NULL, out of memory (the connection errs) */
struct hxw *hx_work_take(struct h2x *h);
static inline struct hxw *hx_work(struct h2x *h)
{
	return likely(h->w != NULL) ? h->w : hx_work_take(h);
}

/* WHY inline: each stream goes through them (bench/cg) */
static inline void hx_closed_add(struct h2x *h, int32_t sid, int rd)
{
	struct hxw *w = hx_work(h);
	uint32_t k;

	if (!w)
		return;
	k = w->closed_n++ % HX_CLOSED;
	w->closed[k].id = sid;
	w->closed[k].rd = (uint8_t)rd;
}

/* a stream of ours gone, remembered as closed */
static inline void hx_gone(struct h2x *h, struct h2s *s, int rd)
{
	hx_closed_add(h, s->id, rd || (HXS(s)->st & H2S_RCLOSED));
	if (!list_empty(&HXS(s)->ready))
		list_del(&HXS(s)->ready);
	h2s_put(s);
}

/* a new stream's windows and state */
static inline void hx_stream_init(struct h2x *h, struct h2s *s)
{
	HXS(s)->win_out = h->peer_iwin;
	/* WHY: until our SETTINGS are acknowledged, the peer may use 65535 */
	HXS(s)->win_in = h->acked ? h->iwin : MAX(h->iwin, 65535);
	HXS(s)->st = 0;
	HXS(s)->cl = UINT64_MAX;
	list_init(&HXS(s)->ready);
}

/* ---------- h2x_base.c: control frames, errors, streams ---------- */

/* a control frame for the next send; out of memory ends the connection */
void hx_ctl(struct h2x *h, uint8_t type, uint8_t flags, int32_t sid, const void *p, size_t len);

/* a connection error (RFC 9113 5.4.1): GOAWAY, then the end */
void hx_conn_err(struct h2x *h, uint32_t code);

/* whether <sid> is a stream nghttp2's session would still know as closed
 * after the peer's side ended: what it sends there is then a connection
 * error; on other closed streams it is ignored */
int hx_closed_rd(const struct h2x *h, int32_t sid);

/* RST_STREAM for a stream we do not hold (refused, or gone) */
void hx_rst_id(struct h2x *h, int32_t sid, uint32_t code);

/* a stream error (RFC 9113 5.4.2): RST_STREAM; the stream goes at the next
 * send, so that whoever called holds no freed stream */
void hx_rst(struct h2s *s, uint32_t code);

/* an empty frame that does nothing: too many a second end the connection */
int hx_glitch(struct h2x *h);


/* ---------- h2x_block.c: a request's header block ---------- */

/* what a header block is for, known from its HEADERS frame (h2x_in.c) */
enum { HB_OPEN, HB_REFUSED, HB_IGNORED, HB_TRAILERS };

/* the request's end (END_STREAM), its length checked against content-length */
void hx_remote_end(struct h2x *h, struct h2s *s);
/* <n> bytes of the block at <in> (<last>: END_HEADERS came), decoded or
 * replayed from the memo: 0, or -1 a connection error */
int hx_block_part(struct h2x *h, const uint8_t *in, size_t n, int last);
/* the header block ended (END_HEADERS): what it was for follows */
void hx_block_done(struct h2x *h);

/* ---------- h2x_in.c: frames in ---------- */

/* The peer's settings (a SETTINGS frame, or HTTP2-Settings): 0, or -1 with
 * the connection closing (h2x_in.c says why the last of each counts) */
int hx_settings_apply(struct h2x *h, const uint8_t *p, size_t len);
int hx_recv(struct h2c *c, const uint8_t *p, size_t n);

/* ---------- h2x_out.c: frames out ---------- */

int hx_respond(struct h2s *s, const struct xs_nv *nv, size_t n, int body);
int hx_info(struct h2s *s, const struct xs_nv *nv, size_t n);
void hx_resume(struct h2s *s);
int hx_send(struct h2c *c);
int hx_alive(struct h2c *c);
void hx_goaway(struct h2c *c, uint32_t code);
void hx_drain(struct h2c *c);
int hx_settings(struct h2c *c, const struct h2_setting *set, size_t n);
void hx_settings_acked(struct h2x *h);
void hx_ping(struct h2c *c);
int64_t hx_window(struct h2c *c, struct h2s *s);

/* ---------- h2x_rest.c: what a resting connection gives back ---------- */

/* the work state and decoder back once the connection rested (h2_eng.rest) */
uint64_t hx_rest(struct h2c *c);

#endif

/* hxload's HTTP/2 client, our own: frames read whole from the connection's input and written into its output queue, responses by core/hpack_dec, requests as literals; a connection's state is a few dozen bytes and the table the server fills. */
#include <stdlib.h>
#include <string.h>

#include "hpack_dec.h"
#include "lc_fate.h"
#include "lc_h2_int.h"
#include "lc_record.h"

/* frame types and flags (RFC 9113 6) */
enum { F_DATA, F_HEADERS, F_PRIORITY, F_RST, F_SETTINGS, F_PUSH, F_PING, F_GOAWAY, F_WINDOW, F_CONT };
#define FL_END_STREAM  0x01
#define FL_ACK         0x01
#define FL_END_HEADERS 0x04
#define FL_PADDED      0x08
#define FL_PRIORITY    0x20

/* error codes (RFC 9113 7) */
#define E2_PROTOCOL    0x1
#define E2_FLOW        0x3
#define E2_FRAME_SIZE  0x6
#define E2_CANCEL      0x8
#define E2_COMPRESSION 0x9

#define FRAME_HEAD   9
#define FRAME_MAX    16384u    /* ours: SETTINGS_MAX_FRAME_SIZE left at its default */
#define WINDOW       (1u << 30) /* what we allow a stream and the connection */
#define WINDOW_AGAIN (WINDOW / 2) /* credit given back once this much was read */
#define SID_MAX      0x7fffffffu
#define SCRATCH      2048      /* a header block's Huffman strings, on the stack up to this */

/* A connection's state. WHY so little: the load generator holds what a
 * proxy test needs (10,000 connections and more); a stream's state is in
 * its exchange slot (lc_ex), the frames in the connection's buffers, which
 * go back to the thread when nothing waits in them */
struct h2x {
	struct hpd hd;          /* the server's header blocks */
	int64_t swin;           /* the connection's send window */
	uint32_t rcvd;          /* DATA bytes read since the connection's credit was last given back */
	uint32_t peer_win;      /* the server's SETTINGS_INITIAL_WINDOW_SIZE */
	uint32_t next_sid;      /* our next stream */
	uint32_t limit;         /* the server's SETTINGS_MAX_CONCURRENT_STREAMS */
	uint32_t bodies;        /* streams with request body left to send */
	uint8_t tsu;            /* our next header block starts with a table size update (to 0) */
};

/* ---------- frames out, into the output queue's scratch ---------- */

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* the payload length of the frame whose head is at <f> */
static inline uint32_t flen(const uint8_t *f)
{
	return (uint32_t)f[0] << 16 | (uint32_t)f[1] << 8 | f[2];
}

static inline uint8_t *put32(uint8_t *o, uint32_t v)
{
	o[0] = (uint8_t)(v >> 24), o[1] = (uint8_t)(v >> 16), o[2] = (uint8_t)(v >> 8), o[3] = (uint8_t)v;
	return o + 4;
}

static inline uint8_t *fhead(uint8_t *o, uint32_t len, uint8_t type, uint8_t flags, uint32_t sid)
{
	o[0] = (uint8_t)(len >> 16), o[1] = (uint8_t)(len >> 8), o[2] = (uint8_t)len;
	o[3] = type, o[4] = flags;
	return put32(o + 5, sid);
}

/* Room for <need> bytes at the scratch's end, flushing what is staged when
 * short: the place, or NULL when the socket is full (<*err> 0: later) or
 * lost (<*err> -1) */
static uint8_t *out_room(struct lc_conn *c, size_t need, int *err)
{
	uint64_t sent;
	int r;

	*err = 0;
	if (oq_sc_room(&c->oq) >= need && oq_iov_room(&c->oq) >= 2)
		return (uint8_t *)c->oq.sc + c->oq.sc_used;
	if (!(c->nc.flags & NC_WR_READY))
		return NULL;
	r = oq_flush(&c->oq, &c->nc.x, &sent);
	if (r == -1)
		*err = -1;
	if (r == HX_AGAIN)
		c->nc.flags &= ~NC_WR_READY;
	if (r || oq_sc_room(&c->oq) < need)
		return NULL;
	return (uint8_t *)c->oq.sc + c->oq.sc_used;
}

/* A control frame (<len> bytes of payload at <p>): 0, or -1 when even a
 * flush leaves no room. WHY no queue of our own: the scratch keeps 16 KiB
 * for them beyond any DATA frame (body_out), and a server that sends more
 * control frames than that while reading nothing is flooding us */
static int control(struct lc_conn *c, uint8_t type, uint8_t flags, uint32_t sid, const void *p, uint32_t len)
{
	int err;
	uint8_t *o = out_room(c, FRAME_HEAD + len, &err);

	if (!o)
		return -1;
	fhead(o, len, type, flags, sid);
	if (len)
		memcpy(o + FRAME_HEAD, p, len);
	oq_claim(&c->oq, FRAME_HEAD + len);
	return 0;
}

static int window_update(struct lc_conn *c, uint32_t sid, uint32_t inc)
{
	uint8_t p[4];

	put32(p, inc);
	return control(c, F_WINDOW, 0, sid, p, 4);
}

/* A connection error of ours (RFC 9113 5.4.1): GOAWAY with <code>, the
 * connection lost (counted by the caller). Returns -1 */
static int conn_error(struct lc_conn *c, uint32_t code)
{
	uint8_t p[8];

	put32(p, 0);
	put32(p + 4, code);
	control(c, F_GOAWAY, 0, 0, p, 8);
	c->nc.flags |= NC_WR_READY; /* WHY: one try, whatever the last write met */
	oq_flush(&c->oq, &c->nc.x, &(uint64_t){ 0 });
	return -1;
}

/* a field as a literal never indexed by us (RFC 7541 6.2.2): its name by
 * the static table's index <idx> or spelled out */
static uint8_t *literal(uint8_t *o, unsigned idx, const struct hpk_field *f)
{
	o = hpk_int(o, 0x00, 4, idx);
	if (!idx)
		o = hpk_str(o, f->name, f->nlen);
	return hpk_str(o, f->value, f->vlen);
}

/* <e>'s request head as a header block at <o>: its length. WHY no
 * dynamic table: a request's fields are the same each time, so its block
 * is too, which a server that remembers the last (ours) replays; and the
 * table would cost each connection its entries */
static size_t block(struct h2x *h, const struct hpk_field *f, size_t n, uint8_t *o)
{
	uint8_t *start = o;

	if (h->tsu) { /* WHY 0: whatever the server's SETTINGS said, 0 is in it (RFC 7541 4.2) */
		*o++ = 0x20;
		h->tsu = 0;
	}
	/* the pseudo-fields: method, scheme, authority, path (lc_h2_fields' order) */
	o = f[0].vlen == 3 && !memcmp(f[0].value, "GET", 3) ? (*o = 0x82, o + 1)
	  : f[0].vlen == 4 && !memcmp(f[0].value, "POST", 4) ? (*o = 0x83, o + 1) : literal(o, 2, &f[0]);
	*o++ = f[1].vlen == 5 ? 0x87 : 0x86;
	o = literal(o, 1, &f[2]);
	o = f[3].vlen == 1 && f[3].value[0] == '/' ? (*o = 0x84, o + 1) : literal(o, 4, &f[3]);
	for (size_t i = 4; i < n; i++)
		o = literal(o, 0, &f[i]);
	return (size_t)(o - start);
}

/* the request body of <e> as the windows allow: 0, -1 lost */
static int body_out(struct lc_conn *c, struct h2x *h, struct lc_ex *e)
{
	while (e->body_left && e->h2_swin > 0 && h->swin > 0) {
		/* WHY our frame size, not the server's: a larger one it allows
		 * would not fit the scratch, and 16 KiB is always allowed (4.2) */
		uint32_t n = (uint32_t)MIN(MIN(e->body_left, (uint64_t)FRAME_MAX), (uint64_t)MIN(e->h2_swin, h->swin));
		int err, end;
		/* WHY 16 KiB more than the frame: the control frames' room (control()) */
		uint8_t *o = out_room(c, FRAME_HEAD + n + FRAME_MAX, &err);

		if (!o)
			return err;
		e->body_left -= n;
		end = !e->body_left;
		fhead(o, n, F_DATA, end ? FL_END_STREAM : 0, (uint32_t)e->id);
		lc_h2_body(o + FRAME_HEAD, n);
		oq_claim(&c->oq, FRAME_HEAD + n);
		e->h2_swin -= n;
		h->swin -= n;
		h->bodies -= end;
	}
	return 0;
}

/* <e>'s request on a new stream, <o> the room out_room() gave: 0, -1 lost */
static int submit(struct lc_conn *c, struct h2x *h, struct lc_ex *e, uint8_t *o)
{
	struct hpk_field f[LC_H2_FIELDS];
	size_t n = lc_h2_fields(e, f), len;

	if (1 + hpk_bound(f, n) > FRAME_MAX) { /* WHY no CONTINUATION: -H's 32 fields in a frame of 16 KiB */
		lc_fatal_set("hxload: a request head over 16 KiB, more than one HTTP/2 frame of ours");
		return -1;
	}
	len = block(h, f, n, o + FRAME_HEAD);
	e->id = (int64_t)h->next_sid;
	h->next_sid += 2;
	e->body_left = lc_o->body;
	e->h2_swin = h->peer_win;
	e->h2_rcvd = 0;
	fhead(o, (uint32_t)len, F_HEADERS, FL_END_HEADERS | (e->body_left ? 0 : FL_END_STREAM), (uint32_t)e->id);
	oq_claim(&c->oq, FRAME_HEAD + len);
	if (!e->body_left)
		return 0;
	h->bodies++;
	return body_out(c, h, e) < 0 ? -1 : 0;
}

/* new streams as -m, the server's limit and its GOAWAY allow: 0, -1 lost */
static int fill(struct lc_conn *c, struct h2x *h)
{
	/* WHY the check: after a GOAWAY, a new stream would only be refused */
	while (!c->goaway && c->inflight < (uint32_t)lc_o->depth && c->inflight < h->limit && h->next_sid <= SID_MAX) {
		struct lc_ex *e;
		int err;
		/* WHY room for two frames: a head (at most one, submit()) and the control frames' */
		uint8_t *o = out_room(c, FRAME_HEAD + 2 * FRAME_MAX, &err);

		if (!o)
			return err;
		e = lc_ex_free(c);
		if (!lc_take(c, e))
			return 0;
		if (submit(c, h, e, o) < 0) {
			lc_fail(c, e, E_PROTOCOL);
			e->id = -1;
			return -1;
		}
		c->inflight++;
	}
	return 0;
}

/* the request bodies left, as the windows allow: 0, -1 lost */
static int bodies(struct lc_conn *c, struct h2x *h)
{
	for (uint32_t k = 0; h->bodies && h->swin > 0 && k < c->ex_used; k++) {
		struct lc_ex *e = LC_EX(c, k);

		if (e->id >= 0 && e->body_left && body_out(c, h, e) < 0)
			return -1;
	}
	return 0;
}

/* ---------- frames in ---------- */

/* <e>'s stream ended with <code> (0: answered whole) */
static void gone(struct lc_conn *c, struct h2x *h, struct lc_ex *e, uint32_t code)
{
	if (e->body_left) {
		e->body_left = 0;
		h->bodies--;
	}
	lc_h2_closed(c, e, code);
}

/* the response on <e>'s stream is whole: recorded. WHY a RST_STREAM when
 * its body is still going: the server answered without it (RFC 9113 8.1) */
static int answered(struct lc_conn *c, struct h2x *h, struct lc_ex *e)
{
	uint8_t p[4];
	uint32_t sid = (uint32_t)e->id;
	int cut = e->body_left != 0;

	gone(c, h, e, 0);
	put32(p, E2_CANCEL);
	return cut ? control(c, F_RST, 0, sid, p, 4) : 0;
}

struct fields_of {
	struct lc_conn *c;
	struct lc_ex *e;
};

static void on_field(void *arg, const uint8_t *n, size_t nl, const uint8_t *v, size_t vl)
{
	struct fields_of *fo = arg;

	lc_h2_field(fo->c, fo->e, n, nl, v, vl);
}

/* The header block of HEADERS and its CONTINUATIONs, <f> to <f> + <span>:
 * its fragments in one piece, decoded. 0, -1 lost */
static int head_in(struct lc_conn *c, struct h2x *h, const uint8_t *f, size_t span, struct lc_ex *e)
{
	uint32_t len = flen(f), pad = 0, skip = 0;
	const uint8_t *p = f + FRAME_HEAD;
	uint8_t stack[SCRATCH], *scr = stack, *joined = NULL;
	struct fields_of fo = { c, e };
	size_t blen, need;
	int rv;

	if (f[4] & FL_PADDED)
		pad = len ? p[0] : 1, skip = 1;
	if (f[4] & FL_PRIORITY)
		skip += 5;
	if (skip + pad > len)
		return conn_error(c, E2_PROTOCOL);
	blen = len - skip - pad;
	p += skip;
	if (span > FRAME_HEAD + len) { /* CONTINUATIONs: their fragments after this one's */
		size_t at = FRAME_HEAD + len, o = blen;

		if (!(joined = malloc(span)))
			return conn_error(c, E2_PROTOCOL);
		memcpy(joined, p, blen);
		while (at < span) {
			uint32_t cl = flen(f + at);

			memcpy(joined + o, f + at + FRAME_HEAD, cl);
			o += cl;
			at += FRAME_HEAD + cl;
		}
		p = joined;
		blen = o;
	}
	need = HPD_SCRATCH(blen);
	if (need > sizeof(stack) && !(scr = malloc(need)))
		rv = -1;
	else
		rv = hpd_decode(&h->hd, p, blen, scr, MAX(need, sizeof(stack)), on_field, &fo);
	if (scr != stack)
		free(scr);
	free(joined);
	return rv ? conn_error(c, E2_COMPRESSION) : 0;
}

/* How far a header block that HEADERS at <f> began reaches, its
 * CONTINUATIONs with it (RFC 9113 6.10): bytes, 0 while it is not all in
 * the <n> bytes at <f>, -1 when a frame between is not its CONTINUATION */
static long block_span(const uint8_t *f, size_t n)
{
	size_t at = 0;

	for (;;) {
		uint32_t len;

		if (n - at < FRAME_HEAD)
			return 0;
		len = flen(f + at);
		if (at && (f[at + 3] != F_CONT || get32(f + at + 5) != get32(f + 5)))
			return -1;
		if (len > FRAME_MAX)
			return -1;
		if (n - at < FRAME_HEAD + len)
			return 0;
		at += FRAME_HEAD + len;
		if (f[at - FRAME_HEAD - len + 4] & FL_END_HEADERS)
			return (long)at;
	}
}

static int data_in(struct lc_conn *c, struct h2x *h, const uint8_t *f, uint32_t len, struct lc_ex *e)
{
	const uint8_t *p = f + FRAME_HEAD;
	uint32_t pad = 0;

	if (f[4] & FL_PADDED) {
		if (!len || p[0] >= len)
			return conn_error(c, E2_PROTOCOL);
		pad = p[0] + 1u;
		p++;
	}
	/* WHY the credit back at half: a window of 1 GiB never stops a stream */
	if ((h->rcvd += len) >= WINDOW_AGAIN) {
		if (window_update(c, 0, h->rcvd) < 0)
			return -1;
		h->rcvd = 0;
	}
	if (!e)
		return 0;
	lc_verify(e, (const char *)p, len - pad);
	if (f[4] & FL_END_STREAM)
		return answered(c, h, e);
	if ((e->h2_rcvd += len) >= WINDOW_AGAIN) {
		if (window_update(c, (uint32_t)e->id, e->h2_rcvd) < 0)
			return -1;
		e->h2_rcvd = 0;
	}
	return 0;
}

/* the server's SETTINGS (not its ACK): applied, then acknowledged */
static int settings_in(struct lc_conn *c, struct h2x *h, const uint8_t *p, uint32_t len)
{
	int limited = 0;

	for (uint32_t at = 0; at < len; at += 6) {
		uint16_t id = (uint16_t)(p[at] << 8 | p[at + 1]);
		uint32_t v = get32(p + at + 2);

		if (id == 0x1) { /* HEADER_TABLE_SIZE: our encoder's, never used but said so */
			h->tsu = 1;
		} else if (id == 0x3) { /* MAX_CONCURRENT_STREAMS */
			lc_h2_limit(c, v);
			h->limit = v;
			limited = 1;
		} else if (id == 0x4) { /* INITIAL_WINDOW_SIZE: every stream's window moves by the change (6.9.2) */
			int64_t d = (int64_t)v - h->peer_win;

			if (v > SID_MAX)
				return conn_error(c, E2_FLOW);
			for (uint32_t k = 0; k < c->ex_used; k++)
				if (LC_EX(c, k)->id >= 0)
					LC_EX(c, k)->h2_swin += d;
			h->peer_win = v;
		} else if (id == 0x5 && (v < FRAME_MAX || v > 0xffffff)) { /* MAX_FRAME_SIZE: ours is always within */
			return conn_error(c, E2_PROTOCOL);
		}
	}
	if (!c->h2_set && !limited) /* WHY: no limit said is none (6.5.2) */
		h->limit = UINT32_MAX;
	lc_h2_settings_done(c);
	return control(c, F_SETTINGS, FL_ACK, 0, NULL, 0);
}

static int goaway_in(struct lc_conn *c, struct h2x *h, const uint8_t *p)
{
	int32_t last = (int32_t)(get32(p) & SID_MAX);

	lc_h2_goaway(c, get32(p + 4), last);
	/* the streams above its last id were never processed: refused, so retried */
	for (uint32_t k = 0; k < c->ex_used; k++) {
		struct lc_ex *e = LC_EX(c, k);

		if (e->id > last)
			gone(c, h, e, LC_H2_REFUSED);
	}
	return 0;
}

/* the frame at <f> (<span> bytes: its CONTINUATIONs with a HEADERS): 0, -1 lost */
static int frame_in(struct lc_conn *c, struct h2x *h, const uint8_t *f, size_t span)
{
	uint32_t len = flen(f);
	uint32_t sid = get32(f + 5) & SID_MAX;
	const uint8_t *p = f + FRAME_HEAD;
	uint8_t type = f[3], flags = f[4];
	struct lc_ex *e;

	lc_h2_frame_begins(c, type, (int32_t)sid);
	switch (type) {
	case F_DATA:
		if (!sid)
			return conn_error(c, E2_PROTOCOL);
		return data_in(c, h, f, len, lc_h2_ex(c, (int32_t)sid));
	case F_HEADERS:
		if (!sid)
			return conn_error(c, E2_PROTOCOL);
		e = lc_h2_ex(c, (int32_t)sid);
		if (head_in(c, h, f, span, e) < 0)
			return -1;
		return e && (flags & FL_END_STREAM) ? answered(c, h, e) : 0;
	case F_RST:
		if (len != 4 || !sid)
			return conn_error(c, len != 4 ? E2_FRAME_SIZE : E2_PROTOCOL);
		if ((e = lc_h2_ex(c, (int32_t)sid)))
			gone(c, h, e, get32(p));
		return 0;
	case F_SETTINGS:
		if (sid || len % 6 || ((flags & FL_ACK) && len))
			return conn_error(c, sid ? E2_PROTOCOL : E2_FRAME_SIZE);
		return flags & FL_ACK ? 0 : settings_in(c, h, p, len);
	case F_PING:
		if (len != 8 || sid)
			return conn_error(c, len != 8 ? E2_FRAME_SIZE : E2_PROTOCOL);
		if (flags & FL_ACK)
			return 0;
		c->t->st.pings++;
		return control(c, F_PING, FL_ACK, 0, p, 8);
	case F_GOAWAY:
		if (len < 8 || sid)
			return conn_error(c, E2_PROTOCOL);
		return goaway_in(c, h, p);
	case F_WINDOW:
		if (len != 4)
			return conn_error(c, E2_FRAME_SIZE);
		if (!sid)
			h->swin += get32(p) & SID_MAX;
		else if ((e = lc_h2_ex(c, (int32_t)sid)))
			e->h2_swin += get32(p) & SID_MAX;
		return 0;
	case F_PUSH: /* we said SETTINGS_ENABLE_PUSH 0 (8.4) */
	case F_CONT: /* one that follows no HEADERS */
		return conn_error(c, E2_PROTOCOL);
	default: /* PRIORITY, and the types we do not know: passed over (5.5) */
		return 0;
	}
}

/* the whole frames in the input: 0, -1 lost. WHY whole: a frame is at most
 * 16 KiB (our SETTINGS_MAX_FRAME_SIZE), a quarter of the buffer */
static int frames_in(struct lc_conn *c, struct h2x *h)
{
	const uint8_t *in = (const uint8_t *)c->in;
	uint32_t off = 0;
	int rv = 0;

	while (c->in_len - off >= FRAME_HEAD) {
		const uint8_t *f = in + off;
		uint32_t len = flen(f);
		long span = FRAME_HEAD + len;

		if (len > FRAME_MAX) {
			rv = conn_error(c, E2_FRAME_SIZE);
			break;
		}
		if (c->in_len - off < span)
			break;
		if (f[3] == F_HEADERS && !(f[4] & FL_END_HEADERS) && (span = block_span(f, c->in_len - off)) <= 0) {
			if (span < 0)
				rv = conn_error(c, E2_PROTOCOL);
			break;
		}
		off += (uint32_t)span;
		if ((rv = frame_in(c, h, f, (size_t)span)) < 0)
			break;
	}
	if (rv < 0)
		return -1;
	memmove(c->in, c->in + off, c->in_len - off);
	c->in_len -= off;
	if (c->in_len == c->in_size) /* a header block over the buffer */
		return conn_error(c, E2_PROTOCOL);
	return 0;
}

/* ---------- the connection ---------- */

static int lc_h2x_start(struct lc_conn *c)
{
	static const uint8_t preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
	uint8_t set[12];
	struct h2x *h = calloc(1, sizeof(*h));

	if (!h)
		return -1;
	hpd_init(&h->hd, 4096);
	h->swin = 65535;
	h->peer_win = 65535;
	h->next_sid = 1;
	h->limit = LC_H2_STREAMS;
	c->proto_state = h;
	c->ex_used = 0;
	/* the preface, then SETTINGS: no push, a window of 1 GiB a stream, and the connection's to match */
	oq_copy(&c->oq, preface, sizeof(preface) - 1);
	set[0] = 0, set[1] = 0x2, put32(set + 2, 0);
	set[6] = 0, set[7] = 0x4, put32(set + 8, WINDOW);
	return control(c, F_SETTINGS, 0, 0, set, 12) < 0 || window_update(c, 0, WINDOW - 65535) < 0 ? -1 : 0;
}

static void lc_h2x_free(struct lc_conn *c)
{
	struct h2x *h = c->proto_state;

	hpd_free(&h->hd);
	free(h);
	c->proto_state = NULL;
}

/* GOAWAY NO_ERROR, its last stream 0: a client's peer opens none */
static void lc_h2x_bye(struct lc_conn *c)
{
	uint8_t p[8] = { 0 };

	/* WHY the buffers: an idle connection gave its own back */
	if (lc_bufs_take(c) < 0 || control(c, F_GOAWAY, 0, 0, p, 8) < 0)
		return;
	c->nc.flags |= NC_WR_READY; /* WHY: one try, whatever the last write met */
	oq_flush(&c->oq, &c->nc.x, &(uint64_t){ 0 });
}

static int lc_h2x_io(struct lc_conn *c)
{
	struct h2x *h = c->proto_state;
	uint64_t sent;

	while (c->nc.flags & NC_RD_READY) {
		long n = lc_conn_recv(c, c->in + c->in_len, c->in_size - c->in_len);

		if (n == XPRT_AGAIN)
			break;
		if (n <= 0)
			return lc_h2_ended(c, n);
		c->in_len += (uint32_t)n;
		if (frames_in(c, h) < 0) {
			lc_error(c, E_PROTOCOL);
			return -1;
		}
	}
	if (bodies(c, h) < 0 || fill(c, h) < 0) {
		lc_error(c, E_RESET);
		return -1;
	}
	if (oq_pending(&c->oq) && (c->nc.flags & NC_WR_READY)) {
		int r = oq_flush(&c->oq, &c->nc.x, &sent);

		if (r == -1) {
			lc_error(c, E_RESET);
			return -1;
		}
		if (r == HX_AGAIN)
			c->nc.flags &= ~NC_WR_READY;
	}
	if (c->inflight)
		return 0;
	/* WHY once its streams are done: a graceful GOAWAY lets the ones at or
	 * below its last id finish; then a new connection, no error. The same
	 * when our stream ids ran out */
	if (c->goaway == 1 || h->next_sid > SID_MAX)
		return 1;
	return c->goaway ? -1 : 0; /* GOAWAY with an error: a new connection */
}

const struct lc_protocol lc_h2x = {
	.name = "h2",
	.start = lc_h2x_start,
	.io = lc_h2x_io,
	.bye = lc_h2x_bye,
	.free = lc_h2x_free,
};

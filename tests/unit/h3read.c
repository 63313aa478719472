/* Unit tests of the HTTP/3 response stream reader: a stream of every frame kind read whole, at every split point and in pieces of every size; frames a request stream may not carry, bad sections and truncations refused. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "h3read.h"
#include "qpack.h"
#include "qvarint.h"
#include "tap.h"

#define F(n, v) { (const uint8_t *)(n), (const uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, 0 }

/* what a stream handed on: its lines' names, joined; its DATA bytes */
struct seen {
	char names[512];
	uint8_t data[4096];
	size_t nl, nd;
};

static void on_line(void *arg, const struct qpk_line *l)
{
	struct seen *s = arg;

	if (s->nl + l->nlen + 1 < sizeof(s->names)) {
		memcpy(s->names + s->nl, l->name, l->nlen);
		s->nl += l->nlen;
		s->names[s->nl++] = ' ';
		s->names[s->nl] = 0;
	}
}

static void on_data(void *arg, const uint8_t *p, size_t n)
{
	struct seen *s = arg;

	if (s->nd + n <= sizeof(s->data))
		memcpy(s->data + s->nd, p, n);
	s->nd += n;
}

static const struct h3r_ops ops = { on_line, on_data };

/* a frame of <type> around <p> into <o>; returns the end */
static uint8_t *frame(uint8_t *o, uint64_t type, const void *p, size_t n)
{
	o = qv_put(o, type);
	o = qv_put(o, n);
	memcpy(o, p, n);
	return o + n;
}

/* a HEADERS frame of <f> (our encoder: static references, raw literals) */
static uint8_t *headers(uint8_t *o, const struct hpk_field *f, size_t n)
{
	uint8_t sec[512];

	return frame(o, 0x01, sec, qpk_encode(sec, f, n));
}

/* <in> fed in pieces: at <cut> and the rest (<cut> 0: pieces of <step>);
 * the reader's answer (-1 at the first refusal), what it handed on */
static int feed(const uint8_t *in, size_t len, size_t cut, size_t step, struct seen *s, int *at_end)
{
	struct h3r r = { 0 };
	int rv = 0;

	memset(s, 0, sizeof(*s));
	for (size_t off = 0; off < len && !rv;) {
		size_t k = cut ? (off < cut ? cut : len - off) : MIN(step, len - off);

		rv = h3r_feed(&r, in + off, k, &ops, s);
		off += k;
	}
	*at_end = h3r_at_end(&r);
	h3r_reset(&r);
	return rv;
}

static void whole_stream(void)
{
	struct hpk_field interim[] = { F(":status", "103"), F("link", "</a.css>; rel=preload") };
	struct hpk_field head[] = { F(":status", "200"), F("x-rsp", "id=vm, code=200, size=11, time=0 ms"),
				    F("server-timing", "wait;dur=0, gen;dur=0.005") };
	struct hpk_field trailers[] = { F("x-done", "1") };
	static const char want[] = ":status link :status x-rsp server-timing x-done ";
	uint8_t in[2048], *o = in, big[300];
	struct seen s;
	int end, bad = 0;
	size_t len;

	memset(big, 'b', sizeof(big));
	o = frame(o, 0x21, "abc", 3);          /* reserved (RFC 9114 7.2.8) */
	o = headers(o, interim, 2);
	o = headers(o, head, 3);
	o = frame(o, 0x00, "hello ", 6);
	o = frame(o, 0x1f * 7 + 0x21, "", 0);  /* reserved, empty */
	o = frame(o, 0x00, "", 0);             /* an empty DATA frame */
	o = frame(o, 0x3fffffff, big, 300);   /* an unknown type of four bytes, a length of two */
	*o++ = 0x00, *o++ = 0x80, *o++ = 0, *o++ = 0, *o++ = 5; /* DATA, its length in four bytes */
	memcpy(o, "world", 5), o += 5;
	o = headers(o, trailers, 1);
	len = (size_t)(o - in);

	ok(!feed(in, len, 0, len, &s, &end) && end && !strcmp(s.names, want) && s.nd == 11 && !memcmp(s.data, "hello world", 11),
	   "a stream whole: interim head, head, DATA, reserved frames, trailers (%zu bytes)", len);
	for (size_t cut = 1; cut < len; cut++)
		if (feed(in, len, cut, 0, &s, &end) || !end || strcmp(s.names, want) || s.nd != 11 || memcmp(s.data, "hello world", 11)) {
			printf("# cut at %zu: lines '%s', %zu data bytes\n", cut, s.names, s.nd);
			bad++;
		}
	ok(!bad, "... in two pieces, cut at each of its %zu points", len - 1);
	bad = 0;
	for (size_t step = 1; step < len; step++)
		if (feed(in, len, 0, step, &s, &end) || !end || strcmp(s.names, want) || s.nd != 11 || memcmp(s.data, "hello world", 11))
			bad++;
	ok(!bad, "... in pieces of every size from 1 byte");
	bad = 0;
	for (size_t cut = 1; cut < len; cut++) {
		struct h3r r = { 0 };

		/* WHY: a stream may end only between frames; cut mid-frame, the reader says so */
		if (h3r_feed(&r, in, cut, &ops, &s) < 0)
			bad++;
		h3r_reset(&r); /* a HEADERS frame half gathered is freed (ASan) */
	}
	ok(!bad, "each truncation read without error (more wanted)");
	ok(!feed(in, 3 + 2, 0, 5, &s, &end) && end, "after a whole frame: the stream may end");
	ok(!feed(in, 3 + 3, 0, 6, &s, &end) && !end, "inside the next frame's head: it may not");
}

static void refused(void)
{
	static const struct {
		const char *what;
		uint8_t b[24];
		size_t n;
	} rows[] = {
		{ "SETTINGS on a request stream", { 0x04, 0x00 }, 2 },
		{ "GOAWAY on a request stream", { 0x07, 0x01, 0x00 }, 3 },
		{ "CANCEL_PUSH", { 0x03, 0x01, 0x00 }, 3 },
		{ "PUSH_PROMISE (no push allowed)", { 0x05, 0x01, 0x00 }, 3 },
		{ "MAX_PUSH_ID", { 0x0d, 0x01, 0x00 }, 3 },
		{ "HTTP/2's PRIORITY type (0x2)", { 0x02, 0x00 }, 2 },
		{ "an empty HEADERS frame", { 0x01, 0x00 }, 2 },
		{ "a HEADERS frame past 16 MiB", { 0x01, 0x81, 0x00, 0x00, 0x01 }, 5 },
		{ "a HEADERS frame that names the dynamic table", { 0x01, 0x03, 0x02, 0x00, 0x80 }, 5 },
		{ "a QPACK integer past 62 bits", { 0x01, 0x0d, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f },
		  15 },
		{ "a field line past its frame", { 0x01, 0x04, 0x00, 0x00, 0x5f, 0x0a }, 6 },
	};
	struct seen s;
	int end;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int all = 1;

		for (size_t step = 1; step <= rows[i].n; step++)
			all &= feed(rows[i].b, rows[i].n, 0, step, &s, &end) == -1;
		ok(all, "refused in pieces of any size: %s", rows[i].what);
	}
}

int main(void)
{
	whole_stream();
	refused();
	printf("1..%d\n", tap_n);
	return tap_fail != 0;
}

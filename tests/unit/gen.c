/* Unit tests of the generator: a fake clock, no socket; each key's behaviour as the action stream shows it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "gen.h"
#include "tap.h"

#define T_NS ((int64_t)5000000000000) /* the fake clock */
#define T_US ((uint64_t)T_NS / 1000)

static uint64_t fake_now = T_US;

static uint64_t fake_us(void)
{
	return fake_now;
}

static const struct gen_conf gc = { fake_us, NULL, 0, { 1 << 30, 100000, 0 }, { "box", 3 } };
static struct exch x;
static struct rng r;

/* a request for <target> planned and answered at the fake clock */
static void start(const char *target)
{
	x.rq = (struct hreq){ .flags = RQ_CAN_CHUNK, .head_size = 40,
			      .t_first = T_NS - 1000, .t_head = T_NS - 500 };
	x.rq.target = (struct ist){ target, strlen(target) };
	x.rq.echo = x.rq.target;
	ex_plan(&x, &gc, &r);
}

/* the actions until the end, as text: "D10 P100 D5 E" (data lengths, pause
 * lengths in ms from the clock, E end, R reset, C close) */
static const char *run(uint64_t max)
{
	static char out[512];
	size_t o = 0;
	struct ex_action a;
	uint64_t now = T_US;

	ex_respond(&x, &gc, T_NS);
	for (int i = 0; i < 60 && o < sizeof(out) - 24; i++) {
		fake_now = now;
		switch (ex_next(&x, max, &gc, &a)) {
		case EXA_DATA:
			o += (size_t)snprintf(out + o, sizeof(out) - o, "D%llu ", (unsigned long long)a.len);
			continue;
		case EXA_PAUSE:
			o += (size_t)snprintf(out + o, sizeof(out) - o, "P%llu ",
					      (unsigned long long)(a.until_us > now ? a.until_us - now : 0) / 1000);
			now = MAX(now, a.until_us); /* 0: no wait, the clock unread */
			ex_resume(&x);
			continue;
		case EXA_END:   snprintf(out + o, sizeof(out) - o, "E"); return out;
		case EXA_RESET: snprintf(out + o, sizeof(out) - o, "R"); return out;
		case EXA_CLOSE: snprintf(out + o, sizeof(out) - o, "C"); return out;
		}
	}
	return "runaway";
}

/* the body the actions hand out, pulled <max> bytes at a time into <out>
 * (at most <cap>): its length */
static size_t pull(uint64_t max, char *out, size_t cap)
{
	struct ex_action a;
	size_t o = 0;

	ex_respond(&x, &gc, T_NS);
	for (int i = 0; i < 100000; i++) {
		enum ex_act act = ex_next(&x, max, &gc, &a);

		if (act == EXA_PAUSE) {
			ex_resume(&x);
			continue;
		}
		if (act != EXA_DATA)
			break;
		for (uint64_t off = a.off, left = a.len; left;) {
			const char *p;
			size_t n = ex_slice(&x, off, (size_t)left, &p);

			if (!n || o + n > cap)
				return 0;
			memcpy(out + o, p, n);
			o += n, off += n, left -= n;
		}
	}
	return o;
}

/* the pattern's <n> bytes at <off>, at <b>: their length */
static size_t pat(char *b, uint64_t off, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = body_line[(off + i) % BODY_LINE];
	return n;
}

/* multipart and gRPC bodies: made as they are pulled, the exchange holding
 * no more than their heads */
static void made_bodies(void)
{
	static char got[1 << 17], want[1 << 17];
	static const uint64_t sp[][2] = { { 0, 99 }, { 60000, 69999 }, { 5, 5 } };
	size_t w = 0, n;

	start("/?s=70000");
	x.rq.flags |= RQ_GET | RQ_COND;
	x.rq.c.range = (struct ist){ "bytes=0-99,60000-,5-5", 21 };
	n = pull(777, got, sizeof(got));
	for (size_t i = 0; i < 3; i++) {
		w += (size_t)sprintf(want + w, "\r\n--hxterm-byteranges\r\nContent-Type: text/plain\r\n"
				     "Content-Range: bytes %llu-%llu/70000\r\n\r\n", (unsigned long long)sp[i][0],
				     (unsigned long long)sp[i][1]);
		w += pat(want + w, sp[i][0], (size_t)(sp[i][1] - sp[i][0] + 1));
	}
	w += (size_t)sprintf(want + w, "\r\n--hxterm-byteranges--\r\n");
	ok(x.rs.status == 206 && x.rs.body == w && n == w && !memcmp(got, want, w),
	   "three ranges pulled 777 bytes at a time: the multipart body, %zu of %zu bytes", n, w);
	ok(x.echo_cap < 4096, "... the exchange held %u bytes for it, its parts' heads", x.echo_cap);
	ex_done(&x);

	x.rq = (struct hreq){ .flags = RQ_CAN_CHUNK | RQ_GRPC, .t_head = T_NS };
	x.rq.target = (struct ist){ "/S/M?s=300&n=4", 14 };
	ex_plan(&x, &gc, &r);
	n = pull(100, got, sizeof(got));
	for (w = 0; w < 4 * 308; w += 308) {
		memcpy(want + w, "\0\0\0\x01\x2f\x0a\xac\x02", 8); /* 303 bytes: field 1, 300 long */
		pat(want + w + 8, 0, 300);
	}
	ok(x.rs.body == w && n == w && !memcmp(got, want, w), "gRPC s=300&n=4 pulled 100 bytes at a time: 4 messages");
	ok(x.echo_cap == 0, "... made as pulled, none held (%u bytes)", x.echo_cap);
	ex_done(&x);
}

int main(void)
{
	struct ex_action a;
	const char *p;
	size_t n;

	rng_seed(&r, 7);
	body_init(65536);

	start("/?s=100");
	ok(!strcmp(run(64), "D64 D36 E"), "s=100: two slices then the end (%s)", run(64));
	start("/?s=10&p=4&d=100");
	ok(!strcmp(run(1000), "D4 P100 D4 P100 D2 E"), "p=4&d=100: pieces, a timed pause after each but the last");
	start("/?s=10&p=4");
	ok(!strcmp(run(1000), "D4 P0 D4 P0 D2 E"), "p= alone: pieces end at once (a flush), no wait");
	{
		struct ex_action a0 = { 0 };

		ex_respond(&x, &gc, T_NS);
		fake_now = T_US;
		for (int i = 0; i < 2; i++)
			ex_next(&x, 1000, &gc, &a0);
		ok(a0.act == EXA_PAUSE && a0.until_us == 0, "... its pause ends in the past (0): no timer set");
	}
	start("/?s=1000&x=300");
	ok(!strcmp(run(1000), "D300 R"), "x=300: 300 bytes then reset");
	start("/?s=1000&X=300");
	ok(!strcmp(run(1000), "D300 C"), "X=300: 300 bytes then close");
	start("/?s=100&x=500");
	ok(!strcmp(run(1000), "D100 E"), "x= past the body: no fault");
	start("/?s=100&x=0");
	ok(!strcmp(run(1000), "R"), "x=0: reset before any byte");
	start("/?s=0&x=0");
	ok(!strcmp(run(1000), "E"), "no body: no fault point to reach");
	start("/?s=10&p=4&x=4");
	ok(!strcmp(run(1000), "D4 R"), "a fault at a piece boundary comes before the pause");

	/* a pause, a fault and the end repeat until acted upon */
	start("/?s=8&p=4&d=50");
	ex_respond(&x, &gc, T_NS);
	ex_next(&x, 100, &gc, &a);
	ok(ex_next(&x, 100, &gc, &a) == EXA_PAUSE && a.until_us == T_US + 50000, "the pause ends 50 ms on");
	fake_now = T_US + 9000;
	ok(ex_next(&x, 100, &gc, &a) == EXA_PAUSE && a.until_us == T_US + 50000,
	   "asked again, the same pause with the same end");
	ex_resume(&x);
	fake_now = T_US + 50000;
	ok(ex_next(&x, 100, &gc, &a) == EXA_DATA && a.off == 4 && a.len == 4, "then the next piece");
	ok(ex_next(&x, 100, &gc, &a) == EXA_END && ex_next(&x, 100, &gc, &a) == EXA_END, "the end repeats");
	fake_now = T_US;

	/* the bytes are the pattern, continuous across slices */
	start("/?s=120");
	ex_respond(&x, &gc, T_NS);
	ex_next(&x, 70, &gc, &a);
	n = ex_slice(&x, a.off, (size_t)a.len, &p);
	ok(n == 70 && !memcmp(p, ".123456789", 10) && p[49] == '\n' && p[50] == '.', "the first slice is the line pattern");
	ex_next(&x, 70, &gc, &a);
	n = ex_slice(&x, a.off, (size_t)a.len, &p);
	ok(a.off == 70 && n == 50 && !memcmp(p, ".123456789", 10) && p[29] == '\n',
	   "the next one goes on where it stopped (offset 70 is column 20)");

	made_bodies();

	/* request side */
	start("/?t=20&A=1");
	ok(ex_wait_until(&x, &gc) == T_US + 20000, "t=20: the answer waits 20 ms");
	ok(ex_answer_early(&x, 0), "A=1: answered before the body");
	start("/?B=10");
	ok(!ex_answer_early(&x, 9) && ex_answer_early(&x, 10) && ex_body_cap(&x) == 10,
	   "B=10: answered once 10 body bytes are in");
	start("/?s=1");
	ok(!ex_answer_early(&x, 1000) && ex_body_cap(&x) == UINT64_MAX && !ex_wait_until(&x, &gc),
	   "by default: the body is read first, no wait");
	start("/?s=abc&t=5000");
	ok(ex_answer_early(&x, 0) && !ex_wait_until(&x, &gc), "a bad item: answered at once, no wait");
	ex_respond(&x, &gc, T_NS);
	ok(x.rs.status == 400 && x.rs.body == strlen("bad item 's=abc': expected a decimal number\n"),
	   "400 with the one-line reason as the body");

	/* the connection around it */
	start("/?K=1");
	ok(ex_keep(&x, 0) == 1, "K=1 keeps a connection that would close");
	start("/?C=1");
	ok(ex_keep(&x, 1) == 0, "C=1 closes one that would stay");
	start("/?w=250&P=30");
	ok(ex_idle_ms(&x, 30000) == 250 && ex_pause_ms(&x) == 30, "w= and P=");
	start("/");
	ok(ex_keep(&x, 1) == 1 && ex_idle_ms(&x, 30000) == 30000 && !ex_pause_ms(&x), "none: the defaults");

	/* framing and zero-copy */
	start("/?s=100&k=16");
	ex_respond(&x, &gc, T_NS);
	ok(ex_frame(&x) == 16 && !ex_zero_copy_ok(&x), "k=16: frames of 16, no zero-copy");
	start("/?s=100&S=0");
	ex_respond(&x, &gc, T_NS);
	ok(!ex_zero_copy_ok(&x), "S=0: no zero-copy");
	start("/?s=100000");
	ex_respond(&x, &gc, T_NS);
	ok(ex_zero_copy_ok(&x) && ex_frame(&x) == 0, "a plain body may go zero-copy");
	ex_skip(&x, 99000);
	ok(ex_left(&x) == 1000 && ex_next(&x, 5000, &gc, &a) == EXA_DATA && a.off == 99000 && a.len == 1000,
	   "ex_skip: the bytes an adapter sent itself are not handed out again");

	/* trailers */
	start("/?s=5&T=x-a:1&T=x-b:2");
	ex_respond(&x, &gc, T_NS);
	ok(ex_trailers(&x, &n) && n == 2 && ex_has_body(&x), "T=: two trailers");
	x.rq.flags |= RQ_HEAD;
	ok(ex_trailers(&x, &n) && n == 0, "none for HEAD");

	/* an exchange moves (h2c Upgrade) without planning again */
	{
		static char a_text[] = "GET /?s=7&H=X-A:one HTTP/1.1\r\nHost: x\r\n\r\n";
		static char b_text[sizeof(a_text)];
		static struct exch y;

		x.rq = (struct hreq){ .flags = RQ_CAN_CHUNK };
		x.rq.echo = (struct ist){ a_text, sizeof(a_text) - 1 };
		x.rq.target = (struct ist){ a_text + 4, 15 };
		ex_plan(&x, &gc, &r);
		memcpy(b_text, a_text, sizeof(a_text));
		ex_adopt(&y, &x, b_text);
		ex_done(&x);
		memset(&x, 0xa5, sizeof(x)); /* the old exchange is gone */
		memset(a_text, '#', sizeof(a_text) - 1);
		ex_respond(&y, &gc, T_NS);
		ok(y.rs.body == 7 && y.rq.target.ptr == b_text + 4, "the adopted plan and request hold");
		ok(y.plan.nhdr == 1 && y.plan.ext->hdr[0].vlen == 3 && !memcmp(y.plan.ext->hdr[0].val, "one", 3),
		   "its H= field points into its own copy");
		ex_done(&y);
	}
	/* a query planned again comes from the thread's kept plan: never one
	 * that drew a number, read an X-Hxterm header or was refused */
	{
		uint64_t first;
		int differ = 0;

		memset(&x, 0, sizeof(x));
		start("/?s=100&t=3");
		ok(x.plan.size == 100 && x.plan.wait_ms == 3 && x.plan.status == 200, "s=100&t=3 planned");
		start("/other?s=100&t=3");
		ok(x.plan.size == 100 && x.plan.wait_ms == 3 && x.plan.status == 200 && !x.plan.ext,
		   "... the same query again, on another path: the same plan");
		start("/?s=1-1000000");
		first = x.plan.size;
		for (int i = 0; i < 8; i++) {
			start("/?s=1-1000000");
			differ |= x.plan.size != first;
		}
		ok(differ, "s=1-1000000 drawn anew each time, not kept (%llu first)", (unsigned long long)first);
		x.rq = (struct hreq){ .flags = RQ_CAN_CHUNK };
		x.rq.target = (struct ist){ "/?s=100&t=3", 11 };
		x.rq.xhx = (struct ist){ "k=5", 3 };
		ex_plan(&x, &gc, &r);
		ok((x.plan.flags & PF_CHUNK) && x.plan.chunk == 5 && x.plan.size == 100,
		   "the kept query with an X-Hxterm header beside it: the header read (k=5)");
		start("/?s=100&t=3");
		ok(!(x.plan.flags & PF_CHUNK) && x.plan.size == 100, "... and the query alone again: no k= kept from it");
		start("/?s=abc");
		ok((x.plan.flags & PF_BAD) && x.plan.status == 400, "s=abc refused");
		start("/?s=abc");
		ok((x.plan.flags & PF_BAD) && x.plan.status == 400 && x.plan.ext, "... again, with its reason");
		ex_done(&x);
	}
	plan_ext_thread_free();
	body_free();
	return done_testing();
}

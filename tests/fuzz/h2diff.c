/* libFuzzer differential driver: the same HTTP/2 input (h2in.h) to our engine and to nghttp2's session; what each answered, stream by stream, must agree, or the driver aborts naming the difference. */
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include "h2in.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define STREAMS 128

/* what one engine answered */
struct answer {
	int64_t goaway;      /* its code, -1: none */
	size_t bytes;        /* all it wrote */
	struct {
		uint16_t status; /* the final :status, 0: none */
		uint8_t end;     /* END_STREAM came */
		uint8_t rst;     /* RST_STREAM came */
		uint64_t data;   /* DATA bytes */
	} s[STREAMS];        /* by (stream id - 1) / 2 */
};

static int ready;
static struct srv_sink sink;

static void setup(void)
{
	/* WHY --max-wait 0: a t= or d= is then answered 400 at once, so that
	 * no answer depends on how the loop's turns fall in time. WHY the
	 * timeouts a minute, where the other drivers take 20 ms: they run on
	 * the loop's clock, not on the input, and an engine's turn is not as
	 * long as the other's (ours is built with the sanitizers, nghttp2's
	 * library is not): a z=710535 head took ours 11-24 ms to stage, so
	 * --send-timeout 20 closed its connection for a client "not reading"
	 * one turn later, before the next frame was read, in 7 runs of 10,
	 * while nghttp2 went on and answered that frame's connection error
	 * (GOAWAY 9 or 1). The connection ends at the input's end (srv_end
	 * closes it), so none of these needs to fire in a run */
	static char *argv[] = { "hxterm", "-q", "--max-wait", "0", "--head-timeout", "60000",
				"--idle-timeout", "60000", "--body-timeout", "60000", "--send-timeout", "60000",
				"--max-size", "16k", NULL };

	srv_setup(argv);
	sess_init(proto_table);
	srv_thread();
	sink.cap = 8 << 20;
	if (!(sink.p = malloc(sink.cap)))
		abort();
	ready = 1;
}

/* the final :status of a header block, 0 when it has none (trailers, 1xx) */
static uint16_t block_status(nghttp2_hd_inflater *inf, const uint8_t *in, size_t n)
{
	uint16_t st = 0;

	for (;;) {
		nghttp2_nv nv;
		int fl = 0;
		ssize_t r = nghttp2_hd_inflate_hd2(inf, &nv, &fl, in, n, 1);

		if (r < 0)
			abort(); /* WHY: a server's header block must always decode */
		in += r;
		n -= (size_t)r;
		if ((fl & NGHTTP2_HD_INFLATE_EMIT) && nv.namelen == 7 && !memcmp(nv.name, ":status", 7))
			st = (uint16_t)atoi((const char *)nv.value); /* WHY atoi: nghttp2 ends values with a NUL */
		if (fl & NGHTTP2_HD_INFLATE_FINAL) {
			nghttp2_hd_inflate_end_headers(inf);
			break;
		}
		if (!(fl & NGHTTP2_HD_INFLATE_EMIT) && !n)
			break;
	}
	return st >= 200 ? st : 0;
}

/* the frames the server wrote, as an answer */
static void parse(const uint8_t *p, size_t n, struct answer *a)
{
	static uint8_t block[1 << 20];
	size_t bn = 0;
	nghttp2_hd_inflater *inf;

	memset(a, 0, sizeof(*a));
	a->goaway = -1;
	a->bytes = n;
	if (nghttp2_hd_inflate_new(&inf))
		abort();
	while (n >= 9) {
		size_t len = (size_t)p[0] << 16 | (size_t)p[1] << 8 | p[2];
		uint8_t type = p[3], fl = p[4];
		uint32_t sid = (uint32_t)(p[5] & 0x7f) << 24 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 8 | p[8];
		unsigned i = (sid - 1) / 2;

		if (len > n - 9)
			break;
		if (type == 7 && len >= 8)
			a->goaway = (int64_t)((uint32_t)p[13] << 24 | (uint32_t)p[14] << 16 | (uint32_t)p[15] << 8 | p[16]);
		if (sid && i < STREAMS) {
			if (type == 0)
				a->s[i].data += len;
			if ((type == 0 || type == 1) && (fl & 1))
				a->s[i].end = 1;
			if (type == 3)
				a->s[i].rst = 1;
			if ((type == 1 || type == 9) && bn + len <= sizeof(block)) {
				memcpy(block + bn, p + 9, len);
				bn += len;
			}
			if ((type == 1 || type == 9) && (fl & 4)) {
				uint16_t st = block_status(inf, block, bn);

				if (st)
					a->s[i].status = st;
				bn = 0;
			}
		}
		p += 9 + len;
		n -= 9 + len;
	}
	nghttp2_hd_inflate_del(inf);
}

/* what <engine> answered; -1 when no connection could be made (nothing to compare) */
static int answer_of(int engine, const uint8_t *data, size_t size, struct answer *a)
{
	int r;

	cfg.h2_engine = (uint8_t)engine;
	rng_seed(&w.rng, 1); /* WHY: the same random draws (s=a-b) for both */
	sink.n = 0;
	srv_sink = &sink;
	r = h2in_run(data, size);
	srv_sink = NULL;
	parse(sink.p, sink.n, a);
	return r;
}

/* Where the two must agree: whether the connection ended in error, and for
 * each stream both answered, its status and, when both ended it, its body's
 * length. A stream one answered and the other reset is a difference too. */
static void compare(const struct answer *hx, const struct answer *ng)
{
	/* WHY: a server writes its SETTINGS first, always; nothing at all is
	 * the harness's connection failing (seen once in 100,000), not an answer */
	if (!hx->bytes || !ng->bytes)
		return;
	if ((hx->goaway > 0) != (ng->goaway > 0)) {
		fprintf(stderr, "h2diff: connection error: hx GOAWAY %lld (%zu bytes out), nghttp2 GOAWAY %lld (%zu bytes out)\n",
			(long long)hx->goaway, hx->bytes, (long long)ng->goaway, ng->bytes);
		abort();
	}
	if (hx->goaway > 0)
		return; /* WHY: what came before the error may differ in how far each read */
	for (int i = 0; i < STREAMS; i++) {
		const typeof(hx->s[0]) *a = &hx->s[i], *b = &ng->s[i];

		if ((a->status && b->status && a->status != b->status) ||
		    (a->end && b->end && a->data != b->data) ||
		    (a->status && a->end && !a->rst && b->rst && !b->status) ||
		    (b->status && b->end && !b->rst && a->rst && !a->status)) {
			fprintf(stderr, "h2diff: stream %d: hx status %u end %u rst %u data %llu; "
				"nghttp2 status %u end %u rst %u data %llu\n", 2 * i + 1,
				a->status, a->end, a->rst, (unsigned long long)a->data,
				b->status, b->end, b->rst, (unsigned long long)b->data);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct answer hx, ng;

	if (!ready)
		setup();
	if (answer_of(H2ENG_HX, data, size, &hx) == 0 && answer_of(H2ENG_NGHTTP2, data, size, &ng) == 0)
		compare(&hx, &ng);
	return 0;
}

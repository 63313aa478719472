/* Unit tests of the HTTP/1 head memo: a replay gives what a parse and an analysis of the same bytes give, anywhere; other bytes miss. */
#include <stdlib.h>
#include <string.h>

#include "h1_memo.h"
#include "tap.h"

static const struct h1_limits lim = { 8192, 100 };

/* an ist as its offset from <base> (-1: none) and its length */
static int same_ist(struct ist a, const char *abase, struct ist b, const char *bbase)
{
	long ao = a.ptr ? a.ptr - abase : -1, bo = b.ptr ? b.ptr - bbase : -1;

	return ao == bo && a.len == b.len;
}

static int same_info(const struct h1_info *a, const char *ab, const struct h1_info *b, const char *bb)
{
	int same = a->flags == b->flags && a->clen == b->clen && same_ist(a->xhx, ab, b->xhx, bb) &&
		   same_ist(a->settings, ab, b->settings, bb) && same_ist(a->ws_key, ab, b->ws_key, bb) &&
		   same_ist(a->ws_ver, ab, b->ws_ver, bb);

	if (same && (a->flags & H1I_COND))
		same = same_ist(a->c.inm, ab, b->c.inm, bb) && same_ist(a->c.im, ab, b->c.im, bb) &&
		       same_ist(a->c.ims, ab, b->c.ims, bb) && same_ist(a->c.ius, ab, b->c.ius, bb) &&
		       same_ist(a->c.range, ab, b->c.range, bb) &&
		       same_ist(a->c.if_range, ab, b->c.if_range, bb);
	return same;
}

/* <head> parsed at one place and kept, then found at another with <tail>
 * after it: the replay there is what parsing there gives */
static void replays(const char *head, const char *tail, const char *what)
{
	static struct h1_memo m;
	static struct h1_req r1, r2, r3;
	struct h1_info i1, i2, i3;
	struct h1_err err;
	size_t hl = strlen(head), tl = strlen(tail);
	char *a = malloc(hl + 1), *b = malloc(hl + tl + 7);
	int n;

	memcpy(a, head, hl);
	n = h1_parse_req(a, hl, &r1, &lim, &err);
	ok(n > 0 && h1_analyze(&r1, &i1, 1000, &err) == 0, "%s: parses", what);
	h1m_record(&m, a, n, &r1, &i1);
	memset(a, 'x', hl); /* WHY: the memo keeps its own copy */
	memcpy(b + 7, head, hl);
	memcpy(b + 7 + hl, tail, tl);
	is_int(h1m_hit(&m, b + 7, hl + tl), n, "%s: the same bytes elsewhere hit", what);
	h1m_replay(&m, b + 7, &r2, &i2);
	h1_parse_req(b + 7, hl + tl, &r3, &lim, &err);
	h1_analyze(&r3, &i3, 1000, &err);
	ok(same_ist(r2.method, b, r3.method, b) && same_ist(r2.target, b, r3.target, b) &&
	   r2.minor == r3.minor && r2.skipped == r3.skipped, "%s: the request line as parsed", what);
	ok(same_info(&i2, b, &i3, b), "%s: the analysis as made", what);
	free(a);
	free(b);
}

static void hits(void)
{
	replays("GET /?s=100 HTTP/1.1\r\nHost: a\r\n\r\n", "", "a benchmark's GET");
	replays("GET /?s=100 HTTP/1.1\r\nHost: a\r\n\r\n", "GET / HTTP/1.1\r\n", "pipelined");
	replays("\r\n\r\nPOST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\nX-Hxterm: s=5\r\n\r\n",
		"hello, world", "empty lines first, a body, X-Hxterm");
	replays("GET / HTTP/1.1\r\nHost: a\r\nIf-None-Match: \"a\", \"b\"\r\nIf-Modified-Since: Sun, 06 Nov 1994 "
		"08:49:37 GMT\r\nRange: bytes=0-1\r\nIf-Range: \"a\"\r\n\r\n", "", "conditional");
	replays("GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", "", "WebSocket");
	replays("GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
		"HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n", "", "h2c upgrade");
	replays("HEAD / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "", "HTTP/1.0 HEAD");
}

static void misses(void)
{
	static const char head[] = "GET /?s=100 HTTP/1.1\r\nHost: a\r\n\r\n";
	static struct h1_memo m;
	static struct h1_req r;
	struct h1_info in;
	struct h1_err err;
	char b[sizeof(head)], *big;
	size_t hl = sizeof(head) - 1;
	int n, wrong = 0;

	ok(!h1m_hit(&m, head, hl), "nothing kept: no hit");
	n = h1_parse_req(head, hl, &r, &lim, &err);
	h1_analyze(&r, &in, 1000, &err);
	h1m_record(&m, head, n, &r, &in);
	memcpy(b, head, sizeof(head));
	is_int(h1m_hit(&m, b, hl), (int)hl, "kept");
	ok(!h1m_hit(&m, b, hl - 1), "the head but its last byte: no hit (partial)");
	for (size_t i = 0; i < hl; i++) {
		b[i] ^= 0x20;
		wrong += !!h1m_hit(&m, b, hl);
		b[i] ^= 0x20;
	}
	is_int(wrong, 0, "any one byte changed, at any of %zu offsets: no hit", hl);
	big = malloc(H1M_HEAD + 100);
	n = snprintf(big, H1M_HEAD + 100, "GET / HTTP/1.1\r\nHost: a\r\nX-Pad: %0*d\r\n\r\n", H1M_HEAD, 0);
	is_int(h1_parse_req(big, (size_t)n, &r, &lim, &err), n, "a head over the memo's room parses");
	h1_analyze(&r, &in, 1000, &err);
	h1m_record(&m, big, n, &r, &in);
	ok(!h1m_hit(&m, big, (size_t)n) && !h1m_hit(&m, head, hl), "... is not kept, and the last kept is forgotten");
	free(big);
}

/* heads that never come again: fewer kept as the misses run on, all again after a hit */
static void backoff(void)
{
	static struct h1_memo m;
	static struct h1_req r;
	struct h1_info in;
	struct h1_err err;
	char b[64];
	int kept = 0, n;

	for (int i = 1; i <= 2048; i++) {
		n = snprintf(b, sizeof(b), "GET /%d HTTP/1.1\r\nHost: a\r\n\r\n", i);
		h1_parse_req(b, (size_t)n, &r, &lim, &err);
		h1_analyze(&r, &in, 1000, &err);
		h1m_record(&m, b, n, &r, &in);
		kept += h1m_hit(&m, b, (size_t)n) == n;
	}
	is_int(kept, 12, "2048 heads, none again: the 1st, 2nd, 4th ... 2048th kept");
	h1m_replay(&m, b, &r, &in);
	n = snprintf(b, sizeof(b), "GET /x HTTP/1.1\r\nHost: a\r\n\r\n");
	h1_parse_req(b, (size_t)n, &r, &lim, &err);
	h1_analyze(&r, &in, 1000, &err);
	h1m_record(&m, b, n, &r, &in);
	is_int(h1m_hit(&m, b, (size_t)n), n, "after a hit, the next head is kept");
}

int main(void)
{
	hits();
	misses();
	backoff();
	return done_testing();
}

/* Unit tests of the query language: every key, every number form, bad values. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "tap.h"

static struct rng rng;
static const struct plan_limits lim = { 1ULL << 40, 60000, 0 };

static int apply(struct plan *p, const char *q)
{
	plan_init(p);
	return plan_apply(p, q, strlen(q), &rng, &lim);
}

static uint64_t draw(const char *s, int *bad)
{
	const char *err;
	uint64_t v = 0;

	*bad = num_draw(s, strlen(s), &rng, &v, &err) < 0;
	return v;
}

static void numbers(void)
{
	int bad, good = 1;
	uint64_t v, lo = UINT64_MAX, hi = 0, n200 = 0, below = 0;

	is_int(draw("123", &bad), 123, "plain decimal");
	is_int(draw("010", &bad), 10, "010 is ten, not eight");
	is_int(draw("20k", &bad), 20480, "k suffix");
	is_int(draw("3m", &bad), 3 << 20, "m suffix");
	is_int(draw("1g", &bad), 1 << 30, "g suffix");
	is_int(draw("2km", &bad), 2ULL << 30, "suffixes combine");
	draw("0x10", &bad);
	ok(bad, "hex is refused");
	draw("-5", &bad);
	ok(bad, "a leading minus is refused");
	draw("5kk", &bad);
	ok(bad, "a repeated suffix is refused");
	draw("99999999999999999999", &bad);
	ok(bad, "overflow is refused");
	draw("", &bad);
	ok(bad, "empty is refused");
	/* WHY these: each wrapped past 2^64 before the cap was checked */
	{
		static const char *const big[] = { "18446744073709551616", "18446744073709551620",
						   "18446744073709551615", "4611686018427387905",
						   "99999999999999999999k", "4611686018427387904g",
						   "1-18446744073709551616", "18446744073709551616-1",
						   "18446744073709551616~1", "1~18446744073709551616",
						   "18446744073709551616:50+1", "1:18446744073709551616+1",
						   "7:50+18446744073709551617" };
		int all = 1;

		for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
			const char *err = "";
			uint64_t got = 0;
			int r = num_draw(big[i], strlen(big[i]), &rng, &got, &err);
			int named = strstr(err, "too large") || strstr(err, "weight");

			all &= r < 0 && named;
			if (r >= 0 || !named)
				printf("# %s: %d, %llu, %s\n", big[i], r, (unsigned long long)got, err);
		}
		ok(all, "every number past 2^62 (plain, suffixed, range, log-normal, weighted) is refused");
	}
	is_int(draw("4611686018427387904", &bad), 1ULL << 62, "2^62 itself is the largest");
	for (int i = 0; i < 2000; i++) {
		v = draw("500r", &bad);
		good &= !bad && v <= 500;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	ok(good && lo < 50 && hi > 450, "500r is uniform in [0, 500] (%llu..%llu)",
	   (unsigned long long)lo, (unsigned long long)hi);
	v = draw("1rk", &bad);
	ok(!bad && v <= 1024, "r and k in any order");
	good = 1, lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < 2000; i++) {
		v = draw("10-50", &bad);
		good &= !bad && v >= 10 && v <= 50;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	ok(good && lo == 10 && hi == 50, "A-B covers [A, B]");
	is_int(draw("1k-1k", &bad), 1024, "A-B with suffixes");
	draw("50-10", &bad);
	ok(bad, "A-B with A > B is refused");
	draw("1r-5", &bad);
	ok(bad, "r inside a range is refused");
	for (int i = 0; i < 10000; i++) {
		v = draw("20~400", &bad);
		below += v <= 20;
		n200 += v > 400;
	}
	ok(below > 4500 && below < 5600, "P~Q: median near P (%llu of 10000 <= 20)",
	   (unsigned long long)below);
	ok(n200 > 40 && n200 < 200, "P~Q: about 1%% above Q (%llu of 10000)",
	   (unsigned long long)n200);
	draw("0~5", &bad);
	ok(bad, "P~Q with P = 0 is refused");
	draw("50~5", &bad);
	ok(bad, "P~Q with Q < P is refused");
	n200 = 0;
	for (int i = 0; i < 10000; i++) {
		v = draw("503:5+429:5+200", &bad);
		n200 += v == 200;
		good &= !bad && (v == 200 || v == 503 || v == 429);
	}
	ok(good && n200 > 8700 && n200 < 9300, "weighted list: 90%% of 200 (%llu)",
	   (unsigned long long)n200);
	is_int(draw("7:100", &bad), 7, "a single item of weight 100");
	draw("1:60+2:60", &bad);
	ok(bad, "weights over 100 are refused");
	draw("1:50+2:30", &bad);
	ok(bad, "explicit weights under 100 are refused");
	draw("1+2", &bad);
	ok(bad, "only the last item may omit its weight");
	n200 = 0;
	for (int i = 0; i < 100000; i++)
		n200 += draw("1:99.9+200", &bad) == 200;
	ok(!bad && n200 > 50 && n200 < 170, "a weight with decimals: 1:99.9+200 draws 200 0.1%% of the time (%llu of 100000)",
	   (unsigned long long)n200);
	is_int(draw("3:99.999+4", &bad), 3, "three decimals");
	ok(!bad, "... are taken");
	draw("3:99.9999+4", &bad);
	ok(bad, "four decimals are refused");
	draw("3:50.+4", &bad);
	ok(bad, "a dot without decimals is refused");
	draw("3:.5+4", &bad);
	ok(bad, "a weight without its integer part is refused");
	v = draw("5:50+100-200", &bad);
	ok(!bad && (v == 5 || (v >= 100 && v <= 200)), "a range inside a weighted list");
}

static void keys(void)
{
	struct plan p = { 0 };

	ok(apply(&p, "s=20k&c=0&t=700") == 0, "the SPEC example parses");
	ok(p.size == 20480 && (p.flags & PF_NOCACHE) && p.wait_ms == 700, "s, c, t applied");
	ok(apply(&p, "s=20k?c=0?t=700") == 0 && p.size == 20480 && p.wait_ms == 700 &&
	   (p.flags & PF_NOCACHE), "? separates items");
	ok(apply(&p, "s=20k/c=0/t=700") == 0 && p.size == 20480 && p.wait_ms == 700,
	   "/ separates items");
	ok(apply(&p, "s=1,t=2;r=404") == 0 && p.size == 1 && p.wait_ms == 2 && p.status == 404,
	   ", and ; separate items");
	ok(apply(&p, "r=500?s=0?c=0?t=1000") == 0 && p.status == 500 && p.wait_ms == 1000 &&
	   (p.flags & PF_NOCACHE), "haterm's own example applies every item");
	ok(apply(&p, "zz=5&foo&s=3") == 0 && p.size == 3, "unknown keys are ignored");
	ok(p.ign_len == 6 && !memcmp(p.ignored, "zz,foo", 6), "... and named: zz,foo");
	ok(apply(&p, "size=1k&wait=50") == 0 && p.size == 0 && p.ign_len == 9 && !memcmp(p.ignored, "size,wait", 9),
	   "size=1k&wait=50: size,wait");
	ok(apply(&p, "s=1&t=2") == 0 && p.ign_len == 0, "known keys name nothing");
	ok(apply(&p, "a\r\nb=1") == 0 && p.ign_len == 4 && !memcmp(p.ignored, "a??b", 4),
	   "a name's bytes outside a header token are '?'");
	ok(apply(&p, "abcdefghijklmnopqrstuvwxyz=1") == 0 && p.ign_len == 16, "16 bytes of a name at most");
	ok(apply(&p, "aaaaaaaaaaaaaaa1=1&aaaaaaaaaaaaaaa2=1&aaaaaaaaaaaaaaa3=1&q=1&z1=1&z2=1") == 0 &&
	   p.ign_len <= PLAN_IGN && p.ign_len > 6 && !memcmp(p.ignored + p.ign_len - 6, ",+more", 6),
	   "a full list ends in ,+more once");
	ok(apply(&p, "a.=1&bb=2&..=3&zz") == 0 && p.ign_len == 11 && !memcmp(p.ignored, "a.,bb,..,zz", 11),
	   "a key ending in '.' and a key of dots are named, and so are those after them");
	{
		static const struct plan_limits strict = { 1ULL << 40, 60000, 1 };

		plan_init(&p);
		ok(plan_apply(&p, "s=1&size=1k", 11, &rng, &strict) < 0 &&
		   !strncmp(plan_err(&p), "bad item 'size=1k': unknown key", 31), "--strict: an unknown key is a bad item");
		plan_init(&p);
		ok(plan_apply(&p, "s=1&h", 5, &rng, &strict) == 0, "--strict: h still asks for help");
	}
	/* fuzzer finding: an item without '=' made a pointer from NULL + 1 (UBSan) */
	ok(apply(&p, "s\303\304k-64k&s=1") == 0 && p.size == 1, "an item without '=' is ignored");
	ok(apply(&p, "") == 0 && (p.flags & PF_HELP), "empty query asks for help");
	ok(apply(&p, "h") == 0 && (p.flags & PF_HELP), "h asks for help");
	ok(apply(&p, "C=1&K=1&S=0&R=1&A=1&e=1&E=1") == 0 &&
	   (p.flags & (PF_CLOSE | PF_KEEP | PF_NOSPLICE | PF_RANDOM | PF_ACKFIRST | PF_ETAG | PF_ECHO)) ==
	   (PF_CLOSE | PF_KEEP | PF_NOSPLICE | PF_RANDOM | PF_ACKFIRST | PF_ETAG | PF_ECHO),
	   "boolean keys set their flags");
	ok(apply(&p, "c=1") == 0 && !(p.flags & PF_NOCACHE), "c=1 is cacheable");
	ok(apply(&p, "L=1&m=0&M=600") == 0 && (p.flags & PF_LASTMOD) && (p.flags & PF_MAXAGE) && !p.max_age &&
	   (p.flags & PF_SMAXAGE) && p.s_maxage == 600, "L=1, m=0 (max-age=0 is said), M=600");
	ok(apply(&p, "L=1&L=0") == 0 && !(p.flags & PF_LASTMOD), "L=0 after L=1: off");
	ok(apply(&p, "E=2") == 0 && (p.flags & PF_ECHOBODY) && !(p.flags & PF_ECHO), "E=2: the body echoed");
	ok(apply(&p, "E=2&E=1") == 0 && (p.flags & PF_ECHO) && !(p.flags & PF_ECHOBODY), "E=1 after E=2: the head");
	ok(apply(&p, "E=3") < 0 && strstr(plan_err(&p), "E=2 its body"), "E=3: a bad item");
	ok(apply(&p, "V=Accept-Language") == 0 && (p.flags & PF_VARY) && p.vary_len == 15 &&
	   !memcmp(p.vary, "Accept-Language", 15), "V=Accept-Language");
	ok(apply(&p, "V=") < 0 && apply(&p, "V=a(b") < 0 && apply(&p, "V=abcdefghijabcdefghijabcdefghijab") < 0,
	   "V= empty, not a token, or 32 characters: bad items");
	ok(apply(&p, "k=16k&p=100&d=5&P=7&w=900&B=10&z=2k") == 0 && (p.flags & PF_CHUNK) &&
	   p.chunk == 16384 && p.piece == 100 && p.drip_ms == 5 && p.pause_ms == 7 &&
	   p.idle_ms == 900 && (p.flags & PF_BODYMAX) && p.body_max == 10 && p.pad == 2048,
	   "k p d P w B z applied");
	ok(apply(&p, "b=0") == 0 && (p.flags & PF_NOLEN), "b=0: no length");
	ok(apply(&p, "b=77") == 0 && (p.flags & PF_LIE) && p.announce == 77, "b=N: a lie");
	ok(apply(&p, "x=10") == 0 && (p.flags & PF_RESET) && p.fault_at == 10, "x=N: reset");
	ok(apply(&p, "X=10") == 0 && (p.flags & PF_TRUNC) && p.fault_at == 10, "X=N: truncate");
	ok(apply(&p, "s=5&s=9") == 0 && p.size == 9, "the last item wins");
	ok(apply(&p, "H=X-A:b%20c&H=X-D:e&T=x-t:1") == 0 && p.nhdr == 2 && p.ntrl == 1,
	   "H and T accumulate");
	is_mem(p.ext->hdr[0].name, p.ext->hdr[0].nlen, "X-A", "header name");
	is_mem(p.ext->hdr[0].val, p.ext->hdr[0].vlen, "b c", "header value percent-decoded");
	is_mem(p.ext->trl[0].name, p.ext->trl[0].nlen, "x-t", "trailer name");
	ok(apply(&p, "H=X-A:%0d%0a") < 0, "CRLF in a header value is refused");
	ok(apply(&p, "H=X A:b") < 0, "a space in a header name is refused");
	ok(apply(&p, "H=nocolon") < 0, "H without a colon is refused");
	ok(apply(&p, "H=X:%zz") < 0, "a bad %%-escape is refused");
	ok(apply(&p, "H=X:%4") < 0, "a truncated %%-escape is refused");
	plan_done(&p);
}

static void errors(void)
{
	struct plan p = { 0 };

	ok(apply(&p, "s=a\nb") < 0 && !strchr(plan_err(&p), '\n')[1] && strstr(plan_err(&p), "s=a?b"),
	   "control bytes of an item are shown as ? in its one-line reason");
	ok(apply(&p, "s=abc") < 0, "s=abc is refused");
	ok(strstr(plan_err(&p), "s=abc") != NULL, "the reason names the item");
	ok(plan_err(&p)[strlen(plan_err(&p)) - 1] == '\n' && !strchr(plan_err(&p), '\n')[1], "the reason is one line");
	ok(apply(&p, "r=99") < 0, "status below 200 is refused");
	ok(apply(&p, "r=1000") < 0, "status above 999 is refused");
	ok(apply(&p, "c=2") == 0 && !(p.flags & PF_NOCACHE), "a flag takes any number: c=2 is cacheable");
	ok(apply(&p, "c=0") == 0 && (p.flags & PF_NOCACHE), "c=0: no-cache");
	ok(apply(&p, "K=30") == 0 && (p.flags & PF_KEEP), "K=30: keep-alive, on above 0");
	ok(apply(&p, "K=0") == 0 && !(p.flags & PF_KEEP), "K=0: off");
	ok(apply(&p, "K=abc") < 0, "a flag that is not a number is refused");
	ok(apply(&p, "t=60001") < 0 && strstr(plan_err(&p), "max-wait"), "t above --max-wait is refused");
	ok(apply(&p, "t=60000") == 0, "t at --max-wait is fine");
	ok(apply(&p, "s=2t") < 0, "unknown suffix is refused");
	ok(apply(&p, "s=") < 0, "an empty value is refused");
	ok(apply(&p, "s") < 0, "a known key without value is refused");
	ok(apply(&p, "z=2m") < 0, "padding above 1m is refused");
	ok(apply(&p, "s=1:50+2:70") < 0, "bad weights are refused");
	plan_done(&p);
}

/* the connection keys (plan_conn.c), hint= and ttft= */
static void conn_keys(void)
{
	struct plan p = { 0 }, q = { 0 };

	ok(apply(&p, "maxreq=10&h2s=1&h2w=0&ping=250") == 0 && (p.flags & PF_CONN) &&
	   p.ext->conn.set == (PC_MAXREQ | PC_STREAMS | PC_WINDOW | PC_PING) && p.ext->conn.maxreq == 10 &&
	   p.ext->conn.streams == 1 && p.ext->conn.window == 0 && p.ext->conn.ping_ms == 250,
	   "maxreq=, h2s=, h2w=, ping=: each set, in the extension");
	ok(apply(&p, "s=1") == 0 && !(p.flags & PF_CONN), "none of them: no PF_CONN");
	ok(apply(&p, "maxreq=0") < 0 && strstr(plan_err(&p), "maxreq=N"), "maxreq=0 is refused, named");
	ok(apply(&p, "h2w=2147483648") < 0, "h2w= at 2^31 is refused");
	ok(apply(&p, "ping=100r") < 0, "ping= takes no random form");
	ok(apply(&p, "hint=%3C%2Fa.js%3E%3Brel%3Dpreload") == 0 && (p.flags & PF_HINT), "hint=: PF_HINT");
	is_mem(p.ext->hint.val, p.ext->hint.vlen, "</a.js>;rel=preload", "... its Link percent-decoded");
	ok(plan_copy(&q, &p) == 0 && q.ext->hint.val != p.ext->hint.val, "a copy's Link points into its own extension");
	is_mem(q.ext->hint.val, q.ext->hint.vlen, "</a.js>;rel=preload", "... with the same bytes");
	ok(apply(&p, "hint=1") == 0 && strstr(p.ext->hint.val, "rel=preload"), "hint=1: a default Link");
	ok(apply(&p, "hint=") < 0 && apply(&p, "hint=%0a") < 0, "an empty hint= and a control byte are refused");
	ok(apply(&p, "ttft=50") == 0 && (p.flags & PF_TTFT) && p.ttft_ms == 50, "ttft=50: PF_TTFT");
	ok(apply(&p, "ttft=50&ttft=0") == 0 && !(p.flags & PF_TTFT), "ttft=0: off again");
	plan_done(&p);
	plan_done(&q);
}

/* ---------- X-Hxterm-Ignored with 1,000 unknown keys ---------- */

#define NKEYS 1000

/* key <i>: each character class in turn (letters of both cases, digits, '_',
 * '-', dots inside, at the end and alone, controls, bytes over 0x7f, token
 * characters a name shows as '?', a long name, an empty one) */
static void key_of(int i, char *k)
{
	static const char *const shapes[] = {
		"zq%dabc", "ZQ%dXYZ", "zq%d0123456789", "zq_%d_", "zq-%d-x", "zq.%d.x", "zq%d.", "..",
		"zq\x01\x7f\x1f%d", "zq\xc3\xa9\xff%d", "zq%%0D+*!~'%d", "zqlongname%dlongname", "",
		"...", "zq%d...", "Zq%d-_.",
	};
	const char *shape = shapes[i % (int)(sizeof(shapes) / sizeof(shapes[0]))];

	if (!strcmp(shape, "..")) /* 1 to 20 dots */
		memset(k, '.', (size_t)(1 + i % 20)), k[1 + i % 20] = 0;
	else
		snprintf(k, 64, shape, i);
}

/* what X-Hxterm-Ignored shows of key <k>: 16 bytes, token letters, digits,
 * '_', '-', '.', '?' for any other byte; "=" for an empty key */
static size_t shown(const char *k, char *o)
{
	size_t n = strlen(k) < 16 ? strlen(k) : 16;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)k[i];

		o[i] = isalnum(c) || c == '_' || c == '-' || c == '.' ? (char)c : '?';
	}
	if (!n)
		o[n++] = '=';
	return n;
}

/* the list after keys <from>..<from + n - 1>: each of them named in
 * order, or the first of them and ",+more" where the next could not fit;
 * 1 when so */
static int ignored_ok(const struct plan *p, int from, int n)
{
	size_t at = 0;
	int i;

	for (i = 0; i < n; i++) {
		char k[64], name[17];
		size_t nl;

		key_of((from + i) % NKEYS, k);
		nl = shown(k, name);
		if (at + (at ? 1 : 0) + nl + 6 > PLAN_IGN)
			break; /* it could not be named with room for the end marker */
		if (at && (at >= p->ign_len || p->ignored[at++] != ','))
			return 0;
		if (at + nl > p->ign_len || memcmp(p->ignored + at, name, nl))
			return 0;
		at += nl;
	}
	if (i == n)
		return at == p->ign_len;
	return p->ign_len == at + 6 && !memcmp(p->ignored + at, ",+more", 6);
}

/* the query of keys <from>..<from + n - 1>, "=1" after every other one */
static size_t query_of(int from, int n, char *q)
{
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		char k[64];

		key_of((from + i) % NKEYS, k);
		len += (size_t)sprintf(q + len, "%s%s%s", i ? "&" : "", k, (from + i) % 2 || !k[0] ? "=1" : "");
	}
	return len;
}

static void ignored_many(void)
{
	static char q[NKEYS * 64];
	struct plan p = { 0 };
	int bad = 0;
	size_t len;

	plan_init(&p);
	len = query_of(0, NKEYS, q);
	bad = plan_apply(&p, q, len, &rng, &lim);
	ok(!bad && ignored_ok(&p, 0, NKEYS) && p.ign_len <= PLAN_IGN,
	   "1,000 unknown keys of every character class: the first named, then ,+more (%.*s)", (int)p.ign_len, p.ignored);
	bad = 0;
	for (int from = 0; from < NKEYS; from++)
		for (int n = 1; n <= 4; n++) {
			plan_init(&p);
			len = query_of(from, n, q);
			if (plan_apply(&p, q, len, &rng, &lim) || !ignored_ok(&p, from, n) || p.ign_len > PLAN_IGN) {
				if (bad++ < 3)
					printf("# '%.*s': '%.*s'\n", (int)len, q, (int)p.ign_len, p.ignored);
			}
		}
	ok(!bad, "each run of 1 to 4 of them (4,000 queries): every key named in order, or ,+more where one could not fit");
	plan_done(&p);
}

/* the extension: taken only when a key asks for it, given back, the
 * thread's list capped */
static void extension(void)
{
	struct plan p = { 0 }, q = { 0 }, many[PLAN_EXT_KEEP + 4];
	unsigned kept;

	plan_ext_thread_free();
	ok(apply(&p, "s=1k&t=5&c=0&r=404&k=10&p=100&d=5&x=3&z=1k&m=5&cc=public&sse=1&n=3&V=Accept&zz=1") == 0 &&
	   !p.ext, "a query of plain numbers, flags, V= and an unknown key takes no extension");
	ok(apply(&p, "s=1-5&d=10") == 0 && p.ext && !strcmp(p.ext->spec_s, "1-5") && !p.ext->spec_d[0],
	   "s=1-5: a random form takes one and keeps its text; d=10, plain, none");
	ok(apply(&p, "s=1k~2k&s=7") == 0 && p.size == 7 && !plan_spec_s(&p)[0], "a plain s= after a random one clears it");
	ok(apply(&p, "H=X-A:1") == 0 && p.ext && p.nhdr == 1, "H= takes one");
	ok(apply(&p, "T=x-t:1") == 0 && p.ext && p.ntrl == 1, "T= takes one");
	ok(apply(&p, "s=x") < 0 && p.ext && strstr(plan_err(&p), "s=x"), "a bad item's reason takes one");
	kept = plan_ext_kept();
	ok(apply(&p, "s=1") == 0 && !p.ext && plan_ext_kept() == kept + 1, "planned again: it went back to the list");
	ok(apply(&p, "H=X-B:2") == 0 && plan_ext_kept() == kept, "... and is taken from it");
	ok(plan_copy(&q, &p) == 0 && q.ext && q.ext != p.ext && q.ext->hdr[0].name >= q.ext->dec && q.ext->hdr[0].name < q.ext->dec + 8 &&
	   q.ext->hdr[0].vlen == 1 && q.ext->hdr[0].val[0] == '2', "a copy has its own, the fields moved into it");
	plan_done(&q);
	plan_done(&p);
	ok(!p.ext && plan_ext_kept() <= PLAN_EXT_KEEP, "plan_done gives it back");
	for (int i = 0; i < PLAN_EXT_KEEP + 4; i++) {
		many[i] = (struct plan){ 0 };
		apply(&many[i], "H=X:1");
	}
	for (int i = 0; i < PLAN_EXT_KEEP + 4; i++)
		plan_done(&many[i]);
	is_int((int)plan_ext_kept(), PLAN_EXT_KEEP, "20 given back: 16 kept, the others freed");
	plan_ext_thread_free();
	is_int((int)plan_ext_kept(), 0, "the thread's list freed");
}

int main(void)
{
	rng_seed(&rng, 7);
	ignored_many();
	numbers();
	keys();
	errors();
	conn_keys();
	extension();
	plan_ext_thread_free();
	return done_testing();
}

/* Unit tests of the request head parser: valid, partial at every byte, malformed. */
#include <stdlib.h>
#include <string.h>

#include "h1_parse.h"
#include "tap.h"

static const struct h1_limits lim = { 8192, 100 };
static struct h1_req req;
static struct h1_err err;

static int parse_len(const char *s, size_t len)
{
	err.status = 0;
	return h1_parse_req(guarded(s, len), len, &req, &lim, &err);
}

static int parse(const char *s)
{
	size_t len = strlen(s);

	err.status = 0;
	return h1_parse_req(guarded(s, len), len, &req, &lim, &err);
}

/* the status a head gets: 0 when it parses and analyzes fine */
static int status_of(const char *s)
{
	struct h1_info in;
	int n = parse(s);

	if (n == HX_AGAIN)
		return -2;
	if (n < 0)
		return err.status;
	return h1_analyze(&req, &in, 1000, &err) < 0 ? err.status : 0;
}

static void valid(void)
{
	static const char get[] =
		"GET /?s=1k HTTP/1.1\r\nHost: a\r\nUser-Agent:  curl/8 \r\nX-Hxterm: t=5\r\n\r\n";
	struct h1_info in;
	int all = 1;

	is_int(parse(get), (int)strlen(get), "a GET head is consumed whole");
	is_mem(req.method.ptr, req.method.len, "GET", "method");
	is_mem(req.target.ptr, req.target.len, "/?s=1k", "target");
	is_int(req.minor, 1, "HTTP/1.1");
	is_int(req.nhdrs, 3, "three headers");
	is_mem(req.hdrs[1].v.ptr, req.hdrs[1].v.len, "curl/8", "value trimmed of OWS");
	ok(h1_analyze(&req, &in, 1000, &err) == 0, "analyzes");
	is_mem(in.xhx.ptr, in.xhx.len, "t=5", "X-Hxterm found");
	for (size_t i = 0; i < strlen(get); i++)
		all &= parse_len(get, i) == HX_AGAIN;
	ok(all, "every proper prefix is partial");
	is_int(parse("GET / HTTP/1.0\n\n"), 16, "bare LF line ends are accepted");
	is_int(req.minor, 0, "HTTP/1.0");
	is_int(parse("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"), 31, "leading empty lines skipped");
	is_int(req.skipped, 4, "and counted");
	is_int(parse("GET / HTTP/1.2\r\nHost: a\r\n\r\n"), 27, "HTTP/1.2 is read as 1.1");
	is_int(req.minor, 1, "minor 1");
	is_int(status_of("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
			 "Content-Length: 5\r\n\r\n"), 0, "repeated equal Content-Length");
	is_int(status_of("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n"), 0, "OPTIONS *");
	is_int(status_of("GET http://a/?s=1 HTTP/1.1\r\nHost: a\r\n\r\n"), 0, "absolute form");
	is_int(status_of("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n"), 0,
	       "chunked, case-insensitive");
}

static void malformed(void)
{
	char big[9000];

	is_int(status_of("GET / HTTP/1.1\r\n\r\n"), 400, "1.1 without Host");
	is_int(status_of("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"), 400, "two Hosts");
	is_int(status_of("GET /  HTTP/1.1\r\nHost: a\r\n\r\n"), 400, "two spaces");
	is_int(status_of("GET / HTTP/1.1 \r\nHost: a\r\n\r\n"), 400, "trailing space");
	is_int(status_of("G(T / HTTP/1.1\r\nHost: a\r\n\r\n"), 400, "bad method char");
	is_int(status_of("GET /\x01 HTTP/1.1\r\nHost: a\r\n\r\n"), 400, "control char in target");
	is_int(status_of("GET foo HTTP/1.1\r\nHost: a\r\n\r\n"), 400, "target not a path");
	is_int(status_of("GET / HTTQ/1.1\r\nHost: a\r\n\r\n"), 400, "bad protocol name");
	is_int(status_of("GET / HTTP/2.0\r\nHost: a\r\n\r\n"), 505, "HTTP/2.0 is 505");
	is_int(status_of("GET / HTTP/3.0\r\nHost: a\r\n\r\n"), 505, "HTTP/3.0 is 505");
	is_int(status_of("GET / HTTP/1.1\r\nHost : a\r\n\r\n"), 400, "space before colon");
	is_int(status_of("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n"), 400, "obs-fold");
	is_int(status_of("GET / HTTP/1.1\r\nHost: a\x01\r\n\r\n"), 400, "control char in value");
	is_int(status_of("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n"), 400, "bare CR in value");
	/* a CR anywhere in a line is named as such, wherever it falls */
	static const char *const cr[] = {
		"GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", "GET / HTTP/1.1\r\nHo\rst: a\r\n\r\n",
		"GET / HTTP/1.1\r\nHost:\r a\r\n\r\n", "GET /\r HTTP/1.1\r\nHost: a\r\n\r\n",
		"G\rET / HTTP/1.1\r\nHost: a\r\n\r\n", "GET / HTTP/1.1\r\r\nHost: a\r\n\r\n",
	};
	for (size_t i = 0; i < sizeof(cr) / sizeof(cr[0]); i++)
		ok(parse(cr[i]) < 0 && err.status == 400 && strstr(err.why, "bare CR"), "bare CR named (%zu): %s",
		   i, err.why ? err.why : "-");
	is_int(status_of("GET / HTTP/1.1\r\nNoColon\r\n\r\n"), 400, "header without colon");
	is_int(status_of("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
			 "Transfer-Encoding: chunked\r\n\r\n"), 400, "CL and TE: smuggling refused");
	is_int(status_of("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
			 "Content-Length: 6\r\n\r\n"), 400, "conflicting Content-Length");
	is_int(status_of("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\n"), 400,
	       "Content-Length list");
	is_int(status_of("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n"), 400,
	       "signed Content-Length");
	is_int(status_of("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n"),
	       400, "Content-Length overflow");
	is_int(status_of("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1001\r\n\r\n"), 413,
	       "body above the limit is 413");
	is_int(status_of("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"),
	       501, "gzip coding is 501");
	is_int(status_of("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n"),
	       501, "identity is 501");
	is_int(status_of("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n"
			 "Transfer-Encoding: chunked\r\n\r\n"), 501, "chunked twice is 501");
	is_int(status_of("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"), 400,
	       "TE in HTTP/1.0");
	is_int(status_of("GET / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n"), 417,
	       "unknown Expect is 417");
	is_int(status_of("CONNECT a:443 HTTP/1.1\r\nHost: a\r\n\r\n"), 400,
	       "CONNECT authority form is not a path");
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /", 5);
	big[sizeof(big) - 1] = 0;
	is_int(parse(big), -1, "a request line beyond max-uri without LF fails early");
	is_int(err.status, 414, "as 414");
	{
		char many[4000] = "GET / HTTP/1.1\r\n";

		for (int i = 0; i < 101; i++)
			strcat(many, "A: b\r\n");
		strcat(many, "\r\n");
		is_int(status_of(many), 431, "too many headers is 431");
	}
}

/* WHY every offset: header values are checked eight bytes at a time, and a
 * control byte must be caught in any lane, a tab and obs-text let through */
static void control_bytes(void)
{
	int caught = 0, passed = 0, tabs = 0;

	for (int k = 0; k < 41; k++) {
		for (int c = 0; c < 256; c++) {
			char head[160], val[42];
			int bad = (c < ' ' && c != '\t') || c == 0x7f;

			if (c == '\r' || c == '\n' || c == 0)
				continue; /* WHY: those end the line (or the string), tested above */
			memset(val, 'v', 41);
			val[41] = 0;
			val[k] = (char)c;
			if (k == 0 && (c == ' ' || c == '\t'))
				continue; /* WHY: leading whitespace is trimmed, not checked */
			snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: x\r\nX-Long: %s\r\n\r\n", val);
			if (bad)
				caught += parse_len(head, strlen(head)) < 0 && err.status == 400;
			else
				passed += parse_len(head, strlen(head)) > 0;
			tabs += c == '\t' && parse_len(head, strlen(head)) > 0;
		}
	}
	is_int(caught, 41 * 29, "a control byte at any of 41 offsets of a value is a 400 (%d)", caught);
	is_int(passed, 41 * 224 - 2, "any other byte (tab, obs-text) at any offset passes (%d)", passed);
	is_int(tabs, 40, "a tab inside a value passes at every offset but the first (%d)", tabs);
	/* WHY each length from 8: a value's last eight bytes are tested as one
	 * word that overlaps the words before it */
	caught = 0;
	for (int len = 8; len < 25; len++)
		for (int k = 0; k < len; k++) {
			char head[160], val[32];

			memset(val, 'v', (size_t)len);
			val[len] = 0;
			val[k] = 0x7f;
			snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: x\r\nX-Long: %s\r\n\r\n", val);
			caught += parse_len(head, strlen(head)) < 0 && err.status == 400;
		}
	is_int(caught, 17 * (8 + 24) / 2, "a DEL at any offset of a value of 8 to 24 bytes is a 400 (%d)", caught);
}

/* WHY every length and offset: the target's end is looked for eight bytes at
 * a time, the first stop byte in any lane must end it, raw UTF-8 must not */
static void target_bytes(void)
{
	int lens = 1, caught = 0, passed = 0;

	for (int len = 1; len < 30; len++) {
		char head[128], t[32];

		memset(t, 'a', (size_t)len);
		t[0] = '/';
		t[len] = 0;
		snprintf(head, sizeof(head), "GET %s HTTP/1.1\r\nHost: a\r\n\r\n", t);
		lens &= parse(head) > 0 && req.target.len == (size_t)len;
		for (int k = 1; k < len; k++) {
			t[k] = 0x7f;
			snprintf(head, sizeof(head), "GET %s HTTP/1.1\r\nHost: a\r\n\r\n", t);
			caught += parse(head) < 0 && err.status == 400;
			t[k] = (char)0xc3;
			snprintf(head, sizeof(head), "GET %s HTTP/1.1\r\nHost: a\r\n\r\n", t);
			passed += parse(head) > 0 && req.target.len == (size_t)len;
			t[k] = 'a';
		}
	}
	ok(lens, "a target of 1 to 29 bytes ends at its space");
	is_int(caught, 29 * 28 / 2, "a DEL at any offset of a target is a 400 (%d)", caught);
	is_int(passed, 29 * 28 / 2, "a byte >= 0x80 at any offset of a target passes (%d)", passed);
}

/* WHY every length to 40 and every offset: a name is read sixteen bytes at a
 * time while letters, digits and '-' last, then by the token table; any
 * other byte in any lane must end it there, and a token byte must not */
static void name_bytes(void)
{
	int passed = 0, caught = 0, lens = 1, want_pass = 0, want_caught = 0;

	for (int len = 1; len <= 40; len++) {
		for (int k = 0; k < len; k++) {
			for (int c = 1; c < 256; c++) {
				char head[160], name[48];
				int tok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
					  (c < 128 && strchr("!#$%&'*+-.^_`|~", c));

				if (c == '\r' || c == '\n' || c == ':')
					continue; /* WHY: those end the line or the name, tested apart */
				memset(name, 'n', (size_t)len);
				name[len] = 0;
				name[k] = (char)c;
				snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: x\r\n%s: v\r\n\r\n", name);
				if (tok) {
					want_pass++;
					passed += parse_len(head, strlen(head)) > 0 && req.nhdrs == 2 &&
						  req.hdrs[1].n.len == (size_t)len;
				} else {
					want_caught++;
					caught += parse_len(head, strlen(head)) < 0 && err.status == 400;
				}
			}
		}
		lens &= want_pass == passed;
	}
	ok(lens, "a name of 1 to 40 bytes ends at its colon, whatever token byte is where");
	is_int(passed, want_pass, "a token byte at any offset of a name passes (%d)", passed);
	is_int(caught, want_caught, "any other byte at any offset of a name is a 400 (%d)", caught);
}

/* field names are matched whatever their case, and only those names */
static void name_case(void)
{
	struct h1_info in;

	is_int(status_of("GET / HTTP/1.1\r\nhost: a\r\nHOST: b\r\n\r\n"), 400, "host and HOST are two Hosts");
	parse("POST / HTTP/1.1\r\nHoSt: a\r\nCONTENT-LENGTH: 7\r\n\r\n");
	ok(h1_analyze(&req, &in, 1000, &err) == 0 && in.clen == 7, "CONTENT-LENGTH read as Content-Length");
	parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Lengti: 7\r\n\r\n");
	ok(h1_analyze(&req, &in, 1000, &err) == 0 && in.clen == 0, "a name one letter off its last word is another");
	parse("POST / HTTP/1.1\r\nHost: a\r\nContenu-Length: 7\r\n\r\n");
	ok(h1_analyze(&req, &in, 1000, &err) == 0 && in.clen == 0, "a name one letter off its first word is another");
	is_int(status_of("GET / HTTP/1.1\r\nHost: a\r\nEXPECT: 100-CONTINUE\r\n\r\n"), 0, "EXPECT: 100-CONTINUE");
	is_int(status_of("GET / HTTP/1.1\r\nHost: a\r\nExpect: 100-continuf\r\n\r\n"), 417, "another expectation is a 417");
}

/* the conditional fields: set only when one came, lists over lines, a
 * single-valued field sent twice left empty */
static void conditional(void)
{
	struct h1_info in;

	parse("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
	h1_analyze(&req, &in, 1000, &err);
	ok(!(in.flags & (H1I_COND | H1I_LISTS)), "a plain request: no conditional field");
	parse("DELETE / HTTP/1.1\r\nHost: a\r\nIf-None-Match: \"a\"\r\nif-none-match: \"b\"\r\n"
	      "If-Modified-Since: x\r\nIf-Modified-Since: y\r\nIf-Unmodified-Since: z\r\nRange: bytes=0-1\r\n\r\n");
	ok(h1_analyze(&req, &in, 1000, &err) == 0 && (in.flags & H1I_COND) && (in.flags & H1I_LISTS),
	   "If-None-Match in two lines: a list of several lines");
	is_mem(in.c.inm.ptr, in.c.inm.len, "\"a\"", "... its first line kept");
	ok(in.c.ims.ptr && !in.c.ims.len, "If-Modified-Since twice: present, empty (no date)");
	is_mem(in.c.ius.ptr, in.c.ius.len, "z", "If-Unmodified-Since");
	is_mem(in.c.range.ptr, in.c.range.len, "bytes=0-1", "Range");
	ok(!in.c.im.ptr && !in.c.if_range.ptr, "If-Match, If-Range: absent");
	parse("PUT / HTTP/1.1\r\nHost: a\r\nIf-Match: \"a\"\r\nIf-Range:\r\n\r\n");
	ok(h1_analyze(&req, &in, 1000, &err) == 0 && !(in.flags & H1I_LISTS) && in.c.if_range.ptr && !in.c.if_range.len,
	   "If-Match in one line: no list; an empty If-Range: present, empty");
}

static int resp_of(const char *s, struct h1_resp *r)
{
	return h1_parse_resp(guarded(s, strlen(s)), strlen(s), r, &err);
}

/* hxload's side: a response head as hxterm sends it, partial at every
 * byte, its fields read whole wherever the 16- and 8-byte scans stop */
static void response(void)
{
	static const char head[] =
		"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nContent-Type: text/plain\r\n"
		"X-req: size=85, time=0.000 ms\r\nX-rsp: id=vm, code=200, cache=1, size=100, time=0 ms (0.049 real) \r\n"
		"Server-Timing: wait;dur=0,\tgen;dur=0.049\r\n\r\nbody";
	static struct h1_resp r;
	size_t hlen = strlen(head) - 4;
	int all = 1, lens = 0, bad = 0;

	is_int(h1_parse_resp(guarded(head, strlen(head)), strlen(head), &r, &err), (int)hlen,
	       "a response head is consumed whole, not its body");
	is_int(r.status, 200, "status 200");
	is_int(r.nhdrs, 5, "five fields");
	is_mem(r.hdrs[3].v.ptr, r.hdrs[3].v.len, "id=vm, code=200, cache=1, size=100, time=0 ms (0.049 real)",
	       "X-rsp's value whole, its trailing space trimmed");
	is_mem(r.hdrs[4].n.ptr, r.hdrs[4].n.len, "Server-Timing", "a name of 13 bytes");
	is_mem(r.hdrs[4].v.ptr, r.hdrs[4].v.len, "wait;dur=0,\tgen;dur=0.049", "a tab inside a value kept");
	for (size_t i = 0; i < hlen; i++)
		all &= h1_parse_resp(guarded(head, i), i, &r, &err) == HX_AGAIN;
	ok(all, "every proper prefix is partial");
	/* a value of every length from 0 to 40 ends at its CR, and a control
	 * byte at any of its offsets is refused */
	for (int len = 0; len <= 40; len++) {
		char h[128], v[48];

		memset(v, 'v', (size_t)len);
		v[len] = 0;
		snprintf(h, sizeof(h), "HTTP/1.1 204 No Content\r\nX: %s\r\n\r\n", v);
		lens += h1_parse_resp(guarded(h, strlen(h)), strlen(h), &r, &err) == (int)strlen(h) &&
			r.hdrs[0].v.len == (size_t)len;
		for (int k = 0; k < len; k++) {
			v[k] = k % 2 ? 0x7f : 0x01;
			snprintf(h, sizeof(h), "HTTP/1.1 204 No Content\r\nX: %s\r\n\r\n", v);
			bad += h1_parse_resp(guarded(h, strlen(h)), strlen(h), &r, &err) == -1 &&
			       strstr(err.why, "control character");
			v[k] = 'v';
		}
	}
	is_int(lens, 41, "values of 0 to 40 bytes read to their CR (%d)", lens);
	is_int(bad, 41 * 40 / 2, "a control byte at any offset refused (%d)", bad);
	is_int(resp_of("HTTP/1.1 200 OK\nA: b\n\n", &r), 22, "bare LF line ends");
	is_int(resp_of("HTTP/1.1 200 OK\r\nA: b\rc\r\n\r\n", &r), -1, "a bare CR in a value");
	ok(strstr(err.why, "bare CR") != NULL, "... named: %s", err.why);
	is_int(resp_of("HTTP/1.1 200 OK\r\nA b: c\r\n\r\n", &r), -1, "a space in a name");
	is_int(resp_of("HTTP/1.1 200 OK\r\nA: b\r\n\r", &r), HX_AGAIN, "a head's last CR alone: partial");
	{
		static char many[2000];

		strcpy(many, "HTTP/1.1 200 OK\r\n");
		for (int i = 0; i < H1_MAX_HDRS + 1; i++)
			strcat(many, "A: b\r\n");
		strcat(many, "\r\n");
		is_int(resp_of(many, &r), -1, "129 fields refused");
		is_int(err.status, 502, "... as 502");
	}
}

int main(void)
{
	valid();
	conditional();
	malformed();
	control_bytes();
	response();
	name_case();
	name_bytes();
	target_bytes();
	return done_testing();
}

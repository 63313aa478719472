/* Unit tests of the figures server's request-head reader (net/hsrv): the forms it accepts, each refusal's code, every prefix of a good head waited for. */
#include <stdlib.h>

#include "hsrv.h"
#include "tap.h"

/* <text> read whole (NUL-terminated as the server keeps it) into <l> */
static struct hsrv_line *parse(const char *text, size_t n, struct hsrv_line *l)
{
	static char buf[HSRV_HEAD_MAX];

	memcpy(buf, text, n);
	buf[n] = 0;
	hsrv_parse(buf, n, l);
	return l;
}

/* a good head: 200 with <path> and <query>, and each of its prefixes waited for */
static void accepts(const char *head, const char *path, const char *query, int is_head)
{
	struct hsrv_line l, m;
	size_t k;

	parse(head, strlen(head), &l);
	is_int(l.status, 200, "%.*s: 200", (int)strcspn(head, "\r"), head);
	is_str(l.path, path, "... the path");
	is_str(l.query, query, "... the query");
	is_int(l.head, is_head, "... HEAD or not");
	for (k = 0; k < strlen(head) && !parse(head, k, &m)->status; k++)
		;
	is_int(k, strlen(head), "... every shorter prefix waits for more");
}

static void refuses(const char *head, size_t n, int status, const char *what)
{
	struct hsrv_line l;

	parse(head, n, &l);

	is_int(l.status, status, "%s: %d", what, status);
	ok(l.why && l.why[strlen(l.why) - 1] == '\n' && !strchr(l.why, '\r'), "... with a one-line reason");
}

int main(void)
{
	static char big[HSRV_HEAD_MAX];

	accepts("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", "/metrics", "", 0);
	accepts("HEAD /history.json?since=12.5 HTTP/1.0\r\n\r\n", "/history.json", "since=12.5", 1);
	accepts("GET http://stats.example:9100/metrics HTTP/1.1\r\n\r\n", "/metrics", "", 0);
	accepts("GET HTTPS://x/a?b=c HTTP/1.1\r\n\r\n", "/a", "b=c", 0);
	accepts("GET http://x HTTP/1.1\r\n\r\n", "/", "", 0);
	accepts("GET http://x?since=3 HTTP/1.1\r\n\r\n", "/", "since=3", 0);

	refuses("get /metrics HTTP/1.1\r\n\r\n", 25, 405, "a lowercase get (a token, not our method)");
	refuses("POST /metrics HTTP/1.1\r\n\r\n", 26, 405, "POST");
	refuses("M-SEARCH * HTTP/1.1\r\n\r\n", 24, 405, "another token");
	refuses("\x16\x03\x01\x02\x00", 5, 400, "a TLS hello, at once");
	refuses("\0\1\2", 3, 400, "a NUL first, at once");
	refuses("G(T /", 5, 400, "a method that is no token, at once");
	refuses("ABCDEFGHIJKLMNOPQ", 17, 400, "a first word over 16 bytes, at once");
	refuses(" GET /", 6, 400, "a space first, at once");
	refuses("GET /metrics\0 HTTP/1.1\r\n", 24, 400, "a NUL in the request line");
	refuses("GET * HTTP/1.1\r\n\r\n", 18, 400, "asterisk-form for GET");
	refuses("GET metrics HTTP/1.1\r\n\r\n", 24, 400, "a target that is no form");
	refuses("GET http:///metrics HTTP/1.1\r\n\r\n", 32, 400, "absolute-form without a host");
	refuses("GET /metrics\r\n\r\n", 16, 400, "no version");
	refuses("GET /metrics HTTP/2.0\r\n\r\n", 25, 400, "a version not 1.x");
	refuses("GET /metrics HTTP/1.1 x\r\n\r\n", 27, 400, "a word after the version");

	memset(big, 'm', sizeof(big));
	memcpy(big, "GET /", 5);
	memcpy(big + 5 + 300, " HTTP/1.1\r\n\r\n", 13);
	refuses(big, 5 + 300 + 13, 414, "a 301-byte target");
	memset(big, 'm', sizeof(big));
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	refuses(big, HSRV_HEAD_MAX - 1, 431, "a full buffer without the end of the head");
	is_int(parse(big, HSRV_HEAD_MAX - 2, &(struct hsrv_line){ 0 })->status, 0, "one byte less: waits");
	return done_testing();
}

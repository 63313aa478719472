/* The figures server's request-head reader (hsrv_parse()): pure, allocates nothing, fuzzed (tests/fuzz/hsrv.c). */
#include <string.h>
#include <strings.h>

#include "hsrv.h"

#define HSRV_METHOD_MAX 16   /* a longer first word is no request of ours: 400 at once */

#define BAD_LINE "bad request line (GET /metrics HTTP/1.1)\n"

/* RFC 9110 5.6.2: a token's characters */
static int tchar(unsigned char c)
{
	return c > ' ' && c < 127 && !strchr("\"(),/:;<=>?@[\\]{}", c);
}

static void refuse(struct hsrv_line *o, int status, const char *why)
{
	o->status = status;
	o->why = why;
}

/* where the path of the absolute-form target <p> (<len> bytes) starts: after
 * "http://authority" (NULL: not that form, or no authority) */
static const char *absolute_path(const char *p, size_t len)
{
	size_t s = len > 7 && !strncasecmp(p, "http://", 7) ? 7 : len > 8 && !strncasecmp(p, "https://", 8) ? 8 : 0;
	size_t a = s;

	while (a < len && p[a] != '/' && p[a] != '?')
		a++;
	return s && a > s ? p + a : NULL;
}

/* the target and version after the method, <p>: path and query, or a refusal */
static void target(const char *p, struct hsrv_line *o)
{
	size_t len = strcspn(p, " \r\n"), plen, slash;
	const char *v = p + len, *t = *p == '/' ? p : absolute_path(p, len);
	char *q;

	if (!t || strncmp(v, " HTTP/1.", 8) || v[8] < '0' || v[8] > '9' || strncmp(v + 9, "\r\n", 2))
		return refuse(o, 400, BAD_LINE);
	/* WHY a slash: "http://x" and "http://x?q" mean the path "/" */
	plen = (size_t)(v - t);
	slash = *t != '/';
	if (plen + slash >= sizeof(o->path))
		return refuse(o, 414, "request target too long (255 bytes at most)\n");
	o->path[0] = '/';
	memcpy(o->path + slash, t, plen);
	o->path[plen + slash] = 0;
	q = o->path + strcspn(o->path, "?");
	if (*q)
		*q++ = 0;
	o->query = q;
	o->status = 200;
}

void hsrv_parse(const char *req, size_t n, struct hsrv_line *o)
{
	size_t m = 0;

	*o = (struct hsrv_line){ .query = o->path };
	while (m < n && m <= HSRV_METHOD_MAX && tchar((unsigned char)req[m]))
		m++;
	/* WHY at once: a method is a token then a space; anything else (a
	 * NUL, a TLS hello, a binary probe) will never become a request */
	if (m > HSRV_METHOD_MAX || (m < n && (req[m] != ' ' || !m)))
		return refuse(o, 400, BAD_LINE);
	if (!strstr(req, "\r\n\r\n")) {
		/* WHY the strlen: a NUL inside the head ends what strstr sees */
		if (strlen(req) != n)
			return refuse(o, 400, "bad request: a NUL byte in the head\n");
		if (n >= HSRV_HEAD_MAX - 1)
			refuse(o, 431, "request head too large (8 KiB at most)\n");
		return;
	}
	/* WHY 405 for "get": methods are case-sensitive (RFC 9110 9.1), so
	 * it is a valid token naming a method this server does not allow */
	o->head = m == 4 && !memcmp(req, "HEAD", 4);
	if (!o->head && !(m == 3 && !memcmp(req, "GET", 3)))
		return refuse(o, 405, "GET or HEAD only\n");
	target(req + m + 1, o);
}

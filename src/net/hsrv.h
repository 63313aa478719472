/* A small HTTP/1.1 server for figures (hxterm's --stats, hxload's --metrics): a thread and loop of its own, many clients at once, GET and HEAD, a deadline for the head, one answer then close. */
#ifndef HX_HSRV_H
#define HX_HSRV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "loop.h"
#include "nofd.h"

#define HSRV_MAX      64        /* clients at once: past it, the oldest makes room */
#define HSRV_HEAD_MAX 8192      /* a request head larger is answered 431 */
#define HSRV_PATH_MAX 256       /* a longer target is answered 414 */

/* what a request head says (hsrv_parse()) */
struct hsrv_line {
	int status;              /* 0: wait for more; 200: a GET or HEAD of path?query; else the refusal's code */
	const char *why;         /* the refusal's one-line reason, "\n" ended */
	int head;                /* HEAD: the answer without its body */
	char path[HSRV_PATH_MAX];
	const char *query;       /* in path's buffer, after its '?' ("" when none) */
};

/* Reads the request head in <req> (<n> bytes, NUL-terminated at n, at most
 * HSRV_HEAD_MAX - 1): the request line's method (a token, case-sensitive:
 * GET or HEAD, any other 405), its target in origin-form (/p?q) or
 * absolute-form (http://host/p?q, RFC 9112 3.2.2: the path taken, the
 * authority left), its version (HTTP/1.x). Refuses what will never be a
 * request at once (400), and a full buffer without the end of the head
 * (431). Allocates nothing. */
void hsrv_parse(const char *req, size_t n, struct hsrv_line *out);

struct hsrv_req;         /* one client, its head read, waiting for its answer */

/* answers <r> once: hsrv_reply() or hsrv_text(), from the server's thread */
typedef void (*hsrv_serve_fn)(struct hsrv_req *r, const char *path, const char *query);

/* the whole answer of <r>: <status> ("200 OK"), <body> of <len> bytes
 * (<owned>: freed once sent, or NULL), <extra> header lines ("" or
 * "Name: value\r\n..."); no body for a HEAD */
void hsrv_reply(struct hsrv_req *r, const char *status, const char *type, const char *body, size_t len,
		char *owned, const char *extra);
void hsrv_text(struct hsrv_req *r, const char *status, const char *text, const char *extra);

struct hsrv {
	struct loop loop;        /* the thread's: its owner may arm timers on it before hsrv_run() */
	hsrv_serve_fn serve;
	int lfd;
	int stop_pipe[2];
	struct nofd reserve;     /* out of descriptors, a scrape is still answered */
	pthread_t th;
	struct ev lev, stop_ev;
	struct timer resume;
	struct hsrv_req *conns[HSRV_MAX];
	int nconns, running, started;
};

/* Takes the listening socket <lfd> (closed by hsrv_free()) and makes the
 * loop that will serve it with <serve>: 0, or -1 (all undone, <lfd> closed) */
int hsrv_init(struct hsrv *s, int lfd, hsrv_serve_fn serve);
/* starts the thread, named <name>: 0, or -1 */
int hsrv_run(struct hsrv *s, const char *name);
/* ends the thread when it runs, closes every client and the listener */
void hsrv_free(struct hsrv *s);

#endif

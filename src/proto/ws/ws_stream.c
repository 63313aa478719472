/* WebSocket over an HTTP/2 stream: DATA payload in, frames out through a bounded buffer, the session run on each and on its timer. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ws_stream.h"

/* ---------- the DATA payload not read yet ---------- */

/* WHY pages of its own, reserved whole and given back with the stream: a
 * flood fills it to WSS_IN_MAX, and from the malloc arena (main.c's top pad
 * and trim threshold) those 4 MiB stayed resident after the stream went */
static int in_map(struct wss *s)
{
	void *p = mmap(NULL, WSS_IN_MAX, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	s->in = p;
	return 0;
}

/* all read: the pages a burst touched go back, the first ones stay */
static void in_empty(struct wss *s)
{
	if (s->in_high > WSS_IN_KEEP)
		madvise(s->in + WSS_IN_KEEP, s->in_high - WSS_IN_KEEP, MADV_DONTNEED);
	s->in_off = s->in_len = s->in_high = 0;
}

/* room for <len> more: what is unread moves to the front. 0, or -1 when
 * more than WSS_IN_MAX would be unread */
static int in_room(struct wss *s, size_t len)
{
	size_t unread = s->in_len - s->in_off;

	if (unread + len > WSS_IN_MAX)
		return -1;
	if (s->in_len + len > WSS_IN_MAX) {
		memmove(s->in, s->in + s->in_off, unread);
		s->in_off = 0;
		s->in_len = unread;
	}
	s->in_high = MAX(s->in_high, s->in_len + len);
	return 0;
}

/* ---------- the session's transport ---------- */

static long s_recv(void *u, uint8_t *buf, size_t len)
{
	struct wss *s = u;
	size_t n = MIN(len, s->in_len - s->in_off);

	if (!n)
		return s->in_eof ? 0 : HX_AGAIN;
	memcpy(buf, s->in + s->in_off, n);
	s->in_off += n;
	if (s->in_off == s->in_len)
		in_empty(s);
	return (long)n;
}

static long s_send(void *u, const uint8_t *buf, size_t len)
{
	struct wss *s = u;
	size_t n = MIN(len, WSS_OUT_MAX - s->out_len);

	if (!n)
		return HX_AGAIN;
	memcpy(s->out + s->out_len, buf, n);
	s->out_len += n;
	return (long)n;
}

static void s_wake_at(void *u, uint64_t us)
{
	struct wss *s = u;

	/* WHY arm moves it: timer_arm re-queues a timer already queued */
	if (!s->tm.idx || us < s->tm.expire)
		loop_arm(s->loop, &s->tm, us);
}

static const struct ws_io s_io = { s_recv, s_send, s_wake_at };

static void s_run(struct wss *s)
{
	size_t had = s->out_len;

	if (s->st == WS_GOING)
		s->st = ws_run(&s->ws, s->loop->now_us);
	if (s->out_len != had || s->st != WS_GOING)
		s->kick(s->stream);
}

static void s_timer(struct loop *l, struct timer *t)
{
	(void)l;
	s_run(container_of(t, struct wss, tm));
}

struct wss *wss_new(const struct exch *x, struct rng *r, struct loop *l, void (*kick)(void *), void *stream)
{
	struct wss *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->tm = (struct timer){ 0, 0, s_timer };
	s->loop = l;
	s->kick = kick;
	s->stream = stream;
	s->st = WS_GOING;
	/* WHY the timer, not a run now (loop_arm): ws=gen sends before the
	 * client says anything, once the stream has its session and its 200 */
	if (!(s->out = malloc(WSS_OUT_MAX)) || in_map(s) < 0 || ws_init(&s->ws, x, &s_io, s, r) < 0 ||
	    loop_arm(l, &s->tm, l->now_us) < 0) {
		wss_free(s);
		return NULL;
	}
	return s;
}

void wss_free(struct wss *s)
{
	if (!s)
		return;
	loop_cancel(s->loop, &s->tm);
	ws_free(&s->ws);
	if (s->in)
		munmap(s->in, WSS_IN_MAX);
	free(s->out);
	free(s);
}

void wss_in(struct wss *s, const uint8_t *data, size_t len, int eof)
{
	/* WHY: the session stops reading while its output waits (ws_run), and
	 * the stream's window is credited as DATA arrives: a peer that sends
	 * and never reads is cut off here, not buffered without bound */
	if (in_room(s, len) < 0) {
		s->st = WS_FAILED;
		s->flooded = 1;
		s->kick(s->stream);
		return;
	}
	if (len)
		memcpy(s->in + s->in_len, data, len);
	s->in_len += len;
	s->in_eof |= (uint8_t)eof;
	s_run(s);
}

size_t wss_out(struct wss *s, uint8_t *buf, size_t len, int *eof)
{
	size_t n = MIN(len, s->out_len - s->out_off);
	int full = s->out_len == WSS_OUT_MAX;

	memcpy(buf, s->out + s->out_off, n);
	s->out_off += n;
	if (s->out_off == s->out_len) {
		s->out_off = s->out_len = 0;
		if (full)
			s_run(s); /* WHY: the session stopped on a full buffer; it goes on */
		else if (s->st != WS_GOING && s->st != WS_DONE)
			s->kick(s->stream); /* WHY: a fault or an error waited for these bytes */
	}
	*eof = s->st == WS_DONE && s->out_len == s->out_off;
	return n;
}

size_t wss_pending(const struct wss *s)
{
	return s->out_len - s->out_off;
}

enum ws_state wss_state(const struct wss *s)
{
	return s->st;
}

int wss_flooded(const struct wss *s)
{
	return s->flooded;
}

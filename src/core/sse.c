/* sse=1, the generator's server-sent events: each one formatted in its own slot of the body as it goes, with its id and its send time; ttft=, sizes drawn per event, done=1's last [DONE]. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "body.h"
#include "common.h"
#include "fmt.h"
#include "num.h"
#include "resp.h"
#include "sse.h"

/* an event: "id: <10 digits>\n" [ "retry: <ms>\n" ] "data: <16 digits> <s bytes>\n" "\n" */
#define SSE_ID_W   10
#define SSE_TS_W   16
#define SSE_FIXED  (4 + SSE_ID_W + 1 + 6 + SSE_TS_W + 1 + 1 + 1)

static unsigned digits(uint64_t v)
{
	unsigned n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* done=1: what follows the last event, in its piece */
#define SSE_DONE     "data: [DONE]\n\n"
#define SSE_DONE_LEN (sizeof(SSE_DONE) - 1)

static uint32_t event_len(const struct plan *p, uint64_t data)
{
	return (uint32_t)(SSE_FIXED + data + ((p->flags & PF_RETRY) ? 7 + digits(p->retry_ms) + 1 : 0));
}

/* the data bytes of event <id>: s= in a random form drawn for each event
 * (the same for the same stream and id, so the plan sums them first), else
 * the plan's */
static uint64_t event_data(const struct ex_sse *s, const struct plan *p, uint64_t id)
{
	const char *spec = plan_spec_s(p), *err;
	struct rng r;
	uint64_t d;

	if (!spec[0])
		return s->data;
	rng_seed(&r, (s->seed ^ 0x5e5e5e5e5e5e5e5eULL) + id);
	return num_draw(spec, strlen(spec), &r, &d, &err) >= 0 ? d : s->data;
}

/* the bytes of events <s->id> to <s->last> (and done=1's), above
 * SSE_MAX_BYTES once past it */
static uint64_t events_bytes(const struct ex_sse *s, const struct plan *p)
{
	uint64_t sum = (p->flags & PF_SSEDONE) && s->id <= s->last ? SSE_DONE_LEN : 0;

	if (!plan_spec_s(p)[0]) /* WHY: one size, no draws (the caller bounded the count) */
		return sum + (s->id <= s->last ? (s->last - s->id + 1) * event_len(p, s->data) : 0);
	for (uint64_t id = s->id; id <= s->last && sum <= SSE_MAX_BYTES; id++)
		sum += event_len(p, MIN(event_data(s, p, id), (uint64_t)SSE_MAX_BYTES));
	return sum;
}

/* Last-Event-ID: the last event the client had, 0: none. -1 when it is not
 * one hxterm sent */
static int64_t resume_from(const struct hreq *rq)
{
	struct ist v = resp_field(rq->echo, "last-event-id", 13);
	uint64_t n;
	const char *err;

	if (!v.len)
		return 0;
	if (v.len > SSE_ID_W || num_plain(v.ptr, v.len, &n, &err) < 0 || v.ptr[v.len - 1] < '0' ||
	    v.ptr[v.len - 1] > '9')
		return -1;
	return (int64_t)n;
}

/* the fixed width decimal of <v> at <b> */
static void put_dec(char *b, unsigned w, uint64_t v)
{
	for (unsigned i = w; i-- > 0; v /= 10)
		b[i] = (char)('0' + v % 10);
}

const char *sse_plan(struct ex_sse *s, struct plan *p, const struct hreq *rq, const struct plan_limits *lim,
		     uint64_t *bytes)
{
	int64_t from = resume_from(rq);
	uint64_t events;

	if (p->flags & (PF_ECHO | PF_ECHOBODY) || p->ws)
		return "sse=1 sends events: not with E= or ws=";
	if (from < 0)
		return "Last-Event-ID: expected the decimal id of an event hxterm sent";
	if (p->size > SSE_MAX_BYTES)
		return "sse=1: n= events of s= bytes (and 40 more each) come to above 16 MiB";
	s->len = event_len(p, 0);
	s->data = (uint32_t)MIN(p->size, (uint64_t)SSE_MAX_BYTES);
	s->id = (uint64_t)from + 1;
	s->last = p->count;
	s->off = 0;
	events = p->count > (uint64_t)from ? p->count - (uint64_t)from : 0;
	if (p->count >= 10000000000ULL || events > SSE_MAX_BYTES / s->len ||
	    (*bytes = events_bytes(s, p)) > SSE_MAX_BYTES)
		return "sse=1: n= events of s= bytes (and 40 more each) come to above 16 MiB";
	s->len = event_len(p, p->size);
	if (*bytes > lim->max_size)
		return "sse=1: n= events of s= bytes (and 40 more each) come to above --max-size";
	/* WHY each event a piece with the drip after it: the pauses, their
	 * timer and every protocol's framing are the generator's already */
	p->flags |= PF_PIECE | PF_NOCACHE;
	p->piece = s->len;
	p->size = *bytes;
	if (!(p->flags & (PF_CHUNK | PF_NOLEN | PF_LIE))) {
		p->flags |= PF_CHUNK; /* WHY: HTTP/1.1 chunks, an event each; b=0 asks for close-delimited */
		p->chunk = SSE_CHUNK_EVENT;
	}
	if (!events)
		p->status = 204; /* WHY: every event was had; 204 tells an EventSource not to reconnect */
	return NULL;
}

uint64_t sse_event(struct ex_sse *s, const struct plan *p, char *slots, uint32_t n)
{
	uint64_t d, data;
	char *b = slots + s->off;
	struct timespec ts;
	struct rng r;
	const char *err;
	uint32_t len;

	if (s->id > s->last)
		return p->drip_ms;
	data = event_data(s, p, s->id);
	len = event_len(p, data);
	if (s->id == s->last && (p->flags & PF_SSEDONE))
		len += (uint32_t)SSE_DONE_LEN;
	if (s->off + len > n)
		return p->drip_ms;
	clock_gettime(CLOCK_REALTIME, &ts);
	memcpy(b, "id: ", 4);
	put_dec(b + 4, SSE_ID_W, s->id);
	b += 4 + SSE_ID_W;
	*b++ = '\n';
	if (p->flags & PF_RETRY) {
		b = fmt_lit(b, "retry: ");
		b = fmt_u64(b, p->retry_ms);
		*b++ = '\n';
	}
	memcpy(b, "data: ", 6);
	put_dec(b + 6, SSE_TS_W, (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
	b += 6 + SSE_TS_W;
	*b++ = ' ';
	body_copy(b, 0, data, 0);
	for (uint64_t i = 0; i < data; i++) /* WHY: a newline would end the data line */
		if (b[i] == '\n')
			b[i] = '.';
	b += data;
	*b++ = '\n';
	*b++ = '\n';
	if (s->id == s->last && (p->flags & PF_SSEDONE))
		memcpy(b, SSE_DONE, SSE_DONE_LEN);
	s->cur = len;
	s->off += len;
	s->id++;
	rng_seed(&r, s->seed + s->id);
	return p->ext && p->ext->spec_d[0] && num_draw(p->ext->spec_d, strlen(p->ext->spec_d), &r, &d, &err) >= 0 ? d :
											   p->drip_ms;
}

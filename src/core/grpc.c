/* A gRPC call answered from the query language: length-prefixed messages of one bytes field, grpc-status in trailers. */
#include <stdio.h>
#include <string.h>

#include "body.h"
#include "common.h"
#include "grpc.h"
#include "num.h"
#include "resp.h"

/* r= to a gRPC code: the HTTP statuses a gRPC gateway gives each code */
static const struct { uint16_t status; uint8_t code; } codes[] = {
	{ 200, 0 },  { 499, 1 },  { 400, 3 },  { 504, 4 },  { 404, 5 },  { 409, 6 },  { 403, 7 },
	{ 429, 8 },  { 412, 9 },  { 416, 11 }, { 501, 12 }, { 500, 13 }, { 503, 14 }, { 401, 16 },
};
static const char *const names[17] = {
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
	"PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
	"UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
};
static const char *const digits[17] = { "0", "1", "2", "3", "4", "5", "6", "7", "8",
					"9", "10", "11", "12", "13", "14", "15", "16" };

unsigned grpc_code(unsigned status)
{
	for (size_t i = 0; i < ARRAY_SIZE(codes); i++)
		if (codes[i].status == status)
			return codes[i].code;
	return 2; /* UNKNOWN */
}

/* grpc-timeout ("100m", "2S": digits and one of H M S m u n) in ms, 0: none */
static uint64_t deadline_ms(const struct hreq *rq)
{
	struct ist v = resp_field(rq->echo, "grpc-timeout", 12);
	uint64_t n = 0, us;

	if (v.len < 2 || v.len > 9)
		return 0;
	for (size_t i = 0; i + 1 < v.len; i++) {
		if (v.ptr[i] < '0' || v.ptr[i] > '9')
			return 0;
		n = n * 10 + (uint64_t)(v.ptr[i] - '0');
	}
	switch (v.ptr[v.len - 1]) {
	case 'H': us = n * 3600000000ULL; break;
	case 'M': us = n * 60000000ULL; break;
	case 'S': us = n * 1000000ULL; break;
	case 'm': us = n * 1000; break;
	case 'u': us = n; break;
	case 'n': us = n / 1000; break;
	default: return 0;
	}
	return MAX(us / 1000, 1);
}

/* the bytes of the varint <v> */
static unsigned varint_len(uint64_t v)
{
	unsigned n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* a trailer of the plan: <name> with <val> (which outlives the plan) */
static int trailer(struct plan *p, const char *name, const char *val, size_t vlen)
{
	if (p->ntrl >= PLAN_MAX_FIELDS)
		return -1;
	p->ext->trl[p->ntrl++] = (struct hfield){ .name = name, .lname = name, .val = val,
					     .nlen = (uint32_t)strlen(name), .vlen = (uint32_t)vlen };
	return 0;
}

/* one message's head into s->head: its prefix (uncompressed, the length),
 * then field 1's tag and length when it has data */
static void message_head(struct ex_sse *s)
{
	uint32_t len = s->len - 5;
	uint64_t v = s->data;
	unsigned char *b = s->head;
	size_t k = 5;

	b[0] = 0;
	b[1] = (unsigned char)(len >> 24), b[2] = (unsigned char)(len >> 16);
	b[3] = (unsigned char)(len >> 8), b[4] = (unsigned char)len;
	if (!len)
		return;
	b[k++] = 0x0a; /* field 1, length-delimited */
	for (; v >= 0x80; v >>= 7)
		b[k++] = (unsigned char)(v | 0x80);
	b[k] = (unsigned char)v;
}

const char *grpc_plan(struct ex_sse *s, struct plan *p, const struct hreq *rq, const struct plan_limits *lim,
		      uint64_t *bytes)
{
	uint32_t *msg = &s->len;
	unsigned code = grpc_code(p->status);
	uint64_t until = deadline_ms(rq), n = code ? 0 : p->count;
	struct plan_ext *e = plan_ext_need(p);
	char *m;
	int ml;

	if (!e)
		return "gRPC: out of memory for the trailers";
	m = e->dec + e->dec_used;
	if (p->flags & (PF_ECHO | PF_ECHOBODY | PF_SSE) || p->ws)
		return "a gRPC call is answered with messages: not with E=, sse= or ws=";
	if (p->size > SSE_MAX_BYTES)
		return "gRPC: s= above 16 MiB a message";
	/* WHY the call cut at its deadline: what a server that honours
	 * grpc-timeout does; the messages due before it go */
	if (until && p->wait_ms >= until) {
		p->wait_ms = until;
		n = 0;
		code = 4;
	} else if (until && n > 1 && p->drip_ms && (until - p->wait_ms - 1) / p->drip_ms + 1 < n) {
		n = (until - p->wait_ms - 1) / p->drip_ms + 1;
		code = 4;
	}
	s->data = (uint32_t)p->size;
	*msg = (uint32_t)(5 + (p->size ? 1 + varint_len(p->size) + p->size : 0));
	if (n > SSE_MAX_BYTES / *msg || n * *msg > lim->max_size)
		return "gRPC: n= messages of s= bytes come to above 16 MiB or --max-size";
	*bytes = n * *msg;
	message_head(s);
	p->status = 200;
	p->size = *bytes;
	/* WHY no Content-Length: gRPC servers send none, and with one of 0
	 * nginx's grpc_pass ended the stream before the trailers (grpcio 1.51
	 * then died of SIGILL) */
	p->flags = (p->flags & ~PF_LIE) | PF_NOCACHE | PF_NOLEN;
	if (n > 1 && p->drip_ms) {
		p->flags |= PF_PIECE;
		p->piece = *msg;
	}
	ml = snprintf(m, PLAN_DEC_SIZE - e->dec_used, "%s (hxterm%s)", names[code], code == 4 ? ": grpc-timeout" : "");
	if (ml < 0 || (size_t)ml >= PLAN_DEC_SIZE - e->dec_used || p->ntrl + 2 > PLAN_MAX_FIELDS)
		return "gRPC: no room for grpc-status and grpc-message after the T= trailers";
	e->dec_used += (uint32_t)ml;
	trailer(p, "grpc-status", digits[code], strlen(digits[code]));
	if (code)
		trailer(p, "grpc-message", m, (size_t)ml);
	return NULL;
}

size_t grpc_slice(const struct ex_sse *s, uint64_t off, size_t want, const char **ptr)
{
	uint64_t in = off % s->len, hl = s->len - s->data;

	if (in < hl) {
		*ptr = (const char *)s->head + in;
		return (size_t)MIN((uint64_t)want, hl - in);
	}
	return body_slice(in - hl, (size_t)MIN((uint64_t)want, s->len - in), 0, ptr);
}

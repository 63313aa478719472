/* The query keys of connection behaviours: maxreq= (the end after N requests), h2s=, h2w=, ping= (HTTP/2 changes mid-connection) and hint= (103 Early Hints). */
#include <string.h>

#include "common.h"
#include "plan.h"

#define HINT_DEFAULT "</hxterm.css>; rel=preload; as=style"

struct conn_key {
	const char *name;
	uint8_t bit;
	uint32_t lo, hi;
	const char *why;
};

static const struct conn_key conn_keys[] = {
	{ "maxreq", PC_MAXREQ, 1, 0xffffffffu, "expected maxreq=N, 1 or more requests on this connection" },
	{ "h2s", PC_STREAMS, 0, 0x7fffffffu, "expected h2s=N, HTTP/2 max concurrent streams" },
	{ "h2w", PC_WINDOW, 0, 0x7fffffffu, "expected h2w=N, an HTTP/2 initial window below 2^31" },
	{ "ping", PC_PING, 0, 86400000u, "expected ping=MS (0: one PING), at most a day" },
};

/* hint=<Link value, percent-encoded>, or hint=1 for a default one */
static int plan_hint(struct plan *p, const char *v, size_t vlen, const char **err)
{
	struct plan_ext *e = plan_ext_need(p);
	const char *val;
	size_t dlen;

	if (!e)
		return *err = "out of memory", -1;
	if (vlen == 1 && v[0] == '1')
		v = HINT_DEFAULT, vlen = sizeof(HINT_DEFAULT) - 1;
	if (!vlen)
		return *err = "expected hint=1 or hint=<Link value, %-encoded>", -1;
	if (!(val = plan_decode(e, v, vlen, &dlen, err)))
		return -1;
	e->hint = (struct hfield){ .name = "link", .lname = "link", .val = val, .nlen = 4, .vlen = (uint32_t)dlen };
	p->flags |= PF_HINT;
	return 1;
}

int plan_conn_word(struct plan *p, const char *k, size_t klen, const char *v, size_t vlen, const char **err)
{
	struct plan_ext *e;
	uint64_t n;

	if (klen == 4 && !memcmp(k, "hint", 4))
		return plan_hint(p, v, vlen, err);
	for (size_t i = 0; i < ARRAY_SIZE(conn_keys); i++) {
		const struct conn_key *ck = &conn_keys[i];
		uint32_t *f;

		if (strlen(ck->name) != klen || memcmp(ck->name, k, klen))
			continue;
		if (num_plain(v, vlen, &n, err) < 0 || n < ck->lo || n > ck->hi)
			return *err = ck->why, -1;
		if (!(e = plan_ext_need(p)))
			return *err = "out of memory", -1;
		f = ck->bit == PC_MAXREQ ? &e->conn.maxreq : ck->bit == PC_STREAMS ? &e->conn.streams :
		    ck->bit == PC_WINDOW ? &e->conn.window : &e->conn.ping_ms;
		*f = (uint32_t)n;
		e->conn.set |= ck->bit;
		p->flags |= PF_CONN;
		return 1;
	}
	return 0;
}

/* Unit tests of the response generator: fields, framing, timing, ETag, padding. */
#include <stdlib.h>

#include "plan.h"
#include "resp.h"
#include "tap.h"

static const struct hfield *field(const struct hresp *rs, const char *name)
{
	for (int i = 0; i < rs->nf; i++)
		if (rs->f[i].nlen == strlen(name) && !memcmp(rs->f[i].name, name, rs->f[i].nlen))
			return &rs->f[i];
	return NULL;
}

static int has(const struct hresp *rs, const char *name, const char *sub)
{
	const struct hfield *f = field(rs, name);
	char buf[700];

	if (!f)
		return 0;
	snprintf(buf, sizeof(buf), "%.*s", (int)f->vlen, f->val);
	return strstr(buf, sub) != NULL;
}

#define T_NOW ((int64_t)1000000000000) /* the fake clock, ns */

int main(void)
{
	static struct plan p;
	static struct hresp rs;
	struct hreq rq = { .flags = RQ_CAN_CHUNK, .head_size = 77, .target = IST("/?s=100") };
	struct ist id = IST("box");
	struct rng r;
	struct plan_limits lim = { 1 << 30, 100000, 0 };
	struct hfield f;
	uint64_t padded = 0;

	rng_seed(&r, 1);
	plan_init(&p);
	plan_apply(&p, "s=100&t=7", 9, &r, &lim);
	/* WHY a fixed clock: two clock reads a line apart once made the
	 * measured times depend on how fast a sanitized build ran */
	rq.t_first = T_NOW - 3000000;
	rq.t_head = T_NOW - 2000000;
	resp_build(&rs, &rq, &p, id, T_NOW);
	is_int(rs.status, 200, "status 200");
	is_int(rs.clen, 100, "Content-Length 100");
	is_int(rs.body, 100, "100 body bytes");
	ok(has(&rs, "X-req", "size=77, time=1.000 ms"), "X-req: size and a measured 1 ms");
	ok(has(&rs, "X-rsp", "id=box, code=200, cache=1, size=100, time=7 ms (2.000 real)"),
	   "X-rsp: comma before size, requested and measured time");
	ok(has(&rs, "Server-Timing", "wait;dur=7, gen;dur=2.000"), "Server-Timing");
	ok(!field(&rs, "Cache-Control"), "cacheable by default");

	plan_init(&p);
	plan_apply(&p, "s=100&k=10&c=0&H=X-A:1&T=x-t:2", 28, &r, &lim);
	resp_build(&rs, &rq, &p, id, T_NOW);
	ok(rs.chunked && rs.clen == -1, "k=: chunked, no length");
	ok(has(&rs, "X-rsp", "cache=0, chunked, size=100"), "X-rsp says chunked");
	ok(has(&rs, "Cache-Control", "no-cache"), "c=0: no-cache");
	ok(has(&rs, "X-A", "1"), "H= header added");
	rq.flags = 0;
	resp_build(&rs, &rq, &p, id, T_NOW);
	ok(!rs.chunked && rs.clen == 100, "no chunking where the protocol cannot");

	rq.flags = RQ_HEAD;
	plan_init(&p);
	plan_apply(&p, "s=100", 5, &r, &lim);
	resp_build(&rs, &rq, &p, id, T_NOW);
	ok(rs.body == 0 && rs.clen == 100, "HEAD: length announced, no body");
	rq.flags = 0;

	plan_init(&p);
	plan_apply(&p, "s=100&r=204", 11, &r, &lim);
	resp_build(&rs, &rq, &p, id, T_NOW);
	ok(rs.body == 0 && rs.clen == -1 && !field(&rs, "Content-Type"), "204: no body, no length");

	plan_init(&p);
	plan_apply(&p, "s=100&b=5", 9, &r, &lim);
	resp_build(&rs, &rq, &p, id, T_NOW);
	ok(rs.body == 100 && rs.clen == 5, "b=5 lies");
	plan_apply(&p, "b=0", 3, &r, &lim);
	resp_build(&rs, &rq, &p, id, T_NOW);
	ok(rs.body == 100 && rs.clen == -1, "b=0: no length");

	plan_init(&p);
	plan_apply(&p, "e=1", 3, &r, &lim);
	resp_build(&rs, &rq, &p, id, T_NOW);
	ok(field(&rs, "ETag") && field(&rs, "ETag")->val[0] == '"', "e=1: quoted ETag");
	rq.c.inm = (struct ist){ field(&rs, "ETag")->val, field(&rs, "ETag")->vlen };
	rq.flags |= RQ_COND | RQ_GET;
	resp_build(&rs, &rq, &p, id, T_NOW);
	ok(rs.status == 304 && rs.body == 0, "If-None-Match with that tag: 304");
	rq.flags &= ~RQ_GET;
	resp_build(&rs, &rq, &p, id, T_NOW);
	ok(rs.status == 412 && rs.src == BODY_TEXT && strstr(rs.text.ptr, "If-None-Match") &&
	   rs.clen == (int64_t)rs.text.len && has(&rs, "Content-Type", "text/plain"),
	   "... on a method other than GET or HEAD: 412, its reason the body");
	p.flags |= PF_GRPC;
	rs.text = IST("call");
	resp_build(&rs, &rq, &p, id, T_NOW);
	ok(rs.status == 200, "... but a gRPC call's: its answer is a 200, the outcome in grpc-status");
	rq.flags &= ~RQ_COND;
	rq.c.inm = (struct ist){ NULL, 0 };

	plan_init(&p);
	plan_apply(&p, "z=10k", 5, &r, &lim);
	resp_build(&rs, &rq, &p, id, T_NOW);
	while (resp_pad_next(&rs, &f))
		padded += f.nlen + f.vlen + 4;
	ok(padded > 9000 && padded < 10240, "z=10k pads about 10k (%llu)", (unsigned long long)padded);

	plan_init(&p);
	plan_apply(&p, "s=x", 3, &r, &lim);
	p.flags |= PF_BAD;
	p.status = 400;
	resp_build(&rs, &rq, &p, id, T_NOW);
	ok(rs.status == 400 && rs.src == BODY_TEXT && strstr(rs.text.ptr, "s=x"),
	   "a bad item answers 400 naming it");
	plan_init(&p);
	p.flags |= PF_HELP;
	resp_build(&rs, &rq, &p, id, T_NOW);
	ok(rs.status == 200 && rs.text.len > 1000 && has(&rs, "Cache-Control", "no-cache"),
	   "help page, not cacheable");
	rq.flags |= RQ_COND | RQ_GET;
	rq.c = (struct hcond){ .im = IST("\"x\""), .range = IST("bytes=100-109") };
	resp_build(&rs, &rq, &p, id, T_NOW);
	ok(rs.status == 200 && rs.text.len > 1000 && rs.body == rs.text.len && !field(&rs, "Content-Range"),
	   "... whole, whatever If-Match or Range: it has no validators, and a text body is sent from its start");
	rq.flags &= ~(RQ_COND | RQ_GET);
	return done_testing();
}

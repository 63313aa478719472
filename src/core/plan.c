/* The query language: items of a query string (or X-Hxterm header) into a plan. */
#include <string.h>

#include "common.h"
#include "num.h"
#include "plan.h"

/* every key of the language, one letter each */
/* what each key letter takes, 0: no key. WHY a table: a look-up per item
 * where strchr() over the letters was a call (bench/cg) */
enum { K_NONE, K_NUM, K_FIELD, K_VARY };
static const uint8_t key_kind[128] = {
	['s'] = K_NUM, ['r'] = K_NUM, ['t'] = K_NUM, ['c'] = K_NUM, ['C'] = K_NUM, ['K'] = K_NUM,
	['k'] = K_NUM, ['S'] = K_NUM, ['R'] = K_NUM, ['A'] = K_NUM, ['b'] = K_NUM, ['B'] = K_NUM,
	['e'] = K_NUM, ['p'] = K_NUM, ['P'] = K_NUM, ['w'] = K_NUM, ['d'] = K_NUM, ['x'] = K_NUM,
	['X'] = K_NUM, ['z'] = K_NUM, ['H'] = K_FIELD, ['T'] = K_FIELD, ['E'] = K_NUM, ['n'] = K_NUM,
	['L'] = K_NUM, ['m'] = K_NUM, ['M'] = K_NUM, ['V'] = K_VARY,
};

/* the kind of the key letter <c> */
static int kind_of(char c)
{
	return (unsigned char)c < 128 ? key_kind[(unsigned char)c] : K_NONE;
}

/* item separators of the query language */
static inline int is_sep(char c)
{
	return c == '&' || c == '?' || c == ',' || c == ';' || c == '/';
}

void plan_init(struct plan *p)
{
	if (unlikely(p->ext != NULL))
		plan_done(p);
	p->flags = 0;
	p->status = 200;
	p->nhdr = p->ntrl = 0;
	p->size = p->wait_ms = p->chunk = p->announce = p->body_max = 0;
	p->piece = p->drip_ms = p->pause_ms = p->idle_ms = p->fault_at = 0;
	p->pad = p->ttft_ms = 0;
	p->ws = WS_NONE;
	p->count = 1;
	p->ign_len = 0;
}

/* a string of <src>: moved into <dst> when in src's decoded bytes (a gRPC
 * trailer's name is a literal, left as it is) */
static const char *str_moved(const char *s, const struct plan_ext *src, struct plan_ext *dst)
{
	return s >= src->dec && s < src->dec + sizeof(src->dec) ? dst->dec + (s - src->dec) : s;
}

/* a field of <src> whose strings live in src->dec, moved into dst->dec */
static struct hfield field_moved(const struct hfield *f, const struct plan_ext *src, struct plan_ext *dst)
{
	struct hfield o = *f;

	o.name = str_moved(f->name, src, dst);
	o.lname = f->lname ? str_moved(f->lname, src, dst) : NULL;
	o.val = str_moved(f->val, src, dst);
	return o;
}

int plan_copy(struct plan *dst, const struct plan *src)
{
	struct plan_ext *e;

	plan_done(dst);
	*dst = *src;
	dst->ext = NULL;
	if (!src->ext)
		return 0;
	if (!(e = plan_ext_need(dst)))
		return -1;
	memcpy(e->dec, src->ext->dec, src->ext->dec_used);
	e->dec_used = src->ext->dec_used;
	memcpy(e->spec_s, src->ext->spec_s, sizeof(e->spec_s));
	memcpy(e->spec_d, src->ext->spec_d, sizeof(e->spec_d));
	memcpy(e->err, src->ext->err, sizeof(e->err));
	e->conn = src->ext->conn;
	e->hint = field_moved(&src->ext->hint, src->ext, e);
	for (int i = 0; i < src->nhdr; i++)
		e->hdr[i] = field_moved(&src->ext->hdr[i], src->ext, e);
	for (int i = 0; i < src->ntrl; i++)
		e->trl[i] = field_moved(&src->ext->trl[i], src->ext, e);
	return 0;
}

/* Writes "bad item '<item>': <why>" into the reason (plan_err says out of
 * memory when it has no room) */
static int plan_fail(struct plan *p, const char *item, size_t len, const char *why)
{
	size_t n = MIN(len, (size_t)60), wl = strlen(why);
	struct plan_ext *x = plan_ext_need(p);
	char *e;

	if (!x)
		return -1;
	e = x->err;

	memcpy(e, "bad item '", 10);
	e += 10;
	/* WHY: the reason is one line whatever the item holds (fuzzer finding) */
	for (size_t i = 0; i < n; i++)
		*e++ = ((unsigned char)item[i] < ' ' || item[i] == 0x7f) ? '?' : item[i];
	if (n < len) {
		memcpy(e, "...", 3);
		e += 3;
	}
	memcpy(e, "': ", 3);
	e += 3;
	wl = MIN(wl, (size_t)(x->err + sizeof(x->err) - 2 - e));
	memcpy(e, why, wl);
	e[wl] = '\n';
	e[wl + 1] = 0;
	return -1;
}

static int is_tchar(unsigned char c)
{
	static const char extra[] = "!#$%&'*+-.^_`|~";

	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
	       (c && strchr(extra, c));
}

/* H=Name:Value and T=Name:Value, the value percent-decoded */
static int plan_field(struct plan *p, int trailer, const char *v, size_t len,
		      const char **err)
{
	struct hfield *f;
	size_t nlen = 0, dlen;
	const char *colon = memchr(v, ':', len);
	const char *val, *name;
	uint8_t *n = trailer ? &p->ntrl : &p->nhdr;
	struct plan_ext *e = plan_ext_need(p);

	if (!e)
		return *err = "out of memory", -1;
	if (*n == PLAN_MAX_FIELDS)
		return *err = "too many header items", -1;
	if (!colon || colon == v)
		return *err = "expected Name:Value", -1;
	for (const char *c = v; c < colon; c++, nlen++)
		if (!is_tchar((unsigned char)*c) || *c == '%')
			return *err = "bad character in header name", -1;
	val = plan_decode(e, colon + 1, len - nlen - 1, &dlen, err);
	if (!val)
		return -1;
	while (dlen && (*val == ' ' || *val == '\t'))
		val++, dlen--;
	f = trailer ? &e->trl[*n] : &e->hdr[*n];
	/* the name is copied too: a plan outlives the request buffer */
	if (!(name = plan_decode(e, v, nlen, &nlen, err)))
		return -1;
	*f = (struct hfield){ .name = name, .lname = NULL, .val = val,
			      .nlen = (uint32_t)nlen, .vlen = (uint32_t)dlen };
	(*n)++;
	return 0;
}

/* flags: any number, on when above 0 (c=: caching off below 1), as
 * httpterm and haterm read them (their K=30r example works); 1 when <key>
 * is one */
static int plan_bool(struct plan *p, char key, uint64_t v)
{
	static const struct { char key; uint8_t set_on; uint32_t flag; } bools[] = {
		{ 'c', 0, PF_NOCACHE }, { 'C', 1, PF_CLOSE },  { 'K', 1, PF_KEEP },
		{ 'S', 0, PF_NOSPLICE }, { 'R', 1, PF_RANDOM }, { 'A', 1, PF_ACKFIRST },
		{ 'e', 1, PF_ETAG },    { 'L', 1, PF_LASTMOD },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bools); i++) {
		if (bools[i].key != key)
			continue;
		if ((v > 0) == bools[i].set_on)
			p->flags |= bools[i].flag;
		else
			p->flags &= ~bools[i].flag;
		return 1;
	}
	return 0;
}

/* sets <flag> when v != 0, clears it otherwise, and stores v */
static void plan_opt(struct plan *p, uint64_t *field, uint32_t flag, uint64_t v)
{
	*field = v;
	if (v)
		p->flags |= flag;
	else
		p->flags &= ~flag;
}

static int plan_number(struct plan *p, char key, uint64_t v,
		       const struct plan_limits *lim, const char **err)
{
	switch (key) {
	case 's':
		if (v > lim->max_size)
			return *err = "larger than --max-size", -1;
		p->size = v;
		break;
	case 'r':
		if (v < 200 || v > 999)
			return *err = "status must be 200 to 999", -1;
		p->status = (uint16_t)v;
		break;
	case 't': case 'd': case 'P':
		if (v > lim->max_wait)
			return *err = "longer than --max-wait", -1;
		*(key == 't' ? &p->wait_ms : key == 'd' ? &p->drip_ms : &p->pause_ms) = v;
		break;
	case 'k': plan_opt(p, &p->chunk, PF_CHUNK, v); break;
	case 'p': plan_opt(p, &p->piece, PF_PIECE, v); break;
	case 'w': plan_opt(p, &p->idle_ms, PF_IDLE, v ? v : 1); break;
	case 'B':
		p->body_max = v;
		p->flags |= PF_BODYMAX;
		break;
	case 'b':
		p->flags &= ~(PF_NOLEN | PF_LIE);
		p->flags |= v ? PF_LIE : PF_NOLEN;
		p->announce = v;
		break;
	case 'x': case 'X':
		p->flags &= ~(PF_RESET | PF_TRUNC);
		p->flags |= key == 'x' ? PF_RESET : PF_TRUNC;
		p->fault_at = v;
		break;
	case 'z':
		if (v > PLAN_MAX_PAD)
			return *err = "padding above 1m", -1;
		p->pad = v;
		break;
	case 'n': p->count = v; break;
	case 'E': /* 1: the request's head, 2: its body, 0: neither */
		if (v > 2)
			return *err = "E=1 echoes the request head, E=2 its body", -1;
		p->flags = (p->flags & ~(PF_ECHO | PF_ECHOBODY)) | (v == 1 ? PF_ECHO : v == 2 ? PF_ECHOBODY : 0);
		break;
	case 'm': case 'M': /* WHY no plan_opt: max-age=0 says something */
		*(key == 'm' ? &p->max_age : &p->s_maxage) = v;
		p->flags |= key == 'm' ? PF_MAXAGE : PF_SMAXAGE;
		break;
	default: /* WHY the flags last: s=, t=, r= are the most asked */
		plan_bool(p, key, v);
	}
	return 0;
}

/* V=Name: the answer varies by that request header (a cache keeps one a value) */
static int plan_vary(struct plan *p, const char *v, size_t vlen)
{
	if (!vlen || vlen >= sizeof(p->vary))
		return -1;
	for (size_t i = 0; i < vlen; i++)
		if (!is_tchar((unsigned char)v[i]))
			return -1;
	memcpy(p->vary, v, vlen);
	p->vary_len = (uint8_t)vlen;
	p->flags |= PF_VARY;
	return 0;
}

/* ws=echo|gen: the request asks for a WebSocket */
static int plan_ws(struct plan *p, const char *v, size_t vlen)
{
	if (vlen == 4 && !memcmp(v, "echo", 4))
		p->ws = WS_ECHO;
	else if (vlen == 3 && !memcmp(v, "gen", 3))
		p->ws = WS_GEN;
	else
		return -1;
	return 0;
}

/* cc=private+no-store: Cache-Control's directives by name, '+' between */
static int plan_cc(struct plan *p, const char *v, size_t vlen)
{
	static const char *const names[] = PLAN_CC_NAMES;
	const char *end = v + vlen;

	if (!(p->flags & PF_CC))
		p->cc = 0; /* WHY here: plan_init leaves it, most plans have none */
	while (v < end) {
		const char *e = memchr(v, '+', (size_t)(end - v));
		size_t n = (size_t)((e ? e : end) - v), i;

		for (i = 0; i < ARRAY_SIZE(names); i++)
			if (strlen(names[i]) == n && !memcmp(v, names[i], n))
				break;
		if (i == ARRAY_SIZE(names))
			return -1;
		p->cc |= (uint8_t)(1u << i);
		v += n + 1;
	}
	p->flags |= p->cc ? PF_CC : 0;
	return 0;
}

/* the keys of more than one letter but ws=: sse=0|1, retry=MS, cc=, age=. Returns 1
 * when taken, 0 when not one of them, -1 with <*err> when its value is bad */
static int plan_word(struct plan *p, const char *k, size_t klen, const char *v, size_t vlen, const char **err)
{
	uint64_t n;

	if (klen == 3 && !memcmp(k, "sse", 3)) {
		if (num_plain(v, vlen, &n, err) < 0 || n > 1)
			return *err = "expected sse=1 (events) or sse=0", -1;
		p->flags = n ? p->flags | PF_SSE : p->flags & ~PF_SSE;
		return 1;
	}
	if (klen == 2 && !memcmp(k, "cc", 2))
		return plan_cc(p, v, vlen) < 0 ? (*err = "expected cc=public, private, no-store, must-revalidate, "
						  "immutable or no-transform, + between several", -1) : 1;
	if (klen == 3 && !memcmp(k, "age", 3)) {
		if (num_plain(v, vlen, &n, err) < 0 || n > 0xffffffffu)
			return *err = "expected age=SECONDS", -1;
		p->age = n;
		p->flags |= PF_AGE;
		return 1;
	}
	if (klen == 5 && !memcmp(k, "retry", 5)) {
		if (num_plain(v, vlen, &n, err) < 0 || n > 86400000)
			return *err = "expected retry=MS, at most a day", -1;
		p->retry_ms = n;
		p->flags |= PF_RETRY;
		return 1;
	}
	return 0;
}

/* sse=1's words: ttft=MS (the first event's delay, drawn once) and done=1
 * (a last "data: [DONE]"). Returns 1 when taken, 0 when not one of them,
 * -1 with <*err> when its value is bad */
static int plan_sse_word(struct plan *p, const char *k, size_t klen, const char *v, size_t vlen, struct rng *r,
			 const struct plan_limits *lim, const char **err)
{
	uint64_t n;

	if (klen == 4 && !memcmp(k, "ttft", 4)) {
		if (num_draw(v, vlen, r, &n, err) < 0 || n > lim->max_wait)
			return *err = "expected ttft=MS (any number form), at most --max-wait", -1;
		p->ttft_ms = n;
		p->flags = n ? p->flags | PF_TTFT : p->flags & ~PF_TTFT;
		return 1;
	}
	if (klen == 4 && !memcmp(k, "done", 4)) {
		if (num_plain(v, vlen, &n, err) < 0 || n > 1)
			return *err = "expected done=1 (a last data: [DONE]) or done=0", -1;
		p->flags = n ? p->flags | PF_SSEDONE : p->flags & ~PF_SSEDONE;
		return 1;
	}
	return 0;
}

/* s= and d= as written when <random>: a WebSocket and sse=1 draw them
 * again for each message. WHY only then: a plain number drawn again is
 * the plan's, and most s= would otherwise take an extension. Returns 0,
 * -1 when too long, -2 out of memory */
static int plan_spec(struct plan *p, char key, const char *v, size_t vlen, int random)
{
	struct plan_ext *e;
	char *d;

	if (key != 's' && key != 'd')
		return 0;
	if (!random) { /* WHY: a plain s= after a random one */
		(key == 's' ? p->ext->spec_s : p->ext->spec_d)[0] = 0;
		return 0;
	}
	if (vlen >= PLAN_SPEC)
		return -1;
	if (!(e = plan_ext_need(p)))
		return -2;
	d = key == 's' ? e->spec_s : e->spec_d;
	memcpy(d, v, vlen);
	d[vlen] = 0;
	return 0;
}

/* what ends a full X-Hxterm-Ignored list. WHY '+': a name keeps only a
 * token's letters, digits, '_', '-' and '.' ('?' stands for any other
 * byte), so no key can write it; the old ",..." was written by a key "..."
 * and its '.' by any key ending in one, after which no key was named */
#define IGN_MORE     ",+more"
#define IGN_MORE_LEN (sizeof(IGN_MORE) - 1)

static int ign_full(const struct plan *p)
{
	return p->ign_len >= IGN_MORE_LEN && !memcmp(p->ignored + p->ign_len - IGN_MORE_LEN, IGN_MORE, IGN_MORE_LEN);
}

/* a byte of a key's name as X-Hxterm-Ignored shows it */
static char ign_char(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
	       ch == '-' || ch == '.' ? (char)ch : '?';
}

/* An unknown key: named in <ignored> (16 bytes of each name at most, an
 * empty one as "="), the list ended by IGN_MORE once full; or a bad item
 * under --strict. WHY named: ?size=1k&wait=50 was answered 200, empty and
 * at once, and looked right */
static int plan_unknown(struct plan *p, const char *it, size_t len, const struct plan_limits *lim)
{
	const char *eq = memchr(it, '=', len);
	size_t klen = MIN(eq ? (size_t)(eq - it) : len, (size_t)16);
	size_t need = MAX(klen, (size_t)1) + (p->ign_len ? 1 : 0);
	char *o = p->ignored + p->ign_len;

	if (lim->strict)
		return plan_fail(p, it, len, "unknown key (--strict; / lists the keys)");
	if (ign_full(p))
		return 0;
	if (p->ign_len + need > PLAN_IGN - IGN_MORE_LEN) {
		memcpy(o, IGN_MORE, IGN_MORE_LEN);
		p->ign_len = (uint8_t)(p->ign_len + IGN_MORE_LEN);
		return 0;
	}
	if (p->ign_len)
		*o++ = ',';
	if (!klen)
		*o = '=';
	for (size_t i = 0; i < klen; i++)
		*o++ = ign_char((unsigned char)it[i]);
	p->ign_len = (uint8_t)(p->ign_len + need);
	return 0;
}

static int plan_item(struct plan *p, const char *it, size_t len, struct rng *r,
		     const struct plan_limits *lim)
{
	const char *err = NULL;
	/* WHY the second byte first: most items are one letter (as below) */
	const char *eq = len > 1 && it[1] == '=' && it[0] != '=' ? it + 1 : memchr(it, '=', len);
	const char *v;
	size_t vlen;
	uint64_t n;
	int kind;

	if (!eq) {
		if (len == 1 && it[0] == 'h')
			p->flags |= PF_HELP;
		else if (len == 1 && kind_of(it[0]))
			return plan_fail(p, it, len, "missing value");
		else
			return plan_unknown(p, it, len, lim);
		return 0;
	}
	/* WHY the words behind one test: most items are one letter */
	if (unlikely(eq - it != 1)) {
		if (eq - it == 2 && it[0] == 'w' && it[1] == 's')
			return plan_ws(p, eq + 1, len - 3) < 0 ? plan_fail(p, it, len, "expected ws=echo or ws=gen") : 0;
		if (eq - it == 4 && (kind = plan_sse_word(p, it, 4, eq + 1, len - 5, r, lim, &err)) != 0)
			return kind < 0 ? plan_fail(p, it, len, err) : 0;
		if (eq - it >= 3 && (kind = plan_conn_word(p, it, (size_t)(eq - it), eq + 1, len - (size_t)(eq - it) - 1, &err)) != 0)
			return kind < 0 ? plan_fail(p, it, len, err) : 0;
		if (eq - it >= 2 && plan_word(p, it, (size_t)(eq - it), eq + 1, len - (size_t)(eq - it) - 1, &err) != 0)
			return err ? plan_fail(p, it, len, err) : 0;
		return plan_unknown(p, it, len, lim);
	}
	if (!(kind = kind_of(it[0])))
		return plan_unknown(p, it, len, lim);
	v = eq + 1;
	vlen = len - 2;
	if (unlikely(kind == K_FIELD)) {
		if (plan_field(p, it[0] == 'T', v, vlen, &err) < 0)
			return plan_fail(p, it, len, err);
		return 0;
	}
	if (unlikely(kind == K_VARY))
		return plan_vary(p, v, vlen) < 0 ? plan_fail(p, it, len, "expected a header name, 1 to 31 token characters") : 0;
	if ((kind = num_draw(v, vlen, r, &n, &err)) < 0 ||
	    plan_number(p, it[0], n, lim, &err) < 0)
		return plan_fail(p, it, len, err);
	/* WHY behind one test: most values are plain, in a plan with no extension */
	if (unlikely(kind | (p->ext != NULL)) && (kind = plan_spec(p, it[0], v, vlen, kind)) < 0)
		return plan_fail(p, it, len, kind == -1 ? "longer than 47 bytes" : "out of memory");
	return 0;
}

int plan_apply(struct plan *p, const char *q, size_t len, struct rng *r,
	       const struct plan_limits *lim)
{
	const char *end = q + len;

	if (!len)
		p->flags |= PF_HELP;
	while (q < end) {
		const char *s = q;

		while (q < end && !is_sep(*q))
			q++;
		if (q > s && plan_item(p, s, (size_t)(q - s), r, lim) < 0)
			return -1;
		q++;
	}
	return 0;
}

/* An HPACK encoder for response heads (RFC 7541): static-table names, a few dynamic entries for fields that repeat, literal values, no Huffman. */
#include <pthread.h>
#include <string.h>

#include "common.h"
#include "hpack.h"
#include "stab.h"

#define STATIC_N HPK_STATIC_N
#define ENTRY_OVERHEAD 32 /* RFC 7541 4.1 */

/* the names of the static table (RFC 7541 A), index - 1 */
const char *const hpk_static_names[STATIC_N] = {
	":authority", ":method", ":method", ":path", ":path", ":scheme", ":scheme", ":status", ":status",
	":status", ":status", ":status", ":status", ":status", "accept-charset", "accept-encoding",
	"accept-language", "accept-ranges", "accept", "access-control-allow-origin", "age", "allow",
	"authorization", "cache-control", "content-disposition", "content-encoding", "content-language",
	"content-length", "content-location", "content-range", "content-type", "cookie", "date", "etag",
	"expect", "expires", "from", "host", "if-match", "if-modified-since", "if-none-match", "if-range",
	"if-unmodified-since", "last-modified", "link", "location", "max-forwards", "proxy-authenticate",
	"proxy-authorization", "range", "referer", "refresh", "retry-after", "server", "set-cookie",
	"strict-transport-security", "transfer-encoding", "user-agent", "vary", "via", "www-authenticate",
};

static struct stab names;

static void names_build(void)
{
	stab_build(&names, hpk_static_names, STATIC_N);
}

/* the static index of the name, 0 when it has none */
static unsigned static_name(const uint8_t *n, size_t len)
{
	return stab_find(&names, n, len);
}

void hpk_init(struct hpk_enc *e, uint32_t cap)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, names_build);
	memset(e, 0, sizeof(*e));
	e->cap = cap;
	e->max = MIN(4096, cap); /* WHY 4096: the decoder's table until its SETTINGS say more */
	e->low = e->max;
	e->update = e->max != 4096;
}

/* the oldest entries out until <room> more bytes fit */
static void evict(struct hpk_enc *e, uint32_t room)
{
	while (e->used + room > e->max) {
		struct hpk_slot *old = NULL;

		for (int i = 0; i < HPK_SLOTS; i++)
			if (e->slot[i].live && (!old || e->slot[i].seq < old->seq))
				old = &e->slot[i];
		if (!old)
			break;
		old->live = 0;
		e->used -= ENTRY_OVERHEAD + old->nlen + old->vlen;
	}
}

void hpk_table_size(struct hpk_enc *e, uint32_t size)
{
	uint32_t max = MIN(size, e->cap);

	if (max == e->max)
		return;
	e->max = max;
	e->low = MIN(e->low, max);
	e->update = 1;
	evict(e, 0);
}

size_t hpk_bound(const struct hpk_field *f, size_t n)
{
	size_t b = 2 * 6; /* two size updates */

	for (size_t i = 0; i < n; i++)
		b += 1 + 10 + f[i].nlen + 10 + f[i].vlen;
	return b;
}

/* slot <i> holds <f>'s name now: the literal it was made for, or none */
static void lit_mark(struct hpk_enc *e, unsigned i, const struct hpk_field *f)
{
	e->lit[i] = (f->flags & HPK_LITERAL_NAME) ? f->name : NULL;
	if (e->lit[i])
		e->by_lit[hpk_lit_hash(f->name, 4)] = (uint8_t)(i + 1);
}

/* WHY by the literal's address first: a response head's names are literals,
 * and with a compare of the bytes from slot 0 each name met the others of
 * its length (x-req, x-rsp) on the way: 117 instructions and most of 242 in
 * memcmp an h2 response. The map is a hint: the slot found is checked */
static struct hpk_slot *slot_of(struct hpk_enc *e, const struct hpk_field *f)
{
	if (f->flags & HPK_LITERAL_NAME) {
		unsigned i = e->by_lit[hpk_lit_hash(f->name, 4)];
		struct hpk_slot *s = &e->slot[i ? i - 1 : 0];

		if (i && s->live && e->lit[i - 1] == f->name && s->nlen == f->nlen)
			return s;
	}
	for (int i = 0; i < HPK_SLOTS; i++) {
		struct hpk_slot *s = &e->slot[i];

		if (s->live && s->nlen == f->nlen && !memcmp(s->data, f->name, f->nlen)) {
			if (f->flags & HPK_LITERAL_NAME)
				lit_mark(e, (unsigned)i, f);
			return s;
		}
	}
	return NULL;
}

/* a slot for <f> in the table, or NULL when it may not enter */
static struct hpk_slot *slot_new(struct hpk_enc *e, const struct hpk_field *f)
{
	uint32_t size = (uint32_t)(ENTRY_OVERHEAD + f->nlen + f->vlen);
	struct hpk_slot *s = NULL;

	if ((f->flags & HPK_NO_INDEX) || f->nlen + f->vlen > HPK_SLOT_MAX || size > e->max)
		return NULL;
	for (int i = 0; i < HPK_SLOTS && !s; i++)
		if (!e->slot[i].live)
			s = &e->slot[i];
	if (!s)
		return NULL;
	evict(e, size);
	s->live = 1;
	lit_mark(e, (unsigned)(s - e->slot), f);
	s->seq = ++e->seq;
	s->nlen = (uint16_t)f->nlen;
	s->vlen = (uint16_t)f->vlen;
	memcpy(s->data, f->name, f->nlen);
	memcpy(s->data + f->nlen, f->value, f->vlen);
	e->used += size;
	return s;
}

/* :status, indexed when the static table has it */
static uint8_t *put_status(uint8_t *o, const struct hpk_field *f)
{
	static const char codes[][4] = { "200", "204", "206", "304", "400", "404", "500" };

	if (f->vlen == 3)
		for (unsigned i = 0; i < ARRAY_SIZE(codes); i++)
			if (!memcmp(f->value, codes[i], 3))
				return hpk_int(o, 0x80, 7, 8 + i);
	o = hpk_int(o, 0x00, 4, 8);
	return hpk_str(o, f->value, f->vlen);
}

static uint8_t *put_field(struct hpk_enc *e, uint8_t *o, const struct hpk_field *f)
{
	struct hpk_slot *s;
	unsigned idx;

	if (f->nlen == 7 && !memcmp(f->name, ":status", 7))
		return put_status(o, f);
	if ((s = slot_of(e, f))) {
		idx = STATIC_N + 1 + (e->seq - s->seq);
		if (s->vlen == f->vlen && !memcmp(s->data + s->nlen, f->value, f->vlen))
			return hpk_int(o, 0x80, 7, idx); /* indexed (6.1) */
		o = hpk_int(o, f->flags & HPK_NO_INDEX ? 0x10 : 0x00, 4, idx);
		return hpk_str(o, f->value, f->vlen);
	}
	idx = f->name[0] == ':' ? 0 : static_name(f->name, f->nlen);
	if (f->name[0] != ':' && slot_new(e, f))
		o = hpk_int(o, 0x40, 6, idx); /* with incremental indexing (6.2.1) */
	else
		o = hpk_int(o, f->flags & HPK_NO_INDEX ? 0x10 : 0x00, 4, idx);
	if (!idx)
		o = hpk_str(o, f->name, f->nlen);
	return hpk_str(o, f->value, f->vlen);
}

size_t hpk_encode(struct hpk_enc *e, uint8_t *out, const struct hpk_field *f, size_t n)
{
	uint8_t *o = out;

	if (e->update) { /* WHY the smallest first: the decoder evicts down to it (4.2) */
		if (e->low < e->max)
			o = hpk_int(o, 0x20, 5, e->low);
		o = hpk_int(o, 0x20, 5, e->max);
		e->update = 0;
		e->low = e->max;
	}
	for (size_t i = 0; i < n; i++)
		o = put_field(e, o, &f[i]);
	return (size_t)(o - out);
}

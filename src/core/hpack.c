/* An HPACK encoder for response heads (RFC 7541): static-table names, a few dynamic entries for fields that repeat, literal values, no Huffman. */
#include <pthread.h>
#include <string.h>

#include "common.h"
#include "hpack.h"

#define STATIC_N 61
#define ENTRY_OVERHEAD 32 /* RFC 7541 4.1 */

/* the names of the static table (RFC 7541 A), index - 1 */
static const char *const static_names[STATIC_N] = {
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

/* names to their first static index: open addressing, built once */
#define NAME_HASH 256
static uint8_t name_index[NAME_HASH];

static unsigned name_hash(const uint8_t *n, size_t len)
{
	return (unsigned)(len * 7 + n[0] * 3 + n[len - 1] * 5 + (len > 2 ? n[len / 2] : 0)) % NAME_HASH;
}

static void names_build(void)
{
	for (int i = STATIC_N - 1; i >= 0; i--) {
		const uint8_t *n = (const uint8_t *)static_names[i];
		unsigned h = name_hash(n, strlen(static_names[i]));

		/* WHY from the end, replacing the same name: the first index stays */
		while (name_index[h] && strcmp(static_names[name_index[h] - 1], static_names[i]))
			h = (h + 1) % NAME_HASH;
		name_index[h] = (uint8_t)(i + 1);
	}
}

/* the static index of the name, 0 when it has none */
static unsigned static_name(const uint8_t *n, size_t len)
{
	unsigned h;

	if (!len)
		return 0;
	for (h = name_hash(n, len); name_index[h]; h = (h + 1) % NAME_HASH) {
		const char *s = static_names[name_index[h] - 1];

		if (s[0] == (char)n[0] && strlen(s) == len && !memcmp(s, n, len))
			return name_index[h];
	}
	return 0;
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

/* an integer with an <n>-bit prefix after the bits of <first> (5.1) */
static uint8_t *put_int(uint8_t *o, uint8_t first, unsigned n, uint64_t v)
{
	uint64_t max = (1u << n) - 1;

	if (v < max) {
		*o++ = (uint8_t)(first | v);
		return o;
	}
	*o++ = (uint8_t)(first | max);
	for (v -= max; v >= 128; v >>= 7)
		*o++ = (uint8_t)(0x80 | (v & 0x7f));
	*o++ = (uint8_t)v;
	return o;
}

/* a string literal, not Huffman-coded (5.2) */
static uint8_t *put_str(uint8_t *o, const uint8_t *s, size_t len)
{
	o = put_int(o, 0, 7, len);
	memcpy(o, s, len);
	return o + len;
}

static struct hpk_slot *slot_of(struct hpk_enc *e, const struct hpk_field *f)
{
	for (int i = 0; i < HPK_SLOTS; i++) {
		struct hpk_slot *s = &e->slot[i];

		if (s->live && s->nlen == f->nlen && !memcmp(s->data, f->name, f->nlen))
			return s;
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
				return put_int(o, 0x80, 7, 8 + i);
	o = put_int(o, 0x00, 4, 8);
	return put_str(o, f->value, f->vlen);
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
			return put_int(o, 0x80, 7, idx); /* indexed (6.1) */
		o = put_int(o, f->flags & HPK_NO_INDEX ? 0x10 : 0x00, 4, idx);
		return put_str(o, f->value, f->vlen);
	}
	idx = f->name[0] == ':' ? 0 : static_name(f->name, f->nlen);
	if (f->name[0] != ':' && slot_new(e, f))
		o = put_int(o, 0x40, 6, idx); /* with incremental indexing (6.2.1) */
	else
		o = put_int(o, f->flags & HPK_NO_INDEX ? 0x10 : 0x00, 4, idx);
	if (!idx)
		o = put_str(o, f->name, f->nlen);
	return put_str(o, f->value, f->vlen);
}

size_t hpk_encode(struct hpk_enc *e, uint8_t *out, const struct hpk_field *f, size_t n)
{
	uint8_t *o = out;

	if (e->update) { /* WHY the smallest first: the decoder evicts down to it (4.2) */
		if (e->low < e->max)
			o = put_int(o, 0x20, 5, e->low);
		o = put_int(o, 0x20, 5, e->max);
		e->update = 0;
		e->low = e->max;
	}
	for (size_t i = 0; i < n; i++)
		o = put_field(e, o, &f[i]);
	return (size_t)(o - out);
}

/* An HPACK decoder (RFC 7541) for response heads: indexed fields, literals with and without indexing, size updates; the dynamic table kept as the entries' bytes. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "hdr_rd.h"
#include "hpack.h"
#include "hpack_dec.h"

#define ENTRY_OVERHEAD 32 /* RFC 7541 4.1 */
#define ENTRY_HEAD     4  /* our bytes before an entry's name: its two lengths */

/* the static table's values (RFC 7541 A), index - 1; the rest are empty */
static const char *static_value(unsigned i)
{
	static const char *const v[] = {
		[1] = "GET", [2] = "POST", [3] = "/", [4] = "/index.html", [5] = "http", [6] = "https",
		[7] = "200", [8] = "204", [9] = "206", [10] = "304", [11] = "400", [12] = "404", [13] = "500",
		[15] = "gzip, deflate",
	};

	return i < ARRAY_SIZE(v) && v[i] ? v[i] : "";
}

/* the static table's name and value lengths, index - 1: WHY counted once,
 * two strlen calls were 26 instructions a lookup */
static uint8_t static_nlen[HPK_STATIC_N], static_vlen[HPK_STATIC_N];
static pthread_once_t lens_once = PTHREAD_ONCE_INIT;

static void lens_count(void)
{
	for (unsigned i = 0; i < HPK_STATIC_N; i++) {
		static_nlen[i] = (uint8_t)strlen(hpk_static_names[i]);
		static_vlen[i] = (uint8_t)strlen(static_value(i));
	}
}

void hpd_init(struct hpd *d, uint32_t cap)
{
	pthread_once(&lens_once, lens_count);
	memset(d, 0, sizeof(*d));
	d->cap = MIN(cap, 65535u); /* WHY: an entry's lengths are 16 bits */
	d->max = d->cap;
}

void hpd_free(struct hpd *d)
{
	free(d->tab);
	free(d->off);
	memset(d, 0, sizeof(*d));
}

static inline uint32_t ent_len(const uint8_t *e, uint32_t *vlen)
{
	uint32_t nl = (uint32_t)e[0] << 8 | e[1];

	*vlen = (uint32_t)e[2] << 8 | e[3];
	return nl;
}

/* the oldest entries out until the table is at most <max> - <room> */
static void evict(struct hpd *d, uint32_t room)
{
	uint32_t off = 0, gone = 0;

	while (gone < d->n && d->used + room > d->max) {
		uint32_t vl, nl = ent_len(d->tab + off, &vl);

		off += ENTRY_HEAD + nl + vl;
		d->used -= ENTRY_OVERHEAD + nl + vl;
		gone++;
	}
	if (!gone)
		return;
	d->n -= gone;
	memmove(d->tab, d->tab + off, d->len - off);
	d->len -= off;
	for (uint32_t i = 0; i < d->n; i++)
		d->off[i] = (uint16_t)(d->off[i + gone] - off);
}

/* dynamic entry <k> (0: the newest): 0, or -1 when there is none */
static int dyn_field(const struct hpd *d, uint64_t k, const uint8_t **n, size_t *nl, const uint8_t **v, size_t *vl)
{
	const uint8_t *e;
	uint32_t a, b;

	if (k >= d->n)
		return -1;
	e = d->tab + d->off[d->n - 1 - k];
	a = ent_len(e, &b);
	*n = e + ENTRY_HEAD, *nl = a;
	*v = e + ENTRY_HEAD + a, *vl = b;
	return 0;
}

/* field <i> of the tables (1-based, RFC 7541 2.3.3): 0, or -1 */
static int field_at(const struct hpd *d, uint64_t i, const uint8_t **n, size_t *nl, const uint8_t **v, size_t *vl)
{
	if (!i)
		return -1;
	if (i <= HPK_STATIC_N) {
		*n = (const uint8_t *)hpk_static_names[i - 1], *nl = static_nlen[i - 1];
		*v = (const uint8_t *)static_value((unsigned)(i - 1)), *vl = static_vlen[i - 1];
		return 0;
	}
	return dyn_field(d, i - HPK_STATIC_N - 1, n, nl, v, vl);
}

/* a field into the table (RFC 7541 4.4): 0, or -1 out of memory. WHY
 * <n> and <v> outside the table: an eviction moves its bytes */
static int insert(struct hpd *d, const uint8_t *n, size_t nl, const uint8_t *v, size_t vl)
{
	uint32_t size = (uint32_t)(ENTRY_OVERHEAD + nl + vl), need;
	uint8_t *e;

	if (size > d->max) { /* bigger than the table: it empties, nothing enters */
		d->n = d->len = d->used = 0;
		return 0;
	}
	evict(d, size);
	if (d->n == d->offcap) {
		uint32_t c = MAX(8u, 2 * d->offcap);
		uint16_t *o = realloc(d->off, c * sizeof(*o));

		if (!o)
			return -1;
		d->off = o;
		d->offcap = c;
	}
	need = d->len + ENTRY_HEAD + (uint32_t)(nl + vl);
	if (need > d->size) {
		uint32_t sz = MAX(need, MIN(2 * d->size, d->max + ENTRY_HEAD * (d->max / ENTRY_OVERHEAD)));
		uint8_t *t = realloc(d->tab, MAX(sz, 64u));

		if (!t)
			return -1;
		d->tab = t;
		d->size = MAX(sz, 64u);
	}
	e = d->tab + d->len;
	e[0] = (uint8_t)(nl >> 8), e[1] = (uint8_t)nl, e[2] = (uint8_t)(vl >> 8), e[3] = (uint8_t)vl;
	memcpy(e + ENTRY_HEAD, n, nl);
	memcpy(e + ENTRY_HEAD + nl, v, vl);
	d->off[d->n++] = (uint16_t)d->len;
	d->len = need;
	d->used += size;
	return 0;
}

/* a literal (6.2): the name by index or in the block, then the value */
static int literal(struct hpd *d, struct rd *r, unsigned bits, int index, hpd_field_fn fn, void *arg)
{
	const uint8_t *n, *v, *dv;
	size_t nl, vl, dvl;
	uint64_t i;

	if (qint(r, bits, &i))
		return -1;
	if (i ? field_at(d, i, &n, &nl, &dv, &dvl) : rd_str(r, 7, 0x80, &n, &nl))
		return -1;
	if (rd_str(r, 7, 0x80, &v, &vl))
		return -1;
	fn(arg, n, nl, v, vl);
	if (index && i > HPK_STATIC_N) { /* WHY a copy: the name is in the table that insert() moves */
		uint8_t *c = (size_t)(r->scr_end - r->scr) >= nl ? r->scr : malloc(nl);
		int rv;

		if (!c)
			return -1;
		memcpy(c, n, nl);
		rv = insert(d, c, nl, v, vl);
		if (c != r->scr)
			free(c);
		return rv;
	}
	return index ? insert(d, n, nl, v, vl) : 0;
}

int hpd_decode(struct hpd *d, const uint8_t *p, size_t n, uint8_t *scratch, size_t cap, hpd_field_fn fn, void *arg)
{
	struct rd r = { p, p + n, scratch, scratch + cap };
	int fields = 0;

	while (r.p < r.end) {
		uint8_t b = *r.p;
		const uint8_t *fn_, *fv;
		size_t nl, vl;
		uint64_t i;

		r.scr = scratch; /* WHY: a field's strings are handed on before the next */
		if (b & 0x80) { /* indexed (6.1) */
			if (qint(&r, 7, &i) || field_at(d, i, &fn_, &nl, &fv, &vl))
				return -1;
			fn(arg, fn_, nl, fv, vl);
		} else if (b & 0x40) { /* with incremental indexing (6.2.1) */
			if (literal(d, &r, 6, 1, fn, arg))
				return -1;
		} else if (b & 0x20) { /* a size update (6.3): only before the first field (4.2) */
			if (fields || qint(&r, 5, &i) || i > d->cap)
				return -1;
			d->max = (uint32_t)i;
			evict(d, 0);
			continue;
		} else if (literal(d, &r, 4, 0, fn, arg)) { /* without indexing, never indexed (6.2.2, 6.2.3) */
			return -1;
		}
		fields++;
	}
	return 0;
}

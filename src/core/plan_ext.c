/* The plan's extension (H=, T=, hint=, random s=/d=, a bad item's reason): taken when a key needs it, kept per thread; the percent-decoding into it. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "plan.h"

/* WHY per thread and capped: a worker's streams take and give back on
 * its own thread, without a lock; past PLAN_EXT_KEEP a burst's are freed */
static __thread struct plan_ext *ext_free;
static __thread unsigned ext_nfree;

/* an extension with nothing in it */
static void ext_clear(struct plan_ext *e)
{
	e->dec_used = 0;
	e->spec_s[0] = e->spec_d[0] = 0;
	e->err[0] = 0;
	e->conn.set = 0;
	e->hint.vlen = 0;
}

struct plan_ext *plan_ext_need(struct plan *p)
{
	struct plan_ext *e = p->ext;

	if (e)
		return e;
	if (ext_free) {
		e = ext_free;
		ext_free = e->next;
		ext_nfree--;
	} else if (!(e = malloc(sizeof(*e)))) {
		return NULL;
	}
	ext_clear(e);
	return p->ext = e;
}

void plan_ext_put(struct plan_ext *e)
{
	if (ext_nfree >= PLAN_EXT_KEEP) {
		free(e);
		return;
	}
	e->next = ext_free;
	ext_free = e;
	ext_nfree++;
}

void plan_ext_thread_free(void)
{
	while (ext_free) {
		struct plan_ext *e = ext_free;

		ext_free = e->next;
		free(e);
	}
	ext_nfree = 0;
}

unsigned plan_ext_kept(void)
{
	return ext_nfree;
}

const char *plan_err(const struct plan *p)
{
	return p->ext && p->ext->err[0] ? p->ext->err : "out of memory for the reason\n";
}

int plan_why(struct plan *p, const char *why)
{
	struct plan_ext *e = plan_ext_need(p);
	size_t n;

	if (!e)
		return -1;
	n = MIN(strlen(why), sizeof(e->err) - 2);
	memcpy(e->err, why, n);
	e->err[n] = '\n';
	e->err[n + 1] = 0;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

char *plan_decode(struct plan_ext *p, const char *s, size_t len, size_t *olen,
			 const char **err)
{
	char *start = p->dec + p->dec_used, *o = start;
	char *end = p->dec + sizeof(p->dec);

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '%') {
			int h, l;

			if (i + 2 >= len)
				return *err = "truncated %-escape", NULL;
			h = hexval(s[i + 1]);
			l = hexval(s[i + 2]);
			if (h < 0 || l < 0)
				return *err = "bad %-escape", NULL;
			c = (unsigned char)(h << 4 | l);
			i += 2;
		}
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return *err = "control character in header", NULL;
		if (o == end)
			return *err = "too many header bytes", NULL;
		*o++ = (char)c;
	}
	*olen = (size_t)(o - start);
	p->dec_used += (uint32_t)*olen;
	return start;
}

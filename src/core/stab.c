/* A static header table's names to their indexes (HPACK's and QPACK's): open addressing, built once. */
#include <string.h>

#include "stab.h"

static unsigned name_hash(const uint8_t *n, size_t len)
{
	return (unsigned)(len * 7 + n[0] * 3 + n[len - 1] * 5 + (len > 2 ? n[len / 2] : 0)) % STAB_HASH;
}

void stab_build(struct stab *t, const char *const *names, unsigned n)
{
	memset(t, 0, sizeof(*t));
	t->names = names;
	t->n = n;
	for (int i = (int)n - 1; i >= 0; i--) {
		const uint8_t *nm = (const uint8_t *)names[i];
		unsigned h = name_hash(nm, strlen(names[i]));

		t->len[i] = (uint8_t)strlen(names[i]);
		/* WHY from the end, replacing the same name: the first index stays,
		 * the later ones chained behind it */
		while (t->first[h] && strcmp(names[t->first[h] - 1], names[i]))
			h = (h + 1) % STAB_HASH;
		t->next[i] = t->first[h];
		t->first[h] = (uint8_t)(i + 1);
	}
}

unsigned stab_find(const struct stab *t, const uint8_t *name, size_t len)
{
	if (!len)
		return 0;
	for (unsigned h = name_hash(name, len); t->first[h]; h = (h + 1) % STAB_HASH) {
		unsigned i = t->first[h] - 1;

		if (t->names[i][0] == (char)name[0] && t->len[i] == len && !memcmp(t->names[i], name, len))
			return i + 1;
	}
	return 0;
}

/* A static header table's names to their indexes (HPACK's and QPACK's): open addressing, built once. */
#ifndef HX_STAB_H
#define HX_STAB_H

#include <stddef.h>
#include <stdint.h>

#define STAB_MAX  128 /* entries a table may have */
#define STAB_HASH 256

struct stab {
	const char *const *names; /* index 0 to n - 1, a name repeated as the table repeats it */
	unsigned n;
	uint8_t len[STAB_MAX];    /* each name's length */
	uint8_t next[STAB_MAX];   /* the next entry of the same name, + 1; 0: none */
	uint8_t first[STAB_HASH]; /* a name's first entry, + 1; 0: empty */
};

/* <names>: <n> entries (n <= STAB_MAX), kept by reference */
void stab_build(struct stab *t, const char *const *names, unsigned n);

/* the first entry of the name, + 1; 0 when the table has none */
unsigned stab_find(const struct stab *t, const uint8_t *name, size_t len);

/* after entry <i> + 1 (what stab_find or this returned), the next of its name, + 1, or 0 */
static inline unsigned stab_next(const struct stab *t, unsigned i)
{
	return t->next[i - 1];
}

#endif

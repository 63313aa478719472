/* nghttp2's memory for hxload's sessions: a session's struct and its frame buffer's head in one page of a slab a thread maps, its stream map's table in a page; smaller blocks from the thread's pools by size. */
#include <nghttp2/nghttp2.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common.h"
#include "lc_h2_mem.h"
#include "szpool.h"

/* WHY slots, by size: nghttp2 1.52 takes three blocks a session for its
 * life that count here: its struct (calloc, 2928 bytes), its stream map's
 * table (calloc, 4096: read whole at each SETTINGS that changes the initial
 * window, and on this host's kernel a page read is a page held) and its
 * frame buffer (16394: a client's frames, small, write its first few hundred
 * bytes). Out of glibc's heap they were 13.8 KiB resident a mostly idle h2c
 * connection at -c 10000, each of those pages shared with neighbours that
 * wrote it. Here the struct and the frame buffer's head share one page of
 * a slab of five, whose other four no client frame reaches; smaller blocks
 * stay in the thread's pools by size class (szpool), where a slot would
 * round each up: a request's dozen blocks (its stream, frames, header
 * fields) cost less there than glibc's malloc and free */
#define H2M_PAGE 4096u
#define H2M_SLAB (5 * H2M_PAGE)
#define H2M_HEAD 3696u /* a slab's first block; the buffer's head after it, its first 400 bytes in page 0 */

/* a class: its blocks' sizes (lo, hi], its mapping, a slot's place and stride */
static const struct cls {
	size_t lo, hi;
	uint8_t map;
	uint32_t off, stride;
} cls[] = {
	{ H2M_HEAD / 2, H2M_HEAD, 0, 0, H2M_SLAB },                    /* a slab's head: the session */
	{ H2M_HEAD, H2M_PAGE, 1, 0, H2M_PAGE },                        /* a page: the stream map's table */
	{ H2M_PAGE, H2M_SLAB - H2M_HEAD, 0, H2M_HEAD, H2M_SLAB },      /* a slab's rest: the frame buffer */
};
#define H2M_CLASSES ARRAY_SIZE(cls)

/* a class's slots, taken in order, then from the freed ones */
struct slots {
	uint32_t used, nfree;
	uint32_t *freed;             /* indices of freed slots: their pages are dirty */
};

struct h2m_arena {
	nghttp2_mem mem;             /* its mem_user_data: this arena */
	uint32_t n;                  /* slots a class */
	char *map[2];                /* slabs, pages: n of each */
	uintptr_t span[2];           /* their bytes */
	struct slots c[H2M_CLASSES];
};

static pthread_key_t key;
static int key_made;

/* the class of a block of <size> bytes, -1: malloc's.
 * WHY the first test: most of nghttp2's blocks are a request's, small and
 * short-lived (its stream, frames, header fields), and go at once */
static inline int cls_of(size_t size)
{
	if (size <= cls[0].lo)
		return -1;
	for (size_t k = 0; k < H2M_CLASSES; k++)
		if (size > cls[k].lo && size <= cls[k].hi)
			return (int)k;
	return -1;
}

/* the class <p> lies in, -1: malloc's; <*i>: its slot */
static inline int owner(const struct h2m_arena *a, const void *p, uint32_t *i)
{
	uintptr_t d = (uintptr_t)p - (uintptr_t)a->map[0];

	if (d < a->span[0]) { /* a slab: its head or the rest */
		*i = (uint32_t)(d / H2M_SLAB);
		return d % H2M_SLAB == 0 ? 0 : d % H2M_SLAB == H2M_HEAD ? 2 : -1;
	}
	d = (uintptr_t)p - (uintptr_t)a->map[1];
	*i = (uint32_t)(d / H2M_PAGE);
	return d < a->span[1] ? 1 : -1;
}

/* a slot of class <k>, or NULL (all taken); <*dirty>: it served before */
static void *slot_take(struct h2m_arena *a, int k, int *dirty)
{
	struct slots *s = &a->c[k];
	uint32_t i;

	*dirty = s->nfree > 0;
	if (s->nfree)
		i = s->freed[--s->nfree];
	else if (s->used < a->n)
		i = s->used++;
	else
		return NULL;
	return a->map[cls[k].map] + (size_t)i * cls[k].stride + cls[k].off;
}

static void *h2m_malloc(size_t size, void *user)
{
	int k = cls_of(size), dirty;
	void *p = k < 0 ? NULL : slot_take(user, k, &dirty);

	return p ? p : szp_malloc(size);
}

static void h2m_free(void *p, void *user)
{
	struct h2m_arena *a = user;
	uint32_t i;
	int k = owner(a, p, &i);

	if (k < 0)
		szp_free(p);
	else
		a->c[k].freed[a->c[k].nfree++] = i;
}

static void *h2m_calloc(size_t n, size_t size, void *user)
{
	int k, dirty;
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	if ((k = cls_of(n * size)) < 0 || !(p = slot_take(user, k, &dirty)))
		dirty = (p = szp_malloc(n * size)) != NULL;
	if (dirty) /* WHY only then: a fresh slot is the kernel's zero pages, untouched */
		memset(p, 0, n * size);
	return p;
}

static void *h2m_realloc(void *p, size_t size, void *user)
{
	struct h2m_arena *a = user;
	uint32_t i;
	int k = p ? owner(a, p, &i) : -1;
	void *q;

	if (!p)
		return h2m_malloc(size, user);
	if (k < 0) /* WHY: a block born in the pools stays there */
		return szp_realloc(p, size);
	if (cls_of(size) == k)
		return p;
	if ((q = h2m_malloc(size, user)))
		memcpy(q, p, MIN(size, cls[k].hi));
	if (q || !size)
		h2m_free(p, user);
	return q;
}

static const size_t map_stride[2] = { H2M_SLAB, H2M_PAGE };

static void arena_free(void *v)
{
	struct h2m_arena *a = v;

	for (size_t m = 0; m < 2; m++)
		if (a->map[m])
			munmap(a->map[m], a->span[m]);
	for (size_t k = 0; k < H2M_CLASSES; k++)
		free(a->c[k].freed);
	free(a);
}

/* an arena of <n> slots a class, or NULL */
static struct h2m_arena *arena_new(uint32_t n)
{
	struct h2m_arena *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->mem = (nghttp2_mem){ a, h2m_malloc, h2m_free, h2m_calloc, h2m_realloc };
	a->n = n;
	for (size_t m = 0; m < 2; m++) {
		/* WHY MAP_NORESERVE: address space only; a page counts once touched */
		void *p = mmap(NULL, (size_t)n * map_stride[m], PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		a->map[m] = p == MAP_FAILED ? NULL : p;
		a->span[m] = p == MAP_FAILED ? 0 : (uintptr_t)n * map_stride[m];
	}
	for (size_t k = 0; k < H2M_CLASSES; k++)
		a->c[k].freed = malloc((size_t)n * sizeof(uint32_t));
	for (size_t k = 0; k < H2M_CLASSES; k++)
		if (!a->map[cls[k].map] || !a->c[k].freed) {
			arena_free(a);
			return NULL;
		}
	return a;
}

int lc_h2_mem_init(void)
{
	if (!SZP_POOLED || key_made)
		return 0;
	if (pthread_key_create(&key, arena_free))
		return -1;
	key_made = 1;
	return 0;
}

void lc_h2_mem_free(void)
{
	if (key_made)
		pthread_key_delete(key);
	key_made = 0;
}

nghttp2_mem *lc_h2_mem(uint32_t sessions)
{
	struct h2m_arena *a;

	if (!key_made)
		return NULL;
	if ((a = pthread_getspecific(key)))
		return &a->mem;
	if (!(a = arena_new(sessions)) || pthread_setspecific(key, a)) {
		if (a)
			arena_free(a);
		return NULL;
	}
	return &a->mem;
}

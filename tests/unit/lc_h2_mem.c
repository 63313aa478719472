/* Unit tests of hxload's nghttp2 allocator (lc_h2_mem): a session's struct and frame buffer in one slab, the map's page, reuse zeroed for calloc, the pools when the slots are full, realloc across classes, a real session on it. */
#include <nghttp2/nghttp2.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "lc_h2_mem.h"
#include "szpool.h"
#include "tap.h"

#define SLOTS 2

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* nghttp2 1.52's three long-lived blocks: struct, map table, frame buffer */
static void slots(nghttp2_mem *m)
{
	unsigned char *s = m->calloc(1, 2928, m->mem_user_data);
	unsigned char *t = m->calloc(256, 16, m->mem_user_data);
	unsigned char *f = m->realloc(NULL, 16394, m->mem_user_data);
	unsigned char *s2;

	ok(s && (uintptr_t)s % 4096 == 0 && all_zero(s, 2928), "the struct: a slab's head, zeroed");
	ok(f == s + 3696, "the frame buffer right after it, in the same slab (its head in the struct's page)");
	ok(t && (uintptr_t)t % 4096 == 0 && all_zero(t, 4096) && (t < s || t >= s + 20480), "the map's table: a page of its own, zeroed");
	memset(s, 0xa5, 2928);
	memset(f, 0x5a, 16394);
	m->free(s, m->mem_user_data);
	s2 = m->calloc(1, 2900, m->mem_user_data);
	ok(s2 == s && all_zero(s2, 2900), "a freed slot is taken again, and calloc zeroes it");
	ok(f[0] == 0x5a && f[16393] == 0x5a, "its neighbour in the slab kept its bytes");
	ok(m->realloc(f, 16000, m->mem_user_data) == f, "realloc within the class keeps the block");
	f = m->realloc(f, 30000, m->mem_user_data);
	ok(f && f[0] == 0x5a && f[15999] == 0x5a, "realloc past it moves the bytes to the pools");
	m->free(f, m->mem_user_data);
	m->free(s2, m->mem_user_data);
	m->free(t, m->mem_user_data);
}

/* more blocks than slots: the rest from the pools, and each goes back */
static void full(nghttp2_mem *m)
{
	void *b[SLOTS + 2];
	int good = 1;

	for (int i = 0; i < SLOTS + 2; i++) {
		b[i] = m->malloc(3000, m->mem_user_data);
		good &= b[i] != NULL;
		if (b[i])
			memset(b[i], i, 3000);
	}
	ok(good && (char *)b[1] == (char *)b[0] + 20480, "a class's slots, a slab apart");
	ok((char *)b[SLOTS] != (char *)b[SLOTS - 1] + 20480 && b[SLOTS + 1] != NULL, "past its slots a class takes from the pools");
	for (int i = 0; i < SLOTS + 2; i++)
		m->free(b[i], m->mem_user_data);
	m->free(NULL, m->mem_user_data);
	ok(m->calloc(SIZE_MAX / 2, 4, m->mem_user_data) == NULL, "calloc refuses a size that overflows");
}

/* a client session made, used and freed on it */
static void session(nghttp2_mem *m)
{
	nghttp2_session_callbacks *cb;
	nghttp2_session *s;
	nghttp2_settings_entry iv[] = { { NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1U << 30 } };
	nghttp2_nv nv[] = { { (uint8_t *)":method", (uint8_t *)"GET", 7, 3, 0 },
			    { (uint8_t *)":path", (uint8_t *)"/", 5, 1, 0 },
			    { (uint8_t *)":scheme", (uint8_t *)"http", 7, 4, 0 },
			    { (uint8_t *)":authority", (uint8_t *)"a", 10, 1, 0 } };
	const uint8_t *out;
	ssize_t n, total = 0;

	nghttp2_session_callbacks_new(&cb);
	ok(!nghttp2_session_client_new3(&s, cb, NULL, NULL, m), "a client session on it");
	nghttp2_submit_settings(s, NGHTTP2_FLAG_NONE, iv, 1);
	ok(nghttp2_submit_request(s, NULL, nv, 4, NULL, NULL) == 1, "a request submitted");
	while ((n = nghttp2_session_mem_send(s, &out)) > 0)
		total += n;
	ok(n == 0 && total > 24 + 9, "its preface, SETTINGS and HEADERS written (%zd bytes)", total);
	nghttp2_session_del(s);
	nghttp2_session_callbacks_del(cb);
}

static void *run(void *arg)
{
	nghttp2_mem *m = lc_h2_mem(SLOTS);

	(void)arg;
	if (!SZP_POOLED) {
		ok(m == NULL, "under ASan nghttp2 keeps its own allocator");
		return NULL;
	}
	ok(m != NULL && lc_h2_mem(SLOTS) == m, "a thread's allocator, the same at its next session");
	if (!m)
		return NULL;
	slots(m);
	full(m);
	session(m);
	szp_drain();
	return NULL;
}

int main(void)
{
	pthread_t th;

	ok(lc_h2_mem_init() == 0, "made");
	/* WHY a thread: its slots go at its exit */
	pthread_create(&th, NULL, run, NULL);
	pthread_join(th, NULL);
	lc_h2_mem_free();
	return done_testing();
}

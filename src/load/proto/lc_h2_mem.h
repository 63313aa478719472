/* hxload's HTTP/2 client, private: nghttp2's allocator of a thread's sessions (lc_h2_mem.c). */
#ifndef HX_LC_H2_MEM_H
#define HX_LC_H2_MEM_H

#include <nghttp2/nghttp2.h>
#include <stdint.h>

/* before the threads start: 0, or -1 */
int lc_h2_mem_init(void);
/* after they end (each thread's slots went at its exit) */
void lc_h2_mem_free(void);
/* the allocator of this thread's sessions, made at its first for up to
 * <sessions> of them at once (more: malloc's), or NULL: nghttp2's own
 * (under ASan, which should see each block, or out of address space) */
nghttp2_mem *lc_h2_mem(uint32_t sessions);

#endif

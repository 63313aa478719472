/* nghttp3's memory from per-thread pools by size class: a request's six short-lived blocks without malloc. */
#ifndef HX_QH3MEM_H
#define HX_QH3MEM_H

#include <nghttp3/nghttp3.h>

/* the allocator for nghttp3_conn_server_new() on this thread, or NULL
 * (nghttp3's malloc) in an ASan build. Blocks must be freed on the thread
 * that took them, as a connection lives and dies on its worker. */
const nghttp3_mem *qh3mem(void);
/* the pooled allocator itself, in every build (its unit test) */
extern const nghttp3_mem qh3mem_pools;
/* the blocks this thread's pools keep, back to malloc (its last connection is gone) */
void qh3mem_drain(void);

#endif

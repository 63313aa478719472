/* Blocks from per-thread pools by size class, for libraries that take many short-lived blocks (nghttp3 a request, OpenSSL a handshake). */
#ifndef HX_SZPOOL_H
#define HX_SZPOOL_H

#include <stddef.h>

/* classes: 16 to 128 bytes 16 apart, then 8 a doubling up to SZP_MAX;
 * a bigger block is malloc's own */
#define SZP_MAX     32768
#define SZP_CLASSES 72

/* WHY its users hand their library malloc's own under ASan: a pooled block
 * freed and reused is a use after free that ASan would no longer see, in
 * the library or in our callbacks (szpool itself is tested in every build) */
#if defined(__SANITIZE_ADDRESS__)
#define SZP_POOLED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SZP_POOLED 0
#endif
#endif
#ifndef SZP_POOLED
#define SZP_POOLED 1
#endif

/* a block of <size> bytes aligned as malloc's, or NULL; from this thread's
 * pool of its class when it has one. WHY no header: a block is malloc's
 * own, its class read back from malloc_usable_size() when freed (an idle
 * TLS connection holds ~35 of OpenSSL's blocks: 16 bytes each was 0.56 KiB) */
void *szp_malloc(size_t size);
/* <p> (or NULL), any block malloc gave, to this thread's pool of the
 * largest class it holds, or to free() past the classes or when that pool
 * holds its bound; any thread may free a block any other took */
void szp_free(void *p);
/* as realloc(): <p> kept while <size> stays in its class */
void *szp_realloc(void *p, size_t size);
/* the bytes <size> takes in its class (its class's size), or <size> past the classes */
size_t szp_class_size(size_t size);
/* the blocks this thread's pools keep, back to malloc (at its end) */
void szp_drain(void);
/* how many free blocks this thread's pools keep */
size_t szp_kept(void);

#endif

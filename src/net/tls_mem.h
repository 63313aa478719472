/* OpenSSL's memory from per-thread pools by size class (szpool), for a program that makes many handshakes. */
#ifndef HX_TLS_MEM_H
#define HX_TLS_MEM_H

/* OpenSSL's allocations go to szpool from now on: call it before OpenSSL's
 * first. 1 when they do, 0 when they keep malloc (an ASan build), -1 when
 * OpenSSL had already allocated (too late: it refuses) */
int tls_mem_init(int pooled_now);
/* the pools from now on; before, each block is malloc's own with its exact
 * size (a server's set-up: thousands of blocks that live as long as it
 * does, which the classes' rounding made 220 KB bigger), and those freed
 * leave the calling thread's pools here. Call it before the threads that
 * use OpenSSL start, in the thread that set up */
void tls_mem_pooled(void);

#endif

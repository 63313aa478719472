/* OpenSSL's memory from per-thread pools by size class (szpool), for a program that makes many handshakes. */
#ifndef HX_TLS_MEM_H
#define HX_TLS_MEM_H

/* OpenSSL's allocations go to szpool from now on: call it before OpenSSL's
 * first. 1 when they do, 0 when they keep malloc (an ASan build), -1 when
 * OpenSSL had already allocated (too late: it refuses) */
int tls_mem_init(void);

#endif

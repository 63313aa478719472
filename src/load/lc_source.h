/* hxload's --source: the local addresses connections come from. */
#ifndef HX_LC_SOURCE_H
#define HX_LC_SOURCE_H

#include <stddef.h>
#include <stdint.h>

/* Reads --source (ADDR, A-B, A.B.C.D/N, comma-separated): 0, or -1 with one
 * line in <why>. */
int lc_source_parse(const char *spec, char *why, size_t len);
/* every source is of the target's <family>: 0, or -1 with one line */
int lc_source_check(int family, char *why, size_t len);
/* how many sources (0: none given, the kernel picks) */
uint32_t lc_sources(void);
/* binds <fd> to the <k>-th source (modulo their count), its port left to
 * connect(); 0 when none was given; -1 (errno) when bind fails */
int lc_source_bind(int fd, uint32_t k);
/* a connect() found no local port (EADDRNOTAVAIL): one line, once, naming
 * the kernel's port range */
void lc_source_exhausted(void);

#endif

/* hxload's cache-hit accounting: which answers a cache in front gave again, told by hxterm's X-Hxterm-Made and X-rsp. */
#ifndef HX_LC_HITS_H
#define HX_LC_HITS_H

#include <stddef.h>
#include <stdint.h>

struct lc_ex;

/* X-Hxterm-Made (the epoch us hxterm made the answer; sent with a cache
 * key) into <e>: 0 when absent or not a number */
void lc_made(struct lc_ex *e, const char *v, size_t len);
/* <e>'s answer: 1 a hit (its X-Hxterm-Made and X-rsp repeat an answer
 * already seen, on any thread), 0 a miss (the first of them), -1 neither
 * (no X-Hxterm-Made: no cache key, nothing to tell a hit by) */
int lc_hit(const struct lc_ex *e);

#endif

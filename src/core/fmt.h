/* Integer and time formatting straight into an output buffer: no snprintf on the hot path. */
#ifndef HX_FMT_H
#define HX_FMT_H

#include <stdint.h>
#include <string.h>

/* Each writer stores at <p> and returns the end of what it wrote. The caller
 * guarantees room: 20 bytes for a u64, 16 for hex, 24 for a ms time. */
char *fmt_u64(char *p, uint64_t v);
char *fmt_hex(char *p, uint64_t v);
char *fmt_ms3(char *p, int64_t ns);

static inline char *fmt_mem(char *p, const void *s, size_t len)
{
	memcpy(p, s, len);
	return p + len;
}

#define fmt_lit(p, s) fmt_mem((p), (s), sizeof(s) - 1)

#endif

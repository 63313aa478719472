/* libFuzzer driver: the figures server's request-head reader (--stats, --metrics), on the whole input and on each prefix of a head it takes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hsrv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int known(int status)
{
	return status == 0 || status == 200 || status == 400 || status == 405 || status == 414 || status == 431;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[HSRV_HEAD_MAX];
	struct hsrv_line l, p;

	/* WHY the bound: the server reads at most this much, NUL-terminated */
	if (size > HSRV_HEAD_MAX - 1)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	hsrv_parse(buf, size, &l);
	if (!known(l.status) || (l.status && l.status != 200 && (!l.why || !strchr(l.why, '\n'))))
		abort();
	if (l.status == 200 && (l.path[0] != '/' || strlen(l.path) >= sizeof(l.path) || l.query < l.path ||
				l.query > l.path + sizeof(l.path) - 1))
		abort();
	/* WHY: a head it takes was waited for at every shorter prefix (nothing
	 * answered before the end of the head) */
	for (size_t k = 0; l.status == 200 && k + 4 <= size && memcmp(data + k, "\r\n\r\n", 4); k++) {
		buf[k] = 0;
		hsrv_parse(buf, k, &p);
		if (p.status)
			abort();
		buf[k] = (char)data[k];
	}
	return 0;
}

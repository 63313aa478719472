/* LD_PRELOAD for tests: malloc() of exactly HX_FAIL_SIZE bytes fails while the file HX_FAIL_ARM exists. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

void *malloc(size_t n)
{
	static void *(*real)(size_t);
	static size_t fail;
	static const char *arm;

	if (!real) {
		const char *s = getenv("HX_FAIL_SIZE");

		real = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
		fail = s ? (size_t)strtoul(s, NULL, 10) : 0;
		arm = getenv("HX_FAIL_ARM");
	}
	if (fail && n == fail && arm && access(arm, F_OK) == 0) {
		errno = ENOMEM;
		return NULL;
	}
	return real(n);
}

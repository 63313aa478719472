/* Invariant checks: BUG_ON(cond) stops the process with the file and line, in the sanitized, TSan and DEBUG=1 builds. */
#ifndef HX_BUG_H
#define HX_BUG_H

#include <stdio.h>
#include <stdlib.h>

#ifdef HX_DEBUG
#define BUG_ON(cond) do { \
	if (__builtin_expect(!!(cond), 0)) { \
		fprintf(stderr, "BUG at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		abort(); \
	} \
} while (0)
#else
/* WHY sizeof: the condition still compiles (and its names stay used), but
 * it is never evaluated in a release build */
#define BUG_ON(cond) ((void)sizeof(!!(cond)))
#endif

#endif

/* One-line messages on stderr: errors always, notices unless -q, traces with -d. */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

int log_quiet;
int log_traces;

static void vlog(const char *fmt, va_list ap)
{
	char line[512];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "hxterm: %s\n", line);
}

void log_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	if (log_quiet)
		return;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_traces)
		return;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

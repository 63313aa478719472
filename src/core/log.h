/* One-line messages on stderr: errors always, notices unless -q, traces with -d. */
#ifndef HX_LOG_H
#define HX_LOG_H

/* set once at start-up, before any thread: -q and -d */
extern int log_quiet;  /* no notices */
extern int log_traces; /* debug traces */

void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

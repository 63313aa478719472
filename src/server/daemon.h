/* Running as a service: an honest -D, --pidfile, sd_notify. */
#ifndef HX_DAEMON_H
#define HX_DAEMON_H

/* -D: forks at once; the parent waits for the child's word and exits 0 when
 * it is serving, or with the child's status (2) after its error line. The
 * child returns 0, or -1 when it could not fork. */
int daemon_start(void);
/* --pidfile <file> (NULL: none) opened and locked, before serving: -1
 * with its error line when a running instance holds it (unless --finish or
 * --terminate names that instance) */
int daemon_pidfile(const char *file);
/* Serving: writes our pid to the pid file, tells NOTIFY_SOCKET READY=1,
 * and under -D lets the parent go (stdio to /dev/null). 0 or -1. */
int daemon_ready(void);
/* The drain started: STOPPING=1 to NOTIFY_SOCKET */
void daemon_stopping(void);
/* At exit: the pid file removed, when it still names us and no other holds it */
void daemon_end(void);

#endif

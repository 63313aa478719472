/* Running as a service: an honest -D, --pidfile, sd_notify. */
#ifndef HX_DAEMON_H
#define HX_DAEMON_H

/* -D: forks at once; the parent waits for the child's word and exits 0 when
 * it is serving, or with the child's status (2) after its error line. The
 * child returns 0, or -1 when it could not fork. */
int daemon_start(void);
/* Serving: writes --pidfile <file> (NULL: none), tells NOTIFY_SOCKET
 * READY=1, and under -D lets the parent go (stdio to /dev/null). 0 or -1. */
int daemon_ready(const char *file);
/* The drain started: STOPPING=1 to NOTIFY_SOCKET */
void daemon_stopping(void);
/* At exit: the pid file removed */
void daemon_end(void);

#endif

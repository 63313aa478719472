/* Running as a service: -D that detaches only once serving (a start-up error reaches the caller), --pidfile, sd_notify. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "daemon.h"
#include "log.h"

static int word_fd = -1;       /* -D: the pipe to the waiting parent */
static const char *pidfile;
static int pid_fd = -1;        /* --pidfile, open and locked while we run */

int daemon_start(void)
{
	int p[2], status = 0;
	pid_t pid;
	char code = 1;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		log_err("-D: cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid) {
		/* WHY the parent waits: its exit status is what the caller sees */
		close(p[1]);
		do
			n = read(p[0], &code, 1);
		while (n < 0 && errno == EINTR);
		if (n == 1 && code == 0)
			_exit(0);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		_exit(WIFEXITED(status) && WEXITSTATUS(status) ? WEXITSTATUS(status) : 2);
	}
	close(p[0]);
	word_fd = p[1];
	setsid();
	return 0;
}

/* NOTIFY_SOCKET (systemd's datagram protocol): "READY=1" and the like */
static void notify(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un su = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd;

	if (!path || !*path || strlen(path) >= sizeof(su.sun_path))
		return;
	memcpy(su.sun_path, path, strlen(path));
	if (su.sun_path[0] == '@')
		su.sun_path[0] = 0; /* an abstract socket */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&su, len) < 0 && cfg.debug)
		log_debug("NOTIFY_SOCKET %s: %s", path, strerror(errno));
	close(fd);
}

/* the pid the file names, or 0 */
static int pid_in_file(int fd)
{
	char buf[24] = { 0 };

	if (pread(fd, buf, sizeof(buf) - 1, 0) <= 0)
		return 0;
	return atoi(buf);
}

static int replacing(int pid)
{
	for (int i = 0; i < cfg.nreplace; i++)
		if (cfg.replace_pids[i] == pid)
			return 1;
	return 0;
}

int daemon_pidfile(const char *file)
{
	int holder;

	if (!file)
		return 0;
	if ((pid_fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		log_err("--pidfile %s: %s", file, strerror(errno));
		return -1;
	}
	pidfile = file;
	if (!flock(pid_fd, LOCK_EX | LOCK_NB))
		return 0;
	holder = pid_in_file(pid_fd);
	/* WHY: --finish/--terminate replace the instance that holds it; the
	 * file is ours once written, the lock once that one is gone */
	if (errno == EWOULDBLOCK && holder && replacing(holder))
		return 0;
	log_err("--pidfile %s: held by a running hxterm (pid %d); --finish %d replaces it", file, holder, holder);
	close(pid_fd);
	pid_fd = -1;
	pidfile = NULL;
	return -1;
}

static int pidfile_write(void)
{
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

	if (ftruncate(pid_fd, 0) < 0 || pwrite(pid_fd, buf, (size_t)n, 0) != n) {
		log_err("--pidfile %s: %s", pidfile, strerror(errno));
		return -1;
	}
	return 0;
}

int daemon_ready(void)
{
	char buf[64];

	if (pid_fd >= 0 && pidfile_write() < 0)
		return -1;
	snprintf(buf, sizeof(buf), "READY=1\nMAINPID=%d", (int)getpid());
	notify(buf);
	if (word_fd >= 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		char zero = 0;

		if (null >= 0) {
			dup2(null, 0), dup2(null, 1), dup2(null, 2);
			close(null);
		}
		if (write(word_fd, &zero, 1) < 0)
			return -1;
		close(word_fd);
		word_fd = -1;
	}
	return 0;
}

void daemon_stopping(void)
{
	notify("STOPPING=1");
}

void daemon_end(void)
{
	/* WHY both checks: only the instance the file names removes it, and
	 * only once no other holds the lock (a replacing one wrote its pid) */
	if (pid_fd >= 0 && !flock(pid_fd, LOCK_EX | LOCK_NB) && pid_in_file(pid_fd) == (int)getpid())
		unlink(pidfile);
	if (pid_fd >= 0)
		close(pid_fd);
	pid_fd = -1;
}

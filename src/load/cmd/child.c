/* hxload running itself: one --json run as a child process (ab's rounds, find's steps), its exit status and CPU time, and the folder their files are kept in. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "lc_cmd.h"

int lc_child(char *const *args, const char *out, const char *err, uint64_t *cpu_us)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), status;
	int efd = err ? open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	struct rusage ru;
	pid_t pid;

	if (fd < 0 || (err && efd < 0) || (pid = fork()) < 0) {
		if (fd >= 0)
			close(fd);
		if (efd >= 0)
			close(efd);
		return -1;
	}
	if (!pid) {
		dup2(fd, 1);
		if (efd >= 0)
			dup2(efd, 2);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	close(fd);
	if (efd >= 0)
		close(efd);
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	if (cpu_us)
		*cpu_us = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
			  (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

const char *lc_keep_dir(const char *who, const char *keep)
{
	static char made[64];

	if (!keep) {
		snprintf(made, sizeof(made), "hxload-%s-%ld", who, (long)time(NULL));
		keep = made;
	}
	if (mkdir(keep, 0755) < 0 && (errno != EEXIST || !is_dir(keep))) {
		fprintf(stderr, "hxload %s: --keep %s: %s\n", who, keep, strerror(errno == EEXIST ? ENOTDIR : errno));
		return NULL;
	}
	return keep;
}

/* /proc/<pid>/stat into <buf>: its fields from the state on (the third),
 * or NULL. WHY after the last ')': the command name may hold spaces */
static const char *proc_stat(int pid, char *buf, size_t len)
{
	char path[64], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!(f = fopen(path, "r")))
		return NULL;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	return (p = strrchr(buf, ')')) && p[1] ? p + 2 : NULL;
}

uint64_t lc_proc_cpu_us(int pid)
{
	char buf[1024];
	const char *p;
	unsigned long long ut, st;
	clockid_t id;
	struct timespec ts;

	/* WHY the process's CPU clock first: /proc's figure moves by 10 ms ticks
	 * and lags: a 1 s interval in which the server ran 20.6 ms by its clock
	 * read 0 there, and a run whose intervals all read 0 has no server CPU
	 * to compare (32-compare failed so once); the clock is the same time to
	 * the ns, its exited threads' included */
	if (!clock_getcpuclockid(pid, &id) && !clock_gettime(id, &ts))
		return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
	if (!(p = proc_stat(pid, buf, sizeof(buf))) || sscanf(p, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return 0;
	return (ut + st) * 1000000ULL / (uint64_t)sysconf(_SC_CLK_TCK);
}

int lc_proc_cpus(int pid)
{
	char buf[1024];
	const char *p = proc_stat(pid, buf, sizeof(buf));
	cpu_set_t set;
	int threads = 0;

	/* the threads are the 20th field, the 18th from the state on */
	if (!p || sched_getaffinity(pid, sizeof(set), &set) < 0 ||
	    sscanf(p, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %d", &threads) != 1)
		return 0;
	return MIN(CPU_COUNT(&set), threads);
}

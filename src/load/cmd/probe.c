/* hxload --probe: a reference probe beside the load, run as a child hxload at its own low rate on its own connection, its figures read back for the report. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"
#include "lc_cmd.h"
#include "lc_opts.h"
#include "lc_stats.h"

static pid_t child = -1;
static char out[64];

void lc_probe_start(void)
{
	char **args;
	int fd;

	if (!lc_o->probe)
		return;
	snprintf(out, sizeof(out), "/tmp/hxload-probe-XXXXXX");
	if ((fd = mkstemp(out)) < 0)
		lc_die("--probe: cannot make its file in /tmp: %s", strerror(errno));
	args = lc_probe_argv(lc_o->start_at);
	if ((child = fork()) < 0)
		lc_die("--probe: %s", strerror(errno));
	if (!child) {
		dup2(fd, 1);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	close(fd);
	free(args);
}

/* <j>.<obj>.<key>, or 0 */
static double num_in(const struct json *j, const char *obj, const char *key)
{
	const struct json *o = json_get(j, obj);

	return o ? json_num(o, key, 0) : 0;
}

void lc_probe_finish(struct lc_probe *p)
{
	struct json *j = NULL;
	const char *err;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	memset(p, 0, sizeof(*p));
	if (child < 0)
		return;
	p->rate = lc_o->probe;
	/* WHY: the load may end before its duration (-n, an interrupt); the
	 * probe then stops with it and reports what it measured */
	kill(child, SIGINT);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	if ((f = fopen(out, "r"))) {
		text = malloc(1 << 22);
		len = text ? fread(text, 1, (1 << 22) - 1, f) : 0;
		fclose(f);
	}
	unlink(out);
	if (text) {
		text[len] = 0;
		j = json_parse(text, &err);
	}
	if (j) {
		p->ok = 1;
		p->requests = (uint64_t)json_num(j, "requests", 0);
		p->errors = (uint64_t)json_num(j, "errors_total", 0);
		p->p50 = num_in(j, "latency_ms", "p50");
		p->p90 = num_in(j, "latency_ms", "p90");
		p->p99 = num_in(j, "latency_ms", "p99");
		p->p999 = num_in(j, "latency_ms", "p999");
		p->max = num_in(j, "latency_ms", "max");
	} else {
		fprintf(stderr, "hxload: --probe: its run gave no figures\n");
	}
	json_free(j);
	free(text);
}

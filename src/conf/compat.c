/* haterm's and httpterm's options and httpterm's -f file mapped onto hxterm's options: what has a meaning here is rewritten, the rest refused by name, nothing ignored. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "log.h"

int compat_accept_proxy;

/* the vector being built */
struct vec {
	char **v;
	int n, cap;
};

static int push(struct vec *o, const char *s)
{
	char *d = strdup(s);

	if (!d)
		return log_err("out of memory reading the command line"), -1;
	if (o->n + 2 > o->cap) {
		int cap = o->cap ? o->cap * 2 : 32;
		char **nv = realloc(o->v, (size_t)cap * sizeof(*nv));

		if (!nv) {
			free(d);
			return log_err("out of memory reading the command line"), -1;
		}
		o->v = nv;
		o->cap = cap;
	}
	o->v[o->n++] = d;
	o->v[o->n] = NULL;
	return 0;
}

static int push2(struct vec *o, const char *a, const char *b)
{
	return push(o, a) < 0 ? -1 : push(o, b);
}

/* a decimal number of 1 to 9 digits */
static int is_num(const char *s)
{
	size_t n = strspn(s, "0123456789");

	return n && n < 10 && !s[n];
}

/* ---------- haterm ---------- */

/* -G <line>: a line of haterm's "global" section */
static int map_global(struct vec *o, const char *line)
{
	char key[64], val[64], extra[8];
	int n = sscanf(line, " %63s %63s %7s", key, val, extra);

	if (n == 1 && !strcmp(key, "limited-quic"))
		return 0; /* WHY: hxterm's QUIC is always on, no experimental gate */
	if (n == 2 && !strcmp(key, "nbthread") && is_num(val))
		return push2(o, "-t", val);
	if (n == 2 && !strcmp(key, "maxconn") && is_num(val))
		return push2(o, "-n", val);
	return log_err("-G '%s': no hxterm setting matches (it maps nbthread <n>, maxconn <n>, limited-quic)",
		       line), -1;
}

/* --tcp-bind-opts / --quic-bind-opts: bind-line options */
static int map_bind(const char *opt, const char *words, int tcp)
{
	char buf[512], *sv, *w;

	snprintf(buf, sizeof(buf), "%s", words);
	for (w = strtok_r(buf, " \t", &sv); w; w = strtok_r(NULL, " \t", &sv)) {
		if (tcp && !strcmp(w, "accept-proxy")) {
			compat_accept_proxy = 1;
			continue;
		}
		return log_err("%s '%s': no hxterm setting matches '%s'%s", opt, words, w,
			       tcp ? " (it maps accept-proxy)" : " (hxterm's QUIC has its own options, -h)"), -1;
	}
	return 0;
}

/* ---------- httpterm's -f file ---------- */

struct cfgfile {
	const char *path;
	int line;
	int in_listen;       /* 0: global, 1: a listen section, 2: a disabled one */
	char listen[300];    /* the current section's address */
	char defaults[256];  /* its one object line, as query items */
	int objects;
};

static int cfg_err(const struct cfgfile *f, const char *what, const char *hint)
{
	return log_err("-f %s line %d: '%s': %s", f->path, f->line, what, hint), -1;
}

/* "object weight 1 name x code 200 size 100 time 50 no-cache": query items */
static int cfg_object(struct cfgfile *f, char **w, int n)
{
	char *d = f->defaults;
	size_t room = sizeof(f->defaults);

	if (++f->objects > 1)
		return cfg_err(f, "object", "hxterm has one set of --defaults for every listener: keep one object line");
	d[0] = 0;
	for (int i = 1; i < n; i++) {
		const char *k = w[i];
		const char *key = !strcmp(k, "code") ? "r" : !strcmp(k, "size") ? "s" : !strcmp(k, "time") ? "t" : NULL;

		if (!strcmp(k, "no-cache")) {
			strncat(d, *d ? "&c=0" : "c=0", room - strlen(d) - 1);
		} else if ((!strcmp(k, "weight") || !strcmp(k, "name")) && i + 1 < n) {
			i++; /* WHY: one object, no weighted choice */
		} else if (key && i + 1 < n && is_num(w[i + 1])) {
			size_t l = strlen(d);

			snprintf(d + l, room - l, "%s%s=%s", l ? "&" : "", key, w[++i]);
		} else {
			return cfg_err(f, k, "an object keyword hxterm cannot map (it maps code, size, time, no-cache)");
		}
	}
	return 0;
}

static int cfg_global(struct cfgfile *f, struct vec *o, char **w, int n)
{
	if (n == 2 && !strcmp(w[0], "maxconn") && is_num(w[1]))
		return push2(o, "-n", w[1]);
	if (n == 2 && !strcmp(w[0], "nbproc") && is_num(w[1]))
		return push2(o, "-t", w[1]); /* WHY: threads where httpterm forked */
	if (n == 1 && (!strcmp(w[0], "daemon") || !strcmp(w[0], "debug") || !strcmp(w[0], "quiet")))
		return push(o, w[0][0] == 'd' ? (w[0][1] == 'a' ? "-D" : "-d") : "-q");
	return cfg_err(f, w[0], "not a setting hxterm has (global: maxconn, nbproc, daemon, debug, quiet)");
}

static int cfg_listen_kw(struct cfgfile *f, struct vec *o, char **w, int n)
{
	if (n == 1 && !strcmp(w[0], "disabled"))
		return f->in_listen = 2, 0;
	if (!strcmp(w[0], "object"))
		return cfg_object(f, w, n);
	if (n == 2 && !strcmp(w[0], "clitimeout") && is_num(w[1]))
		return push2(o, "--idle-timeout", w[1]);
	if (n == 2 && !strcmp(w[0], "maxconn") && is_num(w[1]))
		return 0; /* WHY: one -n for the whole process, from global's maxconn */
	return cfg_err(f, w[0], "not a setting hxterm has (listen: object, clitimeout, maxconn, disabled)");
}

/* the section that just ended: its listener, unless disabled */
static int cfg_close(struct cfgfile *f, struct vec *o)
{
	int r = f->in_listen == 1 ? push2(o, "-L", f->listen) : 0;

	f->in_listen = 0;
	return r;
}

static int cfg_line(struct cfgfile *f, struct vec *o, char *line)
{
	char *w[32], *sv, *t;
	int n = 0;

	line[strcspn(line, "#\r\n")] = 0;
	for (t = strtok_r(line, " \t", &sv); t && n < 32; t = strtok_r(NULL, " \t", &sv))
		w[n++] = t;
	if (!n)
		return 0;
	if (!strcmp(w[0], "global"))
		return cfg_close(f, o);
	if (!strcmp(w[0], "listen")) {
		if (cfg_close(f, o) < 0)
			return -1;
		if (n != 3 || !strchr(w[2], ':'))
			return cfg_err(f, "listen", "expected 'listen <name> <ip>:<port>'");
		snprintf(f->listen, sizeof(f->listen), "%s", w[2]);
		f->in_listen = 1;
		return 0;
	}
	return f->in_listen ? cfg_listen_kw(f, o, w, n) : cfg_global(f, o, w, n);
}

static int map_cfgfile(struct vec *o, const char *path)
{
	struct cfgfile f = { .path = path };
	FILE *fp = fopen(path, "r");
	char line[1024];
	int r = 0;

	if (!fp)
		return log_err("-f %s: cannot open it", path), -1;
	while (!r && fgets(line, sizeof(line), fp)) {
		f.line++;
		r = cfg_line(&f, o, line);
	}
	fclose(fp);
	if (!r)
		r = cfg_close(&f, o);
	if (!r && f.objects)
		r = push2(o, "--defaults", f.defaults);
	return r;
}

/* ---------- the words ---------- */

/* -sf/-st <pid>...: the rest of the line, as one comma list */
static int map_pids(struct vec *o, const char *opt, int argc, char **argv, int *i)
{
	char list[1024] = "";

	while (*i + 1 < argc && is_num(argv[*i + 1])) {
		size_t l = strlen(list);

		snprintf(list + l, sizeof(list) - l, "%s%s", l ? "," : "", argv[++*i]);
	}
	if (!*list)
		return log_err("%s: expected the pids of the instances to replace", opt), -1;
	if (*i + 1 < argc)
		return log_err("%s: the pids come last (then '%s')", opt, argv[*i + 1]), -1;
	return push2(o, opt[2] == 'f' ? "--finish" : "--terminate", list);
}

/* the single-dash words of the older tools: 1 mapped, 0 not theirs, -1 refused */
static int map_short(struct vec *o, const char *a, const char *next, int *used)
{
	static const struct { const char *opt, *why; } refused[] = {
		{ "-dZ", "hxterm has no zero-copy forwarding between muxes (--no-splice turns splice off)" },
		{ "-dT", "hxterm does not use kTLS" },
		{ "-de", "hxterm always runs on epoll (--io-uring moves clear-text I/O to io_uring)" },
		{ "-dp", "hxterm has no poll() loop" },
		{ "-F", "hxterm has no frontend section: its options are in -h" },
		{ "-T", "hxterm has no trace sections: -d prints its traces" },
		{ "-m", "hxterm sets no memory limit of its own (use prlimit --as)" },
	};

	*used = 0;
	for (size_t k = 0; k < sizeof(refused) / sizeof(refused[0]); k++)
		if (!strcmp(a, refused[k].opt))
			return log_err("%s%s%s: %s", a, next && a[2] == 0 ? " " : "", next && a[2] == 0 ? next : "",
				       refused[k].why), -1;
	if (!strcmp(a, "-dS"))
		return push(o, "--no-splice") < 0 ? -1 : 1;
	if (!strcmp(a, "-db") || !strcmp(a, "-a") || !strcmp(a, "-V"))
		return 1; /* WHY: foreground, a worker per CPU, not quiet: hxterm's defaults */
	if (!strcmp(a, "-Da"))
		return push(o, "-D") < 0 ? -1 : 1;
	if (!strcmp(a, "-C"))
		return push(o, "--dump-config") < 0 ? -1 : 1;
	/* WHY: httpterm's -c checks, haterm's (and hxterm's) takes a curve */
	if (!strcmp(a, "-c") && (!next || next[0] == '-'))
		return push(o, "--check") < 0 ? -1 : 1;
	if (!next)
		return 0;
	*used = 1;
	if (!strcmp(a, "-G"))
		return map_global(o, next) < 0 ? -1 : 1;
	if (!strcmp(a, "-p"))
		return push2(o, "--pidfile", next) < 0 ? -1 : 1;
	if (!strcmp(a, "-B"))
		return push2(o, "--sndbuf", next) < 0 ? -1 : 1;
	if (!strcmp(a, "-P")) {
		char kb[32];

		if (!is_num(next))
			return log_err("-P '%s': expected a pipe size in kB", next), -1;
		/* WHY --rspbuf: hxterm's splice pipes are as large as it */
		snprintf(kb, sizeof(kb), "%sk", next);
		return push2(o, "--rspbuf", kb) < 0 ? -1 : 1;
	}
	if (!strcmp(a, "-f"))
		return map_cfgfile(o, next) < 0 ? -1 : 1;
	*used = 0;
	return 0;
}

int compat_argv(int argc, char **argv, int (*takes_arg)(const char *opt), int *outc, char ***out)
{
	struct vec o = { 0 };

	if (push(&o, argv[0]) < 0)
		goto fail;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
		int used, r;

		if (!strcmp(a, "-sf") || !strcmp(a, "-st")) {
			if (map_pids(&o, a, argc, argv, &i) < 0)
				goto fail;
			continue;
		}
		if (!strcmp(a, "--tcp-bind-opts") || !strcmp(a, "--quic-bind-opts")) {
			if (!next) {
				log_err("%s: expected the bind options", a);
				goto fail;
			}
			if (map_bind(a, next, a[2] == 't') < 0)
				goto fail;
			i++;
			continue;
		}
		if ((r = map_short(&o, a, next, &used)) < 0)
			goto fail;
		if (r) {
			i += used;
			continue;
		}
		if (push(&o, a) < 0)
			goto fail;
		/* WHY: an option's value is copied as it is, never read as an option */
		if (next && takes_arg(a) && !strchr(a, '=') && push(&o, argv[++i]) < 0)
			goto fail;
	}
	*outc = o.n;
	*out = o.v;
	return 0;
fail:
	for (int i = 0; i < o.n; i++)
		free(o.v[i]);
	free(o.v);
	return -1;
}

/* The server's command line: the older tools' words mapped, every option set by its row (options.c), then what the options say together checked; -h and --dump-config. */
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "compat.h"
#include "config.h"
#include "listen.h"
#include "log.h"
#include "plan.h"
#include "opt.h"
#include "rng.h"

extern const struct opt config_opts[];

/* WHY kept: the options' values (cfg.pidfile, ...) point into it */
static char **cmdline;

static void config_usage(FILE *f)
{
	fputs("Usage: hxterm [-L [<host>]:<clear port>[:<tls port>]] [-L ...] [options]\n"
	      "A synthetic HTTP test target: every response is described by the request's\n"
	      "query string (GET /? for the list of keys).\n\n", f);
	opt_usage(f, config_opts, 23);
}

void config_dump(FILE *f)
{
	fprintf(f, "# hxterm %s: the effective configuration, one option a line\n", HX_VERSION);
	opt_dump(f, config_opts, &cfg);
}

/* the rows' defaults, then those worked out here */
static void config_defaults(void)
{
	cpu_set_t set;

	/* WHY not the whole struct: its table of 256 addresses is 103 KB of
	 * .bss, zero at start, that a memset made resident; only the entries
	 * an earlier parse filled are cleared (listen_parse zeroes each it fills) */
	memset(cfg.addrs, 0, sizeof(cfg.addrs[0]) * (size_t)cfg.naddrs);
	_Static_assert(offsetof(struct config, addrs) == 0, "the addresses come first");
	memset((char *)&cfg + offsetof(struct config, naddrs), 0, sizeof(cfg) - offsetof(struct config, naddrs));
	opt_defaults(config_opts, &cfg);
	cfg.threads = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
	cfg.h2_engine = H2ENG_HX;
	cfg.h3_engine = H3ENG_HX;
	if (gethostname(cfg.name, sizeof(cfg.name) - 1) < 0)
		snprintf(cfg.name, sizeof(cfg.name), "%s", "hxterm");
}

/* one socket the command line asks for: an address, a port, TCP or UDP */
struct endpoint {
	const struct listen_addr *la;
	uint16_t port;
	int udp;
};

static int endpoints(struct endpoint *e)
{
	int n = 0;

	for (int i = 0; i < cfg.naddrs; i++) {
		const struct listen_addr *la = &cfg.addrs[i];

		e[n++] = (struct endpoint){ la, la->clear_port, 0 };
		if (la->tls_port)
			e[n++] = (struct endpoint){ la, la->tls_port, 0 };
		if (la->tls_port && !cfg.no_h3)
			e[n++] = (struct endpoint){ la, la->tls_port, 1 };
	}
	if (cfg.stats.clear_port || cfg.stats.ss.ss_family == AF_UNIX)
		e[n++] = (struct endpoint){ &cfg.stats, cfg.stats.clear_port, 0 };
	return n;
}

/* WHY: two of our own sockets on one port (SO_REUSEPORT lets them bind)
 * would share its connections at random, a clear one answering TLS */
static int ports_distinct(void)
{
	static struct endpoint e[3 * CFG_MAX_LISTEN + 1];
	int n = endpoints(e);

	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			char a[160], b[160];

			if (e[i].port != e[j].port || e[i].udp != e[j].udp || !listen_overlap(e[i].la, e[j].la))
				continue;
			listen_name(e[i].la, e[i].port, a, sizeof(a));
			listen_name(e[j].la, e[j].port, b, sizeof(b));
			log_err("%s and %s: one port named twice on the command line (each listener needs a port of its own)",
				a, b);
			return -1;
		}
	return 0;
}

/* validates --defaults once so that a typo fails at start, not per request */
static int check_defaults(const char *arg)
{
	static struct plan p;
	/* WHY strict: a typo in a server's own option fails at start, never
	 * ignored on every request */
	struct plan_limits lim = { cfg.max_size, cfg.max_wait, 1 };
	struct rng r;

	rng_seed(&r, 1);
	plan_init(&p);
	if (plan_apply(&p, arg, strlen(arg), &r, &lim) < 0) {
		const char *e = plan_err(&p);

		log_err("--defaults: %.*s", (int)strcspn(e, "\n"), e);
		plan_done(&p);
		return -1;
	}
	plan_done(&p);
	return 0;
}

/* whether the hxterm option word <w> takes the next word as its value */
static int takes_arg(const char *w)
{
	return opt_takes_arg(config_opts, w);
}

/* one option of getopt's <key>, <arg>: 1 when the run stops there (-h, -v), 0, or -1 */
static int config_one(int key, const char *arg)
{
	const struct opt *o = opt_row(config_opts, key);
	char why[512];

	if (o && o->kind == OPT_HELP)
		return config_usage(stdout), 1;
	if (o && o->kind == OPT_VERSION)
		return printf("hxterm %s\n", HX_VERSION), 1;
	if (!o)
		return log_err("unknown option (try -h)"), -1;
	if (opt_set(o, &cfg, arg, why, sizeof(why)) < 0)
		return log_err("%s", why), -1;
	return 0;
}

int config_parse(int argc, char **argv)
{
	static struct option lo[128];
	char shorts[64];
	int c, r;

	config_defaults();
	if (compat_argv(argc, argv, takes_arg, &argc, &cmdline) < 0)
		return -1;
	if (opt_getopt(config_opts, shorts, sizeof(shorts), lo, ARRAY_SIZE(lo)) < 0)
		return log_err("the option table outgrew getopt's (a bug)"), -1;
	argv = cmdline;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (c == '?' || c == ':') {
			log_err("%s '%s' (try -h)", c == ':' ? "missing argument for" :
				"unknown option", argv[optind - 1]);
			return -1;
		}
		if ((r = config_one(c, optarg)))
			return r;
	}
	log_quiet = cfg.quiet;
	log_traces = cfg.debug;
	if (optind < argc) {
		log_err("unexpected argument '%s' (try -h)", argv[optind]);
		return -1;
	}
	cfg.name_len = strlen(cfg.name);
	if (!cfg.cert != !cfg.key) {
		log_err("--cert and --key go together");
		return -1;
	}
	if (cfg.client_cert && !cfg.client_ca)
		return log_err("--client-cert needs --client-ca (the CAs to verify client certificates with)"), -1;
	if (cfg.client_ca && !cfg.client_cert)
		cfg.client_cert = CC_REQUEST;
	if (!cfg.naddrs) {
		const char *why;

		cfg.naddrs = listen_parse(":8000:8443", cfg.addrs, CFG_MAX_LISTEN, &why);
		cfg.listen_default = 1;
	}
	for (int i = 0; i < cfg.naddrs && compat_accept_proxy; i++)
		cfg.addrs[i].proxy = 1;
	if (ports_distinct() < 0)
		return -1;
	/* after every option: the caps apply to the defaults too */
	if (cfg.defaults && check_defaults(cfg.defaults) < 0)
		return -1;
	cfg.gen = (struct gen_conf){ clock_us_ceil, cfg.defaults,
				     cfg.defaults ? strlen(cfg.defaults) : 0,
				     { cfg.max_size, cfg.max_wait, cfg.strict }, { cfg.name, cfg.name_len } };
	return 0;
}

/* hxterm's entry point: configuration, prebuilt bodies, workers, signals. */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alog.h"
#include "body.h"
#include "config.h"
#include "daemon.h"
#include "listen.h"
#include "log.h"
#include "session.h"
#include "splice.h"
#include "stats_out.h"
#include "stats_srv.h"
#include "tls_ctx.h"
#include "tls_keys.h"
#include "tls_mem.h"
#include "worker.h"

static void announce(void)
{
	for (int i = 0; i < cfg.naddrs; i++) {
		const struct listen_addr *la = &cfg.addrs[i];
		char name[160];

		const char *pp = la->proxy ? ", PROXY protocol first" : "";

		listen_name(la, la->clear_port, name, sizeof(name));
		log_info("listening on %s (HTTP/1.x, h2c%s)", name, pp);
		if (!la->tls_port)
			continue;
		listen_name(la, la->tls_port, name, sizeof(name));
		log_info("listening on %s (TLS: HTTP/1.1, h2%s%s)", name, pp,
			 cfg.no_h3 ? "" : la->proxy ? "; UDP: HTTP/3, no PROXY header" : "; UDP: HTTP/3");
	}
	log_info("%s ready, %d thread%s, id=%s", "hxterm " HX_VERSION, cfg.threads,
		 cfg.threads > 1 ? "s" : "", cfg.name);
}

/* --finish/--terminate (httpterm's -sf/-st), once this one serves: the old
 * instances drain (one SIGTERM) or stop at once (a second one). WHY
 * --terminate sends again every 50 ms until they are gone (5 s at most):
 * two SIGTERMs pending at once are one (standard signals do not queue), and
 * an old instance on a busy machine took the first after the second came,
 * then drained a 4 s exchange instead of cutting it (29-compat under ASan) */
static void replace_old(void)
{
	for (int round = 0; round < (cfg.replace_now ? 100 : 1); round++) {
		int alive = 0;

		if (round)
			usleep(50000);
		for (int i = 0; i < cfg.nreplace; i++) {
			if (kill(cfg.replace_pids[i], SIGTERM) == 0)
				alive++;
			else if (!round)
				log_err("--%s: pid %d: %s", cfg.replace_now ? "terminate" : "finish",
					cfg.replace_pids[i], strerror(errno));
		}
		if (!alive)
			break;
	}
}

/* SIGUSR1: the figures of /stats.json, on stderr */
static void report(void)
{
	struct sbuf b = { malloc(16384), 0, 16384, 0 };

	b.failed = !b.p;
	stats_json(&b);
	if (b.failed)
		log_err("SIGUSR1: out of memory");
	else
		fprintf(stderr, "hxterm: %.*s", (int)b.len, b.p);
	free(b.p);
}

static void signals_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGUSR1);
	sigaddset(set, SIGHUP);
}

/* WHY: signals are blocked in every thread and taken here synchronously,
 * so no handler ever runs in the middle of a worker's loop. The first
 * SIGINT/SIGTERM drains, a second one stops at once; SIGUSR1 reports. */
static void run_until_stopped(void)
{
	sigset_t set;
	struct timespec tick = { 0, 100 * 1000000 };
	int sig, draining = 0;

	signals_set(&set);
	for (;;) {
		sig = draining ? sigtimedwait(&set, NULL, &tick) : sigwaitinfo(&set, NULL);
		if (sig == SIGHUP) {
			alog_reopen();
			tls_keys_reload();
		} else if (sig == SIGUSR1) {
			report();
		} else if ((sig == SIGINT || sig == SIGTERM) && !draining) {
			log_info("draining (up to %llu ms); a second signal stops at once",
				 (unsigned long long)cfg.drain_ms);
			draining = 1;
			daemon_stopping();
			workers_drain();
		} else if (sig == SIGINT || sig == SIGTERM) {
			workers_stop();
			break;
		} else if (draining && workers_idle()) {
			break;
		}
	}
}

/* every start-up step that binds nothing: the response buffers, the TLS
 * context (--cert, --key, --client-ca, --ticket-keys, or the generated
 * certificates of -b and -c), the protocols' own (QUIC's GnuTLS side).
 * 0, or -1 after saying why */
/* a TLS port to serve, so a TLS context (and QUIC on its UDP twin) */
static int tls_wanted(void)
{
	for (int i = 0; i < cfg.naddrs; i++)
		if (cfg.addrs[i].tls_port)
			return 1;
	return 0;
}

static int prepare(void)
{
	if (body_init(cfg.rspbuf) < 0 || (cfg.splice && spl_global_init(cfg.rspbuf) < 0)) {
		log_err("cannot allocate the response buffers");
		return -1;
	}
	/* WHY none without a TLS port: the two keys generated and OpenSSL's
	 * and GnuTLS's set-up left 4.1 MB more of their code resident (12.7 MB
	 * at rest with a clear port alone, 8.1 without; 6.1 is what loading
	 * the libraries costs); no TLS port, no QUIC either */
	if (!tls_wanted())
		cfg.no_h3 = 1;
	/* the TLS context first: QUIC takes its certificates */
	if ((tls_wanted() && tls_init() < 0) || sess_init(proto_table) < 0)
		return -1;
	return 0;
}

static void unprepare(void)
{
	sess_free();
	tls_free();
	spl_global_free();
	body_free();
}

/* --check: what the start would load and check, short of binding, forking
 * and writing the pid file; the same messages, exit 2 where it would fail.
 * WHY load the files: a command line whose certificate or ticket keys the
 * start refuses is not valid (haproxy -c and nginx -t load them too) */
static int check_only(void)
{
	/* WHY the access log started and stopped: it is opened (created) as
	 * the start opens it */
	if (prepare() < 0 || alog_start() < 0)
		return 2;
	alog_stop();
	unprepare();
	log_info("the configuration is valid: every file it names loaded, nothing bound");
	return 0;
}

int main(int argc, char **argv)
{
	sigset_t set;
	int r;

	tls_mem_init(0);
	r = config_parse(argc, argv);

	if (r)
		return r > 0 ? 0 : 2;
	if (cfg.dump) {
		config_dump(stdout);
		return 0;
	}
	if (cfg.check)
		return check_only();
	if (cfg.listen_default) {
		log_info("no -L given: listening on every interface, :8000 (clear) and :8443 "
			 "(TLS, QUIC), any request may ask up to --max-size %llu bytes and "
			 "--max-wait %llu ms; for this machine alone: -L 127.0.0.1:8000:8443",
			 (unsigned long long)cfg.max_size, (unsigned long long)cfg.max_wait);
	}
	/* WHY first: every start-up step runs in the child, whose error line
	 * and status reach the caller through the waiting parent */
	if ((cfg.daemon && daemon_start() < 0) || daemon_pidfile(cfg.pidfile) < 0)
		return 2;
	/* WHY before any thread: a thread inherits its creator's mask, and one
	 * made unblocked (the access log's writer, the stats listener, a
	 * library's) would take SIGHUP or SIGTERM with their default action */
	signal(SIGPIPE, SIG_IGN);
	signals_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* WHY: each worker's malloc arena otherwise grows and shrinks a page
	 * run at a time, one mprotect() per step: 5049 of them for 5000 h3
	 * streams. Grow and trim in 16 MiB steps instead. */
	mallopt(M_TOP_PAD, 16 << 20);
	mallopt(M_TRIM_THRESHOLD, 32 << 20);
	if (prepare() < 0)
		return 2;
	tls_mem_pooled();
	stats_out_init();
	if (stats_listen() < 0 || alog_start() < 0)
		return 2;
	if (workers_start() < 0 || stats_start() < 0)
		return 2;
	announce();
	if (daemon_ready() < 0)
		return 2;
	replace_old();
	run_until_stopped();
	/* WHY the stats thread first: it reads the workers' counters, which
	 * workers_join() frees */
	stats_stop();
	workers_join();
	alog_stop();
	daemon_end();
	unprepare();
	return 0;
}

/* The stats listener (--stats): its documents (/metrics, /stats.json, /history.json, the live page), served by net/hsrv's thread, never on the test ports. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "config.h"
#include "hsrv.h"
#include "listen.h"
#include "log.h"
#include "stats_out.h"
#include "stats_srv.h"

static struct hsrv srv;
static struct timer sample;
static int lfd = -1;

/* the document at <path>, its <query> ("" when none) */
static void serve(struct hsrv_req *c, const char *path, const char *query)
{
	struct sbuf b = { malloc(16384), 0, 16384, 0 };
	const char *type = "text/plain; version=0.0.4; charset=utf-8";

	b.failed = !b.p;
	if (!strcmp(path, "/metrics")) {
		stats_metrics(&b);
	} else if (!strcmp(path, "/stats.json")) {
		stats_json(&b);
		type = "application/json";
	} else if (!strcmp(path, "/history.json")) {
		stats_hist_json(&b, !strncmp(query, "since=", 6) ? atof(query + 6) : 0);
		type = "application/json";
	} else if (!strcmp(path, "/") && stats_page()) {
		free(b.p);
		hsrv_reply(c, "200 OK", "text/html; charset=utf-8", stats_page(), strlen(stats_page()), NULL, "");
		return;
	} else {
		free(b.p);
		hsrv_text(c, "404 Not Found", "not found: /metrics, /stats.json, /history.json or /\n", "");
		return;
	}
	if (b.failed) {
		free(b.p);
		hsrv_text(c, "500 Internal Server Error", "out of memory\n", "");
		return;
	}
	hsrv_reply(c, "200 OK", type, b.p, b.len, b.p, "");
}

/* each second: the history's sample, the next one armed */
static void sample_cb(struct loop *l, struct timer *t)
{
	stats_hist_tick();
	loop_arm(l, t, t->expire + 1000000);
}

int stats_listen(void)
{
	char name[160];

	if (!cfg.stats.clear_port)
		return 0;
	listen_name(&cfg.stats, cfg.stats.clear_port, name, sizeof(name));
	if (listen_free(&cfg.stats, cfg.stats.clear_port, SOCK_STREAM) < 0 ||
	    (lfd = listen_tcp(&cfg.stats, cfg.stats.clear_port)) < 0) {
		log_err("--stats %s: %s", name, strerror(errno));
		return -1;
	}
	log_info("stats on http://%s/ (/metrics, /stats.json, /history.json)", name);
	return 0;
}

int stats_start(void)
{
	if (lfd < 0)
		return 0;
	sample.cb = sample_cb;
	if (hsrv_init(&srv, lfd, serve) < 0) {
		lfd = -1;
		return log_err("--stats: cannot start its thread"), -1;
	}
	stats_hist_tick(); /* WHY at once: the page's first rates need a sample before them */
	loop_arm(&srv.loop, &sample, srv.loop.now_us + 1000000);
	if (hsrv_run(&srv, "hxterm-stats") < 0)
		return log_err("--stats: cannot start its thread"), -1;
	return 0;
}

void stats_stop(void)
{
	if (lfd < 0)
		return;
	hsrv_free(&srv);
	lfd = -1;
}

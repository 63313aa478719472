/* hxload: a load generator for h1, h2 and h3 that splits latency into server time and the rest. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "lc_cmd.h"
#include "lc_fate.h"
#include "lc_record.h"
#include "lc_thread.h"
#include "lc_idle.h"
#include "lc_tls.h"

#include <openssl/ssl.h>

static void on_signal(int sig)
{
	(void)sig;
	lc_interrupt();
}

static uint64_t mono_us(void)
{
	return (uint64_t)clock_ns() / 1000;
}

static double epoch_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* interval <k> of every thread, merged: 1, 0 when no thread has it and all
 * ended, -1 when one is still recording it */
/* <v> added to <out>: its time span widened to cover both, its figures summed */
static void ival_add(struct lc_ival *out, const struct lc_ival *v, int first)
{
	if (first || v->from_us < out->from_us)
		out->from_us = v->from_us;
	if (v->to_us > out->to_us)
		out->to_us = v->to_us;
	out->reqs += v->reqs;
	out->hits += v->hits;
	out->misses += v->misses;
	out->errors += v->errors;
	out->bytes += v->bytes;
	out->srv_cpu_us += v->srv_cpu_us;
	for (int h = 0; h < IV_MAX; h++)
		hist_merge(&out->h[h], &v->h[h]);
}

static int ival_take(struct lc_thread *ts, unsigned k, struct lc_ival *out)
{
	int have = 0;

	for (int i = 0; i < lc_o->threads; i++) {
		int ended = atomic_load_explicit(&ts[i].ended, memory_order_acquire);
		uint32_t pub = atomic_load_explicit(&ts[i].ival_pub, memory_order_acquire);
		const struct lc_ival *v = &ts[i].ring[k % LC_IVAL_RING];

		if (pub <= k) {
			if (!ended)
				return -1;
			continue;
		}
		/* WHY zeroed here, not at the top: the monitor asks every 20 ms,
		 * mostly before the interval is out, and the interval is 100 kB
		 * of histograms (callgrind counted it on the client's core) */
		if (!have)
			memset(out, 0, sizeof(*out));
		ival_add(out, v, !have);
		have = 1;
	}
	for (int i = 0; i < lc_o->threads; i++)
		atomic_store_explicit(&ts[i].ival_read, k + 1, memory_order_release);
	return have;
}

static void series_add(struct lc_series *s, const struct lc_ival *v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct lc_ival *nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return; /* WHY: the page then lacks the tail of the series; the run goes on */
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = *v;
}

/* WHY: the run's end cuts its last interval short (2 ms of a 1 s one),
 * and a rate over 2 ms is a cliff on a chart and a full sample in a
 * bootstrap; under half an interval it joins the one before, so every
 * point stands for about one interval and the sums stay whole */
static void series_fold_tail(struct lc_series *s, uint64_t every_us)
{
	struct lc_ival *a, *b;

	if (s->n < 2 || !every_us)
		return;
	a = &s->v[s->n - 2];
	b = &s->v[s->n - 1];
	if ((b->to_us - b->from_us) * 2 >= every_us)
		return;
	ival_add(a, b, 0);
	s->n--;
}

/* --server-pid: the CPU time it has used, in us; 0 when it cannot be read
 * (the run then says so) */
static uint64_t server_cpu_us(void)
{
	return lc_proc_cpu_us(lc_o->server_pid);
}

/* --pid: each named process's CPU time now, into <us> */
static void named_cpu(uint64_t *us)
{
	for (int i = 0; i < lc_o->npids; i++)
		us[i] = lc_proc_cpu_us(lc_o->pids[i].pid);
}

/* the main thread while the run goes: intervals, the progress line */
static void monitor(struct lc_thread *ts, uint64_t start, struct lc_series *ser, struct lc_stats *T,
		    struct lc_meta *m)
{
	uint64_t pid0[LC_MAX_PIDS] = { 0 }, pid1[LC_MAX_PIDS];
	static struct lc_ival v;
	int tty = !lc_o->quiet && !lc_o->json && !lc_o->interval_us && isatty(2);
	uint64_t last = 0, next_line = start + 1000000, cpu0 = 0, cpu = 0;
	unsigned k = 0;
	int pid0_taken = 0;

	for (;;) {
		int alive = 0, r;
		uint64_t done = 0;

		usleep(20000);
		for (int i = 0; i < lc_o->threads; i++) {
			alive += !atomic_load_explicit(&ts[i].ended, memory_order_acquire);
			done += ts[i].progress;
		}
		/* WHY sampled here: the window opens after the warm-up; a read
		 * every 20 ms, at most that far from an interval's edge */
		if (lc_o->server_pid && !cpu0 && mono_us() >= ts[0].record_from_us)
			cpu0 = cpu = server_cpu_us();
		if (lc_o->npids && !pid0_taken && mono_us() >= ts[0].record_from_us) {
			named_cpu(pid0);
			pid0_taken = 1;
		}
		while (lc_o->series_us && (r = ival_take(ts, k, &v)) > 0) {
			if (lc_o->server_pid && cpu0) {
				uint64_t now = server_cpu_us();

				v.srv_cpu_us = now > cpu ? now - cpu : 0;
				T->srv_cpu_us += v.srv_cpu_us;
				cpu = now;
			}
			series_add(ser, &v);
			lc_metrics_add(&v);
			lc_hlog_add(&v);
			if (lc_o->interval_us)
				lc_ival_json(stdout, &v, ts[0].record_from_us, k);
			k++;
		}
		if (tty && mono_us() >= next_line && !lc_fatal()) {
			fprintf(stderr, "\r  %5.1f s  %10.0f req/s  ", (mono_us() - start) / 1e6, (double)(done - last));
			last = done;
			next_line += 1000000;
		}
		if (!alive)
			break;
	}
	if (tty)
		fprintf(stderr, "\r%60s\r", "");
	/* WHY at the end: as --server-pid's, the window's start to the run's
	 * end, the requests in flight at the window's close included */
	named_cpu(pid1);
	m->npids = pid0_taken ? lc_o->npids : 0;
	for (int i = 0; i < m->npids; i++) {
		snprintf(m->cpu[i].name, sizeof(m->cpu[i].name), "%s", lc_o->pids[i].name);
		m->cpu[i].pid = lc_o->pids[i].pid;
		m->cpu[i].us = pid1[i] > pid0[i] ? pid1[i] - pid0[i] : 0;
	}
}

/* one line saying why nothing was answered */
static void why_nothing(const struct lc_stats *T)
{
	uint64_t errs = lc_stats_errors(T);

	if (errs) {
		fprintf(stderr, "hxload: no request was answered: %llu errors (", (unsigned long long)errs);
		for (int i = 0, first = 1; i < E_MAX; i++)
			if (T->errors[i]) {
				fprintf(stderr, "%s%s %llu", first ? "" : ", ", lc_err_names[i],
					(unsigned long long)T->errors[i]);
				first = 0;
			}
		fprintf(stderr, ")\n");
	} else if (T->sent) {
		fprintf(stderr, "hxload: no request was answered: %llu sent, still in flight at the end\n",
			(unsigned long long)T->sent);
	} else {
		fprintf(stderr, "hxload: no request was sent (the rate, -n or the duration allowed none)\n");
	}
}

/* open loop: whether the client kept its schedule; one line when it did
 * not. WHY a failed run (exit 1): past LC_UNSENT_MAX of the due requests
 * never sent, the rate and the latency measured are the client's limits
 * (its connections, its CPU), not the target's; late sends only warn, their
 * delay is the queue row, kept out of the others */
static int schedule_kept(const struct lc_stats *T, const struct lc_meta *m)
{
	uint64_t unsent = T->scheduled > T->sent ? T->scheduled - T->sent : 0;

	if (m->target_rps <= 0 || !T->scheduled)
		return 1;
	if ((double)unsent > LC_UNSENT_MAX * (double)T->scheduled) {
		fprintf(stderr, "hxload: the schedule was not kept: %llu of %llu due requests never sent (%.1f %%); "
			"the client or its connections were the limit, not the target (more -c, -t, or a lower -R)\n",
			(unsigned long long)unsent, (unsigned long long)T->scheduled,
			100.0 * (double)unsent / (double)T->scheduled);
		return 0;
	}
	if ((double)T->late > LC_LATE_WARN * (double)T->sent)
		fprintf(stderr, "hxload: %llu of %llu requests went over 1 ms after their time (%.1f %%): the client "
			"fell behind; that delay is the queue row, not latency's other parts\n",
			(unsigned long long)T->late, (unsigned long long)T->sent,
			100.0 * (double)T->late / (double)T->sent);
	return 1;
}

int lc_finish(const struct lc_stats *T, const struct lc_meta *m, const struct lc_series *s,
	      int json, const char *html, const char *fail_on)
{
	/* WHY before the figures: ?size=1k is answered 200, empty, at once */
	if (m->ignored[0])
		fprintf(stderr, "hxload: the server did not know the URL's keys %s (X-Hxterm-Ignored): a typo? "
			"its answers did not follow them\n", m->ignored);
	if (json) {
		lc_report_json(stdout, T, m, 1, s);
		lc_why_line(stderr, T, m);
	} else
		lc_report_text(stdout, T, m);
	fflush(stdout);
	if (html && lc_report_html(html, T, m, s) < 0) {
		fprintf(stderr, "hxload: --html '%s': cannot write it\n", html);
		return 2;
	}
	if (!T->reqs) {
		why_nothing(T);
		return 1;
	}
	if (fail_on && lc_check(fail_on, T, m))
		return 3;
	if (lc_mostly_unexpected(T))
		return 1;
	return schedule_kept(T, m) ? 0 : 1;
}

/* --start-at: sleeps until then (epoch seconds) */
static void wait_start(double at)
{
	struct timespec ts = { (time_t)at, (long)((at - (double)(time_t)at) * 1e9) };

	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) && !lc_interrupted())
		;
}

/* <w> made printable once, for the terminal and the JSON alike: a body
 * may be binary or cut inside a UTF-8 sequence; its trailing newline goes */
static size_t printable(char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] >= 0x7f)
			p[i] = p[i] == '\n' || p[i] == '\r' || p[i] == '\t' ? ' ' : '.';
	while (len && p[len - 1] == ' ')
		len--;
	p[len] = 0;
	return len;
}

static void why_clean(struct lc_why *w)
{
	w->len = (uint16_t)printable(w->body, w->len);
	printable(w->line, strlen(w->line));
}

static void meta_fill(struct lc_meta *m, struct lc_thread *ts, double start_epoch)
{
	uint64_t closed = 0;

	snprintf(m->label, sizeof(m->label), "%s", lc_o->label ? lc_o->label : "");
	snprintf(m->url, sizeof(m->url), "%s", lc_tg->url);
	snprintf(m->cmdline, sizeof(m->cmdline), "%s", lc_o->cmdline);
	snprintf(m->version, sizeof(m->version), "%s", HX_VERSION);
	gethostname(m->host, sizeof(m->host) - 1);
	m->start = start_epoch + lc_o->warmup_us / 1e6;
	m->end = epoch_now();
	m->runs = 1;
	m->target_rps = lc_rate_mean(lc_o) / lc_o->shards;
	for (int i = 0; i < lc_o->threads; i++) {
		/* WHY to its last answer: the requests in flight at the window's
		 * end are counted, and 10,000 of 1 MiB answered 20 s after a 2 s
		 * window read 5,000 req/s over the window alone */
		closed = MAX(closed, ts[i].closed_us ? MAX(ts[i].closed_us, ts[i].tail_us) : mono_us());
		if (!m->ignored[0])
			memcpy(m->ignored, ts[i].ignored, sizeof(m->ignored));
		if (!m->first_bad.status && ts[i].why.status)
			m->first_bad = ts[i].why;
	}
	why_clean(&m->first_bad);
	snprintf(m->expect, sizeof(m->expect), "%s", lc_o->expect ? lc_o->expect : "2xx");
	m->secs = closed > ts[0].record_from_us ? (closed - ts[0].record_from_us) / 1e6 : 1e-6;
}

int lc_run_main(int argc, char **argv)
{
	struct lc_thread *ts;
	static struct lc_stats T;
	static struct lc_series ser;
	struct lc_meta m = { 0 };
	uint64_t start;
	double start_epoch;
	int rc;

	lc_cli(argc, argv);
	if (lc_o->server_pid && !server_cpu_us() && kill(lc_o->server_pid, 0) < 0) {
		fprintf(stderr, "hxload: --server-pid %d: no such process here\n", lc_o->server_pid);
		return 2;
	}
	if (lc_tg->tls && lc_tls_init() < 0)
		lc_die("%s", "cannot create the TLS context");
	/* WHY before the threads: the libraries' globals are made once */
	if (lc_protos_init() < 0)
		lc_die("%s", "cannot initialise the HTTP/2 or QUIC library (or read --cert, --cacert)");
	if (lc_o->log && lc_log_open(lc_o->log) < 0)
		lc_die("--log: cannot create '%s'", lc_o->log);
	if (lc_o->hlog && lc_hlog_open(lc_o->hlog) < 0)
		lc_die("--hlog: cannot create '%s'", lc_o->hlog);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!(ts = calloc((size_t)lc_o->threads, sizeof(*ts))))
		lc_die("%s", "out of memory");
	if (lc_idle_start() < 0)
		return 2;
	lc_probe_start();
	lc_metrics_start();
	if (lc_o->start_at > 0)
		wait_start(lc_o->start_at);
	start = mono_us();
	start_epoch = epoch_now();
	lc_hlog_start(start_epoch + lc_o->warmup_us / 1e6, start + lc_o->warmup_us, lc_tg->url);
	for (int i = 0; i < lc_o->threads; i++)
		lc_thread_init(&ts[i], i, start);
	for (int i = 0; i < lc_o->threads; i++)
		pthread_create(&ts[i].th, NULL, lc_thread_main, &ts[i]);
	monitor(ts, start, &ser, &T, &m);
	series_fold_tail(&ser, lc_o->series_us);
	for (int i = 0; i < lc_o->threads; i++) {
		pthread_join(ts[i].th, NULL);
		lc_stats_add(&T, &ts[i].st);
	}
	lc_idle_stop();
	lc_metrics_stop();
	if (lc_hlog_close() < 0)
		fprintf(stderr, "hxload: --hlog '%s': cannot write it all\n", lc_o->hlog);
	meta_fill(&m, ts, start_epoch);
	lc_probe_finish(&m.probe);
	for (int i = 0; i < lc_o->threads; i++)
		lc_thread_free(&ts[i]);
	free(ts);
	SSL_CTX_free(lc_tls);
	lc_protos_free();
	if (lc_fatal()) {
		fprintf(stderr, "%s\n", lc_fatal());
		return 1;
	}
	rc = lc_finish(&T, &m, &ser, lc_o->json, lc_o->html, lc_o->fail_on);
	free(ser.v);
	for (int i = 0; i < lc_tg->npaths; i++)
		free(lc_tg->paths[i].req), free(lc_tg->paths[i].path);
	free(lc_tg->paths);
	return rc;
}

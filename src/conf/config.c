/* Command-line parsing into the global configuration. */
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "compat.h"
#include "config.h"
#include "h1_parse.h"
#include "listen.h"
#include "log.h"
#include "plan.h"
#include "rng.h"

struct config cfg;
/* WHY kept: the options' values (cfg.pidfile, ...) point into it */
static char **cmdline;

enum {
	O_NAME = 256, O_DEFAULTS, O_MAX_SIZE, O_MAX_WAIT, O_STRICT, O_BUFSIZE, O_RSPBUF,
	O_SNDBUF, O_SPLICE, O_NO_SPLICE, O_MAX_URI, O_MAX_HDRS, O_MAX_BODY,
	O_IDLE, O_HEAD_TMO, O_BODY_TMO, O_SEND_TMO, O_CERT, O_KEY,
	O_DRAIN, O_H3_STREAMS, O_H3_WINDOW, O_QPACK, O_QUIC_CONNS, O_NO_H3, O_NO_ALTSVC, O_NO_DEFER, O_URING, O_QUIC_RETRY, O_QUIC_RETRY_HALF, O_H2_STREAMS, O_H2_WINDOW, O_H2_CONN_WINDOW, O_H2_FRAME, O_H2_TABLE, O_H2_ENC_TABLE, O_H2_RESETS, O_H2_ENGINE, O_H3_ENGINE, O_STATS, O_SHARE_PORT, O_PIDFILE, O_ALOG, O_ALOG_SAMPLE,
	O_CLIENT_CA, O_CLIENT_CERT, O_CHECK, O_DUMP, O_FINISH, O_TERMINATE, O_TICKET_KEYS, O_EARLY_DATA,
};

static const struct option longopts[] = {
	{ "name", required_argument, NULL, O_NAME },
	{ "defaults", required_argument, NULL, O_DEFAULTS },
	{ "max-size", required_argument, NULL, O_MAX_SIZE },
	{ "max-wait", required_argument, NULL, O_MAX_WAIT },
	{ "strict", no_argument, NULL, O_STRICT },
	{ "bufsize", required_argument, NULL, O_BUFSIZE },
	{ "rspbuf", required_argument, NULL, O_RSPBUF },
	{ "sndbuf", required_argument, NULL, O_SNDBUF },
	{ "splice", no_argument, NULL, O_SPLICE },
	{ "no-splice", no_argument, NULL, O_NO_SPLICE },
	{ "max-uri", required_argument, NULL, O_MAX_URI },
	{ "max-headers", required_argument, NULL, O_MAX_HDRS },
	{ "max-body", required_argument, NULL, O_MAX_BODY },
	{ "idle-timeout", required_argument, NULL, O_IDLE },
	{ "head-timeout", required_argument, NULL, O_HEAD_TMO },
	{ "body-timeout", required_argument, NULL, O_BODY_TMO },
	{ "send-timeout", required_argument, NULL, O_SEND_TMO },
	{ "cert", required_argument, NULL, O_CERT },
	{ "key", required_argument, NULL, O_KEY },
	{ "drain-timeout", required_argument, NULL, O_DRAIN },
	{ "h3-streams", required_argument, NULL, O_H3_STREAMS },
	{ "h3-window", required_argument, NULL, O_H3_WINDOW },
	{ "qpack-table", required_argument, NULL, O_QPACK },
	{ "quic-max-conns", required_argument, NULL, O_QUIC_CONNS },
	{ "no-h3", no_argument, NULL, O_NO_H3 },
	{ "quic-retry", no_argument, NULL, O_QUIC_RETRY },
	{ "quic-retry-threshold", required_argument, NULL, O_QUIC_RETRY_HALF },
	{ "no-alt-svc", no_argument, NULL, O_NO_ALTSVC },
	{ "no-defer-accept", no_argument, NULL, O_NO_DEFER },
	{ "io-uring", no_argument, NULL, O_URING },
	{ "h2-streams", required_argument, NULL, O_H2_STREAMS },
	{ "h2-window", required_argument, NULL, O_H2_WINDOW },
	{ "h2-conn-window", required_argument, NULL, O_H2_CONN_WINDOW },
	{ "h2-frame", required_argument, NULL, O_H2_FRAME },
	{ "h2-table", required_argument, NULL, O_H2_TABLE },
	{ "h2-enc-table", required_argument, NULL, O_H2_ENC_TABLE },
	{ "stats", required_argument, NULL, O_STATS },
	{ "share-port", no_argument, NULL, O_SHARE_PORT },
	{ "pidfile", required_argument, NULL, O_PIDFILE },
	{ "access-log", required_argument, NULL, O_ALOG },
	{ "access-log-sample", required_argument, NULL, O_ALOG_SAMPLE },
	{ "h2-max-resets", required_argument, NULL, O_H2_RESETS },
	{ "h2-engine", required_argument, NULL, O_H2_ENGINE },
	{ "h3-engine", required_argument, NULL, O_H3_ENGINE },
	{ "client-ca", required_argument, NULL, O_CLIENT_CA },
	{ "client-cert", required_argument, NULL, O_CLIENT_CERT },
	{ "check", no_argument, NULL, O_CHECK },
	{ "ticket-keys", required_argument, NULL, O_TICKET_KEYS },
	{ "early-data", no_argument, NULL, O_EARLY_DATA },
	{ "dump-config", no_argument, NULL, O_DUMP },
	{ "finish", required_argument, NULL, O_FINISH },
	{ "terminate", required_argument, NULL, O_TERMINATE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

void config_usage(FILE *f)
{
	fprintf(f,
"Usage: hxterm [-L [<host>]:<clear port>[:<tls port>]] [-L ...] [options]\n"
"A synthetic HTTP test target: every response is described by the request's\n"
"query string (GET /? for the list of keys).\n"
"\n"
"  -L <addr>            listen: 127.0.0.1:8000, [::1]:8000, localhost:8000 (a\n"
"                       name: each of its addresses, resolved at start),\n"
"                       :8000 (every interface); a port may be a range,\n"
"                       127.0.0.1:8000-8015:8443-8458 (the same length);\n"
"                       repeatable, at most 256 addresses in all. Default\n"
"                       :8000:8443, every interface. The clear port serves\n"
"                       HTTP/1.x and h2c (prior knowledge or Upgrade); the\n"
"                       TLS port HTTP/1.1 and h2 by ALPN on TCP, and HTTP/3\n"
"                       on UDP at the same number. unix:/run/hx.sock: a Unix\n"
"                       socket (HTTP/1.x and h2c), removed at exit. Options\n"
"                       after a comma: ,proxy (a PROXY protocol v1 or v2\n"
"                       header starts each TCP connection, before TLS; the\n"
"                       client it names is in X-Client, the access log),\n"
"                       ,mode=0660 (a Unix socket's permissions)\n"
"  -t <n>               worker threads (default: the CPUs it may run on)\n"
"  -n <n>               connection limit across threads (default 100000)\n"
"  -D                   run as a daemon: detaches once every listener is bound\n"
"                       and serving; a start-up error prints its line and\n"
"                       exits 2 from the foreground process\n"
"  --pidfile <file>     write the server's pid there once serving, removed at\n"
"                       exit; with NOTIFY_SOCKET set (systemd Type=notify),\n"
"                       READY=1 once serving and STOPPING=1 on a drain\n"
"  -q                   quiet: no start-up notices\n"
"  -d                   debug traces on stderr\n"
"  -v, --version        print the version and exit\n"
"  -h, --help           this help\n"
"  --name <id>          server name in X-rsp (default: the host name)\n"
"  --defaults <query>   items applied to every request before its own\n"
"  --max-size <n>       largest s= a request may ask (default 64g)\n"
"  --max-wait <ms>      longest t=, d=, P= a request may ask (default 3600000)\n"
"  --strict             an unknown key (size=1k) is answered 400 naming it;\n"
"                       by default it is ignored and named in X-Hxterm-Ignored\n"
"  -b <bits>            RSA key size of the generated certificate (2048)\n"
"  -c <curve>           ECDSA curve of the generated certificate (P-256)\n"
"  --cert <pem>         serve this certificate (chain) instead ...\n"
"  --key <pem>          ... with this private key\n"
"  --client-ca <pem>    ask TLS and QUIC clients for a certificate, verified\n"
"                       against these CAs; its subject goes in X-Client\n"
"  --client-cert request|require  a client without one is served (request,\n"
"                       the default with --client-ca: cert=none) or refused\n"
"                       with the alert certificate required (require)\n"
"  --ticket-keys <file> TLS session-ticket keys, base64 of 48 or 80 bytes a line\n"
"                       (the first seals new tickets, all open them): every\n"
"                       instance given the file resumes the others' sessions;\n"
"                       SIGHUP reads it again (rotation)\n"
"  --early-data         take TLS 1.3 early data (TCP) and QUIC 0-RTT:\n"
"                       requests in it say early=1 in X-rsp. Early data can\n"
"                       be replayed by anyone who saw it: for tests only\n"
"  --check              check the command line, then exit (httpterm's -c)\n"
"  --dump-config        print the effective configuration as options, then\n"
"                       exit (haterm's -C)\n"
"  --finish <pids>      once serving, drain these older instances (SIGTERM;\n"
"                       httpterm's -sf): a restart without a refused\n"
"                       connection; implies --share-port\n"
"  --terminate <pids>   the same, stopped at once (httpterm's -st)\n"
"\n"
"Older tools' options, mapped: haterm's -G 'nbthread <n>' (-t), -G\n"
"'maxconn <n>' (-n), -G limited-quic (accepted), --tcp-bind-opts accept-proxy\n"
"(,proxy on every -L), -C, -dS; httpterm's -f <file>, -p <file> (--pidfile),\n"
"-B <n> (--sndbuf), -P <kB> (--rspbuf), -db, -a, -V, -Da, -c, -sf/-st <pids>.\n"
"Any other -G, -F, -T, bind option, -m, -de, -dp, -dZ is refused by name.\n"
"\n"
"Tunables (sizes take k, m, g):\n"
"  --bufsize <n>        I/O buffer; also the largest request head (16k)\n"
"  --rspbuf <n>         prebuilt response buffer: the longest body slice\n"
"                       handed to one iovec (64k)\n"
"  --sndbuf <n>         socket send buffer, SO_SNDBUF (0: the kernel's)\n"
"  --splice, --no-splice  clear-text HTTP/1 bodies of 64k and more: tee'd\n"
"                       from a pipe filled once, spliced to the socket, pipe\n"
"                       as large as --rspbuf (off: bench/splice measured\n"
"                       writev cheaper here; see the README's Benchmarks);\n"
"                       S=0 turns it off per request\n"
"  --max-uri <n>        longest request line, else 414 (8k)\n"
"  --max-headers <n>    most request header fields, else 431 (100)\n"
"  --max-body <n>       largest request body (Content-Length or chunked), else\n"
"                       413 (64g)\n"
"  --idle-timeout <ms>  keep-alive idle timeout (30000)\n"
"  --head-timeout <ms>  first byte to end of request head, else 408 (10000)\n"
"  --body-timeout <ms>  silence while reading a request body (30000)\n"
"  --send-timeout <ms>  a client that stops reading is dropped (30000)\n"
"  --drain-timeout <ms> on SIGTERM/SIGINT, how long in-flight responses may\n"
"                       finish before exit; a second signal exits at once\n"
"                       (10000); SIGUSR1 prints /stats.json's figures\n"
"  --stats <addr>       a stats listener on its own port (127.0.0.1:9100):\n"
"                       /metrics (Prometheus), /stats.json, / (a live page);\n"
"                       served by a thread of its own, off by default\n"
"  --access-log <file>  a JSON line per request (time, thread, protocol, client,\n"
"                       target, status, bytes, t= wait, generation time, its\n"
"                       number on the connection), '-' for stdout; buffered\n"
"                       per thread, written by a thread of its own; SIGHUP\n"
"                       reopens the file (off)\n"
"  --access-log-sample <n>  log one request in n (1)\n"
"  --share-port         bind a port another process listens on too (SO_REUSEPORT\n"
"                       then splits the connections); default: refuse, exit 2\n"
"  --h2-streams <n>     HTTP/2 max concurrent streams (100)\n"
"  --h2-window <n>      HTTP/2 initial stream window (65535)\n"
"  --h2-conn-window <n> HTTP/2 connection window (1m)\n"
"  --h2-frame <n>       HTTP/2 max frame size, 16k to 16m-1 (16k)\n"
"  --h2-table <n>       HPACK table for request headers, SETTINGS (4096)\n"
"  --h2-enc-table <n>   HPACK table for response headers, at most what the\n"
"                       client allows (1024)\n"
"  --h2-max-resets <n>  RST_STREAM a second before GOAWAY ENHANCE_YOUR_CALM (200)\n"
"  --h2-engine <e>      HTTP/2 framing: nghttp2 (its session) or hx (our own,\n"
"                       over nghttp2's HPACK decoder) (hx)\n"
"  --h3-engine <e>      HTTP/3 response framing: nghttp3 (its streams) or hx\n"
"                       (our own, static QPACK, raw literals) (hx)\n"
"  --h3-streams <n>     HTTP/3 max concurrent streams (100)\n"
"  --h3-window <n>      QUIC stream flow-control window (256k)\n"
"  --qpack-table <n>    QPACK dynamic table capacity (0)\n"
"  --quic-max-conns <n> QUIC connections per thread (10000)\n"
"  --no-h3              no HTTP/3 on the TLS ports' UDP twins\n"
"  --quic-retry         validate client addresses with a QUIC Retry first\n"
"  --quic-retry-threshold <n>  half-open QUIC connections per thread beyond\n"
"                       which new clients get a Retry first (100)\n"
"  --no-alt-svc         no alt-svc: h3 header on TLS responses\n"
"  --no-defer-accept    accept connections before their first bytes (default:\n"
"                       TCP_DEFER_ACCEPT, the kernel holds a silent new\n"
"                       connection about 1 to 3 s; it is invisible until then)\n"
"  --io-uring           clear-text HTTP/1 and h2c reads and writes through\n"
"                       io_uring, one ring per thread (default: epoll)\n");
}

/* a decimal number with k/m/g suffixes, or one line on stderr */
static int opt_num(const char *opt, const char *arg, uint64_t min, uint64_t max,
		   uint64_t *out)
{
	const char *why = NULL;

	if (num_plain(arg, strlen(arg), out, &why) < 0) {
		log_err("%s '%s': %s", opt, arg, why);
		return -1;
	}
	if (*out < min || *out > max) {
		log_err("%s '%s': out of range [%llu, %llu]", opt, arg,
			(unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	return 0;
}

/* an engine: hx (ours, 1) or <lib> (the library's, 0), or one line on stderr */
static int opt_engine(const char *opt, const char *arg, const char *lib, uint8_t *out)
{
	if (!strcmp(arg, "hx") || !strcmp(arg, lib)) {
		*out = !strcmp(arg, "hx");
		return 0;
	}
	return log_err("%s: '%s' is neither hx nor %s", opt, arg, lib), -1;
}

static void config_defaults(void)
{
	cpu_set_t set;

	memset(&cfg, 0, sizeof(cfg));
	cfg.threads = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
	cfg.maxconn = 100000;
	cfg.max_size = 64ULL << 30;
	cfg.max_wait = 3600000;
	cfg.iobuf = 16384;
	cfg.rspbuf = 65536;
	cfg.max_uri = 8192;
	cfg.max_hdrs = 100;
	cfg.max_body = 64ULL << 30;
	cfg.idle_ms = 30000;
	cfg.head_ms = 10000;
	cfg.body_ms = 30000;
	cfg.send_ms = 30000;
	cfg.drain_ms = 10000;
	cfg.access_sample = 1;
	cfg.rsa_bits = 2048;
	cfg.curve = "P-256";
	cfg.h2_streams = 100;
	cfg.h2_window = 65535;
	cfg.h2_conn_window = 1 << 20;
	cfg.h2_frame = 16384;
	cfg.h2_table = 4096;
	cfg.h2_enc_table = 1024;
	cfg.h2_max_resets = 200;
	cfg.h2_engine = H2ENG_HX;
	cfg.h3_engine = H3ENG_HX;
	cfg.h3_streams = 100;
	cfg.h3_window = 256 << 10;
	cfg.qpack_table = 0;
	cfg.quic_max_conns = 10000;
	cfg.quic_retry_half = 100;
	if (gethostname(cfg.name, sizeof(cfg.name) - 1) < 0)
		snprintf(cfg.name, sizeof(cfg.name), "%s", "hxterm");
}

static int opt_listen(const char *arg)
{
	const char *why;
	int n = listen_parse(arg, &cfg.addrs[cfg.naddrs], CFG_MAX_LISTEN - cfg.naddrs, &why);

	if (n < 0) {
		log_err("-L '%s': %s", arg, why);
		return -1;
	}
	cfg.naddrs += n;
	return 0;
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

/* --stats <host>:<port>: one address, one port */
static int opt_stats(const char *arg)
{
	struct listen_addr la[2];
	const char *why;
	int n = listen_parse(arg, la, 2, &why);

	if (n != 1 || la[0].tls_port || la[0].clear_port == 0) {
		log_err("--stats '%s': %s", arg, n < 0 ? why : "expected one address and one port (127.0.0.1:9100)");
		return -1;
	}
	cfg.stats = la[0];
	return 0;
}

/* validates --defaults once so that a typo fails at start, not per request */
static int opt_defaults(const char *arg)
{
	static struct plan p;
	/* WHY strict: a typo in a server's own option fails at start, never
	 * ignored on every request */
	struct plan_limits lim = { cfg.max_size, cfg.max_wait, 1 };
	struct rng r;

	rng_seed(&r, 1);
	plan_init(&p);
	if (plan_apply(&p, arg, strlen(arg), &r, &lim) < 0) {
		p.err[strcspn(p.err, "\n")] = 0;
		log_err("--defaults: %s", p.err);
		return -1;
	}
	return 0;
}

static int opt_name(const char *arg)
{
	size_t n = strlen(arg);

	if (!n || n >= sizeof(cfg.name) || strpbrk(arg, "\r\n,")) {
		log_err("--name '%s': 1 to 255 characters, no comma or newline", arg);
		return -1;
	}
	memcpy(cfg.name, arg, n + 1);
	return 0;
}

/* --finish/--terminate <pid>[,<pid>...]: the instances this one replaces */
static int opt_replace(int now, const char *arg)
{
	char buf[1024], *sv, *t;

	snprintf(buf, sizeof(buf), "%s", arg);
	cfg.replace_now = now;
	for (t = strtok_r(buf, ",", &sv); t; t = strtok_r(NULL, ",", &sv)) {
		char *end;
		long v = strtol(t, &end, 10);

		if (*end || v <= 1 || v == getpid() || cfg.nreplace == 64)
			return log_err("--%s '%s': expected up to 64 pids of other processes, comma-separated",
				       now ? "terminate" : "finish", arg), -1;
		cfg.replace_pids[cfg.nreplace++] = (int)v;
	}
	/* WHY: the old instances hold the ports until they are gone */
	cfg.share_port = 1;
	return 0;
}

/* --client-cert request|require */
static int opt_client_cert(const char *arg)
{
	if (!strcmp(arg, "request"))
		cfg.client_cert = CC_REQUEST;
	else if (!strcmp(arg, "require"))
		cfg.client_cert = CC_REQUIRE;
	else
		return log_err("--client-cert '%s': expected request or require", arg), -1;
	return 0;
}

static int opt_tunable(int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case 't': if (opt_num("-t", arg, 1, 1024, &v) < 0) return -1; cfg.threads = (int)v; break;
	case 'n': if (opt_num("-n", arg, 1, 10000000, &v) < 0) return -1; cfg.maxconn = (int)v; break;
	case O_MAX_SIZE: return opt_num("--max-size", arg, 0, 1ULL << 50, &cfg.max_size);
	case O_MAX_WAIT: return opt_num("--max-wait", arg, 0, 86400000, &cfg.max_wait);
	case O_STRICT: cfg.strict = 1; return 0;
	case O_BUFSIZE: if (opt_num("--bufsize", arg, 1024, 16 << 20, &v) < 0) return -1; cfg.iobuf = v; break;
	case O_RSPBUF: if (opt_num("--rspbuf", arg, 1024, 256 << 20, &v) < 0) return -1; cfg.rspbuf = v; break;
	case O_SNDBUF: if (opt_num("--sndbuf", arg, 0, 1 << 30, &v) < 0) return -1; cfg.sndbuf = (int)v; break;
	case O_MAX_URI: if (opt_num("--max-uri", arg, 64, 1 << 20, &v) < 0) return -1; cfg.max_uri = v; break;
	case O_MAX_HDRS: if (opt_num("--max-headers", arg, 1, H1_MAX_HDRS, &v) < 0) return -1; cfg.max_hdrs = (int)v; break;
	case O_MAX_BODY: return opt_num("--max-body", arg, 0, 1ULL << 60, &cfg.max_body);
	case O_IDLE: return opt_num("--idle-timeout", arg, 1, 86400000, &cfg.idle_ms);
	case O_HEAD_TMO: return opt_num("--head-timeout", arg, 1, 86400000, &cfg.head_ms);
	case O_BODY_TMO: return opt_num("--body-timeout", arg, 1, 86400000, &cfg.body_ms);
	case O_SEND_TMO: return opt_num("--send-timeout", arg, 1, 86400000, &cfg.send_ms);
	case O_H3_STREAMS: if (opt_num("--h3-streams", arg, 1, 1 << 20, &v) < 0) return -1; cfg.h3_streams = (uint32_t)v; break;
	case O_H3_WINDOW: if (opt_num("--h3-window", arg, 1024, 1U << 30, &v) < 0) return -1; cfg.h3_window = (uint32_t)v; break;
	case O_QPACK: if (opt_num("--qpack-table", arg, 0, 1 << 20, &v) < 0) return -1; cfg.qpack_table = (uint32_t)v; break;
	case O_QUIC_CONNS: if (opt_num("--quic-max-conns", arg, 1, 1 << 24, &v) < 0) return -1; cfg.quic_max_conns = (uint32_t)v; break;
	case O_QUIC_RETRY_HALF: if (opt_num("--quic-retry-threshold", arg, 0, 1 << 24, &v) < 0) return -1; cfg.quic_retry_half = (uint32_t)v; break;
	case O_DRAIN: return opt_num("--drain-timeout", arg, 0, 86400000, &cfg.drain_ms);
	case O_ALOG_SAMPLE: return opt_num("--access-log-sample", arg, 1, 1000000000, &cfg.access_sample);
	case 'b': if (opt_num("-b", arg, 1024, 16384, &v) < 0) return -1; cfg.rsa_bits = (int)v; break;
	case O_H2_STREAMS: if (opt_num("--h2-streams", arg, 1, 1 << 20, &v) < 0) return -1; cfg.h2_streams = (uint32_t)v; break;
	case O_H2_WINDOW: if (opt_num("--h2-window", arg, 1, (1U << 31) - 1, &v) < 0) return -1; cfg.h2_window = (uint32_t)v; break;
	case O_H2_CONN_WINDOW: if (opt_num("--h2-conn-window", arg, 65535, (1U << 31) - 1, &v) < 0) return -1; cfg.h2_conn_window = (uint32_t)v; break;
	case O_H2_FRAME: if (opt_num("--h2-frame", arg, 16384, (1 << 24) - 1, &v) < 0) return -1; cfg.h2_frame = (uint32_t)v; break;
	case O_H2_TABLE: if (opt_num("--h2-table", arg, 0, 1 << 20, &v) < 0) return -1; cfg.h2_table = (uint32_t)v; break;
	case O_H2_ENC_TABLE: if (opt_num("--h2-enc-table", arg, 0, 1 << 20, &v) < 0) return -1; cfg.h2_enc_table = (uint32_t)v; break;
	case O_H2_ENGINE: return opt_engine("--h2-engine", arg, "nghttp2", &cfg.h2_engine);
	case O_H3_ENGINE: return opt_engine("--h3-engine", arg, "nghttp3", &cfg.h3_engine);
	case O_H2_RESETS: if (opt_num("--h2-max-resets", arg, 1, 1000000, &v) < 0) return -1; cfg.h2_max_resets = (uint32_t)v; break;
	default: return 1;
	}
	return 0;
}

static int opt_one(int c, const char *arg)
{
	int r = opt_tunable(c, arg);

	if (r <= 0)
		return r;
	switch (c) {
	case 'L': return opt_listen(arg);
	case O_STATS: return opt_stats(arg);
	case O_SHARE_PORT: cfg.share_port = 1; return 0;
	case O_PIDFILE: cfg.pidfile = arg; return 0;
	case O_ALOG: cfg.access_log = arg; return 0;
	case 'D': cfg.daemon = 1; return 0;
	case 'q': cfg.quiet = log_quiet = 1; return 0;
	case 'd': cfg.debug = log_traces = 1; return 0;
	case O_NAME: return opt_name(arg);
	case O_DEFAULTS: cfg.defaults = arg; return 0;
	case O_NO_SPLICE: cfg.splice = 0; return 0;
	case O_NO_H3: cfg.no_h3 = 1; return 0;
	case O_QUIC_RETRY: cfg.quic_retry = 1; return 0;
	case O_NO_ALTSVC: cfg.no_alt_svc = 1; return 0;
	case O_NO_DEFER: cfg.no_defer_accept = 1; return 0;
	case O_URING: cfg.io_uring = 1; return 0;
	case 'c': cfg.curve = arg; return 0;
	case O_CERT: cfg.cert = arg; return 0;
	case O_KEY: cfg.key = arg; return 0;
	case O_CLIENT_CA: cfg.client_ca = arg; return 0;
	case O_CLIENT_CERT: return opt_client_cert(arg);
	case O_CHECK: cfg.check = 1; return 0;
	case O_TICKET_KEYS: cfg.ticket_keys = arg; return 0;
	case O_EARLY_DATA: cfg.early_data = 1; return 0;
	case O_DUMP: cfg.dump = 1; return 0;
	case O_FINISH: case O_TERMINATE: return opt_replace(c == O_TERMINATE, arg);
	case O_SPLICE: cfg.splice = 1; return 0;
	}
	log_err("unknown option (try -h)");
	return -1;
}

/* whether the hxterm option word <w> takes the next word as its value */
static int takes_arg(const char *w)
{
	if (w[0] != '-')
		return 0;
	if (w[1] != '-')
		return w[1] && strchr("Ltnbc", w[1]) && !w[2];
	for (const struct option *o = longopts; o->name; o++)
		if (!strcmp(w + 2, o->name))
			return o->has_arg == required_argument;
	return 0;
}

int config_parse(int argc, char **argv)
{
	int c;

	config_defaults();
	if (compat_argv(argc, argv, takes_arg, &argc, &cmdline) < 0)
		return -1;
	argv = cmdline;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":L:t:n:b:c:Dqdvh", longopts, NULL)) != -1) {
		if (c == 'h') {
			config_usage(stdout);
			return 1;
		}
		if (c == 'v') {
			printf("hxterm %s\n", HX_VERSION);
			return 1;
		}
		if (c == '?' || c == ':') {
			log_err("%s '%s' (try -h)", c == ':' ? "missing argument for" :
				"unknown option", argv[optind - 1]);
			return -1;
		}
		if (opt_one(c, optarg) < 0)
			return -1;
	}
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
	if (cfg.defaults && opt_defaults(cfg.defaults) < 0)
		return -1;
	cfg.gen = (struct gen_conf){ clock_us_ceil, cfg.defaults,
				     cfg.defaults ? strlen(cfg.defaults) : 0,
				     { cfg.max_size, cfg.max_wait, cfg.strict }, { cfg.name, cfg.name_len } };
	return 0;
}

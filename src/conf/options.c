/* The server's options: one row each (its name, the field of cfg it sets, its range and default, its help), each row's own setter and dump where its value is more than a number, a flag or a string; and cfg, which they fill. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "h1_parse.h"
#include "listen.h"
#include "opt.h"

struct config cfg;

#define NUM(f, lo, hi, d) .kind = OPT_NUM, OPT_F(struct config, f), .min = (lo), .max = (hi), .dflt = (d)
#define FLAG(f)           .kind = OPT_FLAG, OPT_F(struct config, f)
#define CLEAR(f)          .kind = OPT_CLEAR, OPT_F(struct config, f)
#define STR(f)            .kind = OPT_STR, OPT_F(struct config, f)
#define FN(fn)            .kind = OPT_FN, .set = (fn)

/* ---------- setters ---------- */

static int opt_listen(const char *arg, char *why, size_t len)
{
	const char *err;
	int n = listen_parse(arg, &cfg.addrs[cfg.naddrs], CFG_MAX_LISTEN - cfg.naddrs, &err);

	if (n < 0)
		return snprintf(why, len, "-L '%s': %s", arg, err), -1;
	cfg.naddrs += n;
	return 0;
}

/* --stats <host>:<port>: one address, one port */
static int opt_stats(const char *arg, char *why, size_t len)
{
	struct listen_addr la[2];
	const char *err;
	int n = listen_parse(arg, la, 2, &err);

	if (n != 1 || la[0].tls_port || la[0].clear_port == 0)
		return snprintf(why, len, "--stats '%s': %s", arg,
				n < 0 ? err : "expected one address and one port (127.0.0.1:9100)"), -1;
	cfg.stats = la[0];
	return 0;
}

static int set_name(const char *arg, char *why, size_t len)
{
	size_t n = strlen(arg);

	if (!n || n >= sizeof(cfg.name) || strpbrk(arg, "\r\n,"))
		return snprintf(why, len, "--name '%s': 1 to 255 characters, no comma or newline", arg), -1;
	memcpy(cfg.name, arg, n + 1);
	return 0;
}

/* --finish/--terminate <pid>[,<pid>...]: the instances this one replaces */
static int opt_replace(int now, const char *arg, char *why, size_t len)
{
	char buf[1024], *sv, *t;

	snprintf(buf, sizeof(buf), "%s", arg);
	cfg.replace_now = now;
	for (t = strtok_r(buf, ",", &sv); t; t = strtok_r(NULL, ",", &sv)) {
		char *end;
		long v = strtol(t, &end, 10);

		if (*end || v <= 1 || v == getpid() || cfg.nreplace == 64)
			return snprintf(why, len, "--%s '%s': expected up to 64 pids of other processes, comma-separated",
					now ? "terminate" : "finish", arg), -1;
		cfg.replace_pids[cfg.nreplace++] = (int)v;
	}
	/* WHY: the old instances hold the ports until they are gone */
	cfg.share_port = 1;
	return 0;
}

static int opt_finish(const char *arg, char *why, size_t len)
{
	return opt_replace(0, arg, why, len);
}

static int opt_terminate(const char *arg, char *why, size_t len)
{
	return opt_replace(1, arg, why, len);
}

/* --client-cert request|require */
static int opt_client_cert(const char *arg, char *why, size_t len)
{
	if (!strcmp(arg, "request"))
		cfg.client_cert = CC_REQUEST;
	else if (!strcmp(arg, "require"))
		cfg.client_cert = CC_REQUIRE;
	else
		return snprintf(why, len, "--client-cert '%s': expected request or require", arg), -1;
	return 0;
}

/* an engine: hx (ours, 1) or <lib> (the library's, 0) */
static int opt_engine(const char *opt, const char *arg, const char *lib, uint8_t *out, char *why, size_t len)
{
	if (!strcmp(arg, "hx") || !strcmp(arg, lib)) {
		*out = !strcmp(arg, "hx");
		return 0;
	}
	return snprintf(why, len, "%s: '%s' is neither hx nor %s", opt, arg, lib), -1;
}

static int opt_h2_engine(const char *arg, char *why, size_t len)
{
	return opt_engine("--h2-engine", arg, "nghttp2", &cfg.h2_engine, why, len);
}

static int opt_h3_engine(const char *arg, char *why, size_t len)
{
	return opt_engine("--h3-engine", arg, "nghttp3", &cfg.h3_engine, why, len);
}

/* ---------- dumps: the values that are more than a number, a flag or a string ---------- */

static void dump_listen(FILE *f, const struct opt *o, const void *base)
{
	(void)o, (void)base;
	for (int i = 0; i < cfg.naddrs; i++) {
		const struct listen_addr *la = &cfg.addrs[i];
		char name[160];

		listen_name(la, la->clear_port, name, sizeof(name));
		fprintf(f, "-L %s", name);
		if (la->tls_port)
			fprintf(f, ":%u", la->tls_port);
		if (la->proxy)
			fputs(",proxy", f);
		if (la->mode)
			fprintf(f, ",mode=0%o", la->mode);
		fputc('\n', f);
	}
}

static void dump_stats(FILE *f, const struct opt *o, const void *base)
{
	char name[160];

	(void)o, (void)base;
	if (!cfg.stats.clear_port)
		return;
	listen_name(&cfg.stats, cfg.stats.clear_port, name, sizeof(name));
	fprintf(f, "--stats %s\n", name);
}

static void dump_name(FILE *f, const struct opt *o, const void *base)
{
	(void)o, (void)base;
	fprintf(f, "--name '%s'\n", cfg.name);
}

static void dump_client_cert(FILE *f, const struct opt *o, const void *base)
{
	(void)o, (void)base;
	if (cfg.client_cert)
		fprintf(f, "--client-cert %s\n", cfg.client_cert == CC_REQUIRE ? "require" : "request");
}

static void dump_replace(FILE *f, const struct opt *o, const void *base)
{
	(void)o, (void)base;
	for (int i = 0; i < cfg.nreplace; i++)
		fprintf(f, "%s%d%s", i ? "," : cfg.replace_now ? "--terminate " : "--finish ", cfg.replace_pids[i],
			i + 1 == cfg.nreplace ? "\n" : "");
}

static void dump_splice(FILE *f, const struct opt *o, const void *base)
{
	(void)o, (void)base;
	fputs(cfg.splice ? "--splice\n" : "--no-splice\n", f);
}

static void dump_h2_engine(FILE *f, const struct opt *o, const void *base)
{
	(void)o, (void)base;
	fprintf(f, "--h2-engine %s\n", cfg.h2_engine == H2ENG_HX ? "hx" : "nghttp2");
}

static void dump_h3_engine(FILE *f, const struct opt *o, const void *base)
{
	(void)o, (void)base;
	fprintf(f, "--h3-engine %s\n", cfg.h3_engine == H3ENG_HX ? "hx" : "nghttp3");
}

/* a row the dump says through another one's line */
static void dump_nothing(FILE *f, const struct opt *o, const void *base)
{
	(void)f, (void)o, (void)base;
}

/* -b and -c make the certificate --cert replaces */
static int has_cert(const void *base)
{
	return ((const struct config *)base)->cert != NULL;
}

static int no_access_log(const void *base)
{
	return !((const struct config *)base)->access_log;
}

/* what the run does rather than what it is (--check, --dump-config) */
static int always(const void *base)
{
	(void)base;
	return 1;
}

/* ---------- the table: -h's order ---------- */

const struct opt config_opts[] = {
	{ NULL, 'L', FN(opt_listen), .arg = "<addr>", .dump = dump_listen,
	  .help = "listen: 127.0.0.1:8000, [::1]:8000, localhost:8000 (a\n"
	  "name: each of its addresses, resolved at start),\n"
	  ":8000 (every interface); a port may be a range,\n"
	  "127.0.0.1:8000-8015:8443-8458 (the same length);\n"
	  "repeatable, at most 256 addresses in all. Default\n"
	  ":8000:8443, every interface. The clear port serves\n"
	  "HTTP/1.x and h2c (prior knowledge or Upgrade); the\n"
	  "TLS port HTTP/1.1 and h2 by ALPN on TCP, and HTTP/3\n"
	  "on UDP at the same number. unix:/run/hx.sock: a Unix\n"
	  "socket (HTTP/1.x and h2c), removed at exit. Options\n"
	  "after a comma: ,proxy (a PROXY protocol v1 or v2\n"
	  "header starts each TCP connection, before TLS; the\n"
	  "client it names is in X-Client, the access log),\n"
	  ",mode=0660 (a Unix socket's permissions)" },
	{ NULL, 't', NUM(threads, 1, 1024, 0), .arg = "<n>",
	  .help = "worker threads (default: the CPUs it may run on)" },
	{ NULL, 'n', NUM(maxconn, 1, 10000000, 100000), .arg = "<n>",
	  .help = "connection limit across threads (default 100000)" },
	{ NULL, 'D', FLAG(daemon),
	  .help = "run as a daemon: detaches once every listener is bound\n"
	  "and serving; a start-up error prints its line and\n"
	  "exits 2 from the foreground process" },
	{ "pidfile", 0, STR(pidfile), .arg = "<file>",
	  .help = "write the server's pid there once serving, removed at\n"
	  "exit; with NOTIFY_SOCKET set (systemd Type=notify),\n"
	  "READY=1 once serving and STOPPING=1 on a drain" },
	{ NULL, 'q', FLAG(quiet),
	  .help = "quiet: no start-up notices" },
	{ NULL, 'd', FLAG(debug),
	  .help = "debug traces on stderr" },
	{ "version", 'v', .kind = OPT_VERSION,
	  .help = "print the version and exit" },
	{ "help", 'h', .kind = OPT_HELP,
	  .help = "this help" },
	{ "name", 0, FN(set_name), .arg = "<id>", .dump = dump_name,
	  .help = "server name in X-rsp (default: the host name)" },
	{ "defaults", 0, STR(defaults), .arg = "<query>",
	  .help = "items applied to every request before its own" },
	{ "max-size", 0, NUM(max_size, 0, 1ULL << 50, 64ULL << 30), .arg = "<n>",
	  .help = "largest s= a request may ask (default 64g)" },
	{ "max-wait", 0, NUM(max_wait, 0, 86400000, 3600000), .arg = "<ms>",
	  .help = "longest t=, d=, P= a request may ask (default 3600000)" },
	{ "strict", 0, FLAG(strict),
	  .help = "an unknown key (size=1k) is answered 400 naming it;\n"
	  "by default it is ignored and named in X-Hxterm-Ignored" },
	{ NULL, 'b', NUM(rsa_bits, 1024, 16384, 2048), .arg = "<bits>", .hide = has_cert,
	  .help = "RSA key size of the generated certificate (2048)" },
	{ NULL, 'c', STR(curve), .sdflt = "P-256", .arg = "<curve>", .hide = has_cert,
	  .help = "ECDSA curve of the generated certificate (P-256)" },
	{ "cert", 0, STR(cert), .arg = "<pem>",
	  .help = "serve this certificate (chain) instead ..." },
	{ "key", 0, STR(key), .arg = "<pem>",
	  .help = "... with this private key" },
	{ "client-ca", 0, STR(client_ca), .arg = "<pem>",
	  .help = "ask TLS and QUIC clients for a certificate, verified\n"
	  "against these CAs; its subject goes in X-Client" },
	{ "client-cert", 0, FN(opt_client_cert), .arg = "request|require", .dump = dump_client_cert,
	  .help = "a client without one is served (request,\n"
	  "the default with --client-ca: cert=none) or refused\n"
	  "with the alert certificate required (require)" },
	{ "ticket-keys", 0, STR(ticket_keys), .arg = "<file>",
	  .help = "TLS session-ticket keys, base64 of 48 or 80 bytes a line\n"
	  "(the first seals new tickets, all open them): every\n"
	  "instance given the file resumes the others' sessions;\n"
	  "SIGHUP reads it again (rotation)" },
	{ "early-data", 0, FLAG(early_data),
	  .help = "take TLS 1.3 early data (TCP) and QUIC 0-RTT:\n"
	  "requests in it say early=1 in X-rsp. Early data can\n"
	  "be replayed by anyone who saw it: for tests only" },
	{ "check", 0, FLAG(check), .hide = always,
	  .help = "check the command line and load every file the start\n"
	  "would, then exit (httpterm's -c)" },
	{ "dump-config", 0, FLAG(dump), .hide = always,
	  .help = "print the effective configuration as options, then\n"
	  "exit (haterm's -C)" },
	{ "finish", 0, FN(opt_finish), .arg = "<pids>", .dump = dump_replace,
	  .help = "once serving, drain these older instances (SIGTERM;\n"
	  "httpterm's -sf): a restart without a refused\n"
	  "connection; implies --share-port" },
	{ "terminate", 0, FN(opt_terminate), .arg = "<pids>", .hide = always,
	  .help = "the same, stopped at once (httpterm's -st)" },
	{ .kind = OPT_TEXT, .help = "" },
	{ .kind = OPT_TEXT, .help = "Older tools' options, mapped: haterm's -G 'nbthread <n>' (-t), -G" },
	{ .kind = OPT_TEXT, .help = "'maxconn <n>' (-n), -G limited-quic (accepted), --tcp-bind-opts accept-proxy" },
	{ .kind = OPT_TEXT, .help = "(,proxy on every -L), -C, -dS; httpterm's -f <file>, -p <file> (--pidfile)," },
	{ .kind = OPT_TEXT, .help = "-B <n> (--sndbuf), -P <kB> (--rspbuf), -db, -a, -V, -Da, -c, -sf/-st <pids>." },
	{ .kind = OPT_TEXT, .help = "Any other -G, -F, -T, bind option, -m, -de, -dp, -dZ is refused by name." },
	{ .kind = OPT_TEXT, .help = "" },
	{ .kind = OPT_TEXT, .help = "Tunables (sizes take k, m, g):" },
	{ "bufsize", 0, NUM(iobuf, 1024, 16 << 20, 16384), .arg = "<n>",
	  .help = "I/O buffer; also the largest request head (16k)" },
	{ "rspbuf", 0, NUM(rspbuf, 1024, 256 << 20, 65536), .arg = "<n>",
	  .help = "prebuilt response buffer: the longest body slice\n"
	  "handed to one iovec (64k)" },
	{ "sndbuf", 0, NUM(sndbuf, 0, 1 << 30, 0), .arg = "<n>",
	  .help = "socket send buffer, SO_SNDBUF (0: the kernel's)" },
	{ "splice", 0, FLAG(splice), .head = "--splice, --no-splice", .dump = dump_splice,
	  .help = "clear-text HTTP/1 bodies of 64k and more: tee'd\n"
	  "from a pipe filled once, spliced to the socket, pipe\n"
	  "as large as --rspbuf (off: bench/splice measured\n"
	  "writev cheaper here; see the README's Benchmarks);\n"
	  "S=0 turns it off per request" },
	{ "no-splice", 0, CLEAR(splice), .dump = dump_nothing },
	{ "max-uri", 0, NUM(max_uri, 64, 1 << 20, 8192), .arg = "<n>",
	  .help = "longest request line, else 414 (8k)" },
	{ "max-headers", 0, NUM(max_hdrs, 1, H1_MAX_HDRS, 100), .arg = "<n>",
	  .help = "most request header fields, else 431 (100)" },
	{ "max-body", 0, NUM(max_body, 0, 1ULL << 60, 64ULL << 30), .arg = "<n>",
	  .help = "largest request body (Content-Length or chunked), else\n"
	  "413 (64g)" },
	{ "idle-timeout", 0, NUM(idle_ms, 1, 86400000, 30000), .arg = "<ms>",
	  .help = "keep-alive idle timeout (30000)" },
	{ "conn-requests", 0, NUM(conn_requests, 0, 0xffffffffu, 0), .arg = "<n>",
	  .help = "a connection ends after n requests: HTTP/1 says\n"
	  "Connection: close on the nth, HTTP/2 and HTTP/3 send\n"
	  "GOAWAY after its HEADERS (0: no limit; maxreq= per\n"
	  "connection)" },
	{ "head-timeout", 0, NUM(head_ms, 1, 86400000, 10000), .arg = "<ms>",
	  .help = "first byte to end of request head, else 408 (10000)" },
	{ "body-timeout", 0, NUM(body_ms, 1, 86400000, 30000), .arg = "<ms>",
	  .help = "silence while reading a request body (30000)" },
	{ "send-timeout", 0, NUM(send_ms, 1, 86400000, 30000), .arg = "<ms>",
	  .help = "a client that stops reading is dropped (30000)" },
	{ "drain-timeout", 0, NUM(drain_ms, 0, 86400000, 10000), .arg = "<ms>",
	  .help = "on SIGTERM/SIGINT, how long in-flight responses may\n"
	  "finish before exit; a second signal exits at once\n"
	  "(10000); SIGUSR1 prints /stats.json's figures" },
	{ "stats", 0, FN(opt_stats), .arg = "<addr>", .dump = dump_stats,
	  .help = "a stats listener on its own port (127.0.0.1:9100):\n"
	  "/metrics (Prometheus), /stats.json, / (a live page);\n"
	  "served by a thread of its own, off by default" },
	{ "access-log", 0, STR(access_log), .arg = "<file>",
	  .help = "a JSON line per request (time, thread, protocol, client,\n"
	  "target, status, bytes, t= wait, generation time, its\n"
	  "number on the connection), '-' for stdout; buffered\n"
	  "per thread, written by a thread of its own; SIGHUP\n"
	  "reopens the file (off)" },
	{ "access-log-sample", 0, NUM(access_sample, 1, 1000000000, 1), .arg = "<n>", .hide = no_access_log,
	  .help = "log one request in n (1)" },
	{ "share-port", 0, FLAG(share_port),
	  .help = "bind a port another process listens on too (SO_REUSEPORT\n"
	  "then splits the connections); default: refuse, exit 2" },
	{ "h2-streams", 0, NUM(h2_streams, 1, 1 << 20, 100), .arg = "<n>",
	  .help = "HTTP/2 max concurrent streams (100)" },
	{ "h2-window", 0, NUM(h2_window, 1, (1U << 31) - 1, 65535), .arg = "<n>",
	  .help = "HTTP/2 initial stream window (65535)" },
	{ "h2-conn-window", 0, NUM(h2_conn_window, 65535, (1U << 31) - 1, 1 << 20), .arg = "<n>",
	  .help = "HTTP/2 connection window (1m)" },
	{ "h2-frame", 0, NUM(h2_frame, 16384, (1 << 24) - 1, 16384), .arg = "<n>",
	  .help = "HTTP/2 max frame size, 16k to 16m-1 (16k)" },
	{ "h2-table", 0, NUM(h2_table, 0, 1 << 20, 4096), .arg = "<n>",
	  .help = "HPACK table for request headers, SETTINGS (4096)" },
	{ "h2-enc-table", 0, NUM(h2_enc_table, 0, 1 << 20, 1024), .arg = "<n>",
	  .help = "HPACK table for response headers, at most what the\n"
	  "client allows (1024)" },
	{ "h2-max-resets", 0, NUM(h2_max_resets, 1, 1000000, 200), .arg = "<n>",
	  .help = "RST_STREAM a second before GOAWAY ENHANCE_YOUR_CALM (200)" },
	{ "h2-engine", 0, FN(opt_h2_engine), .arg = "<e>", .dump = dump_h2_engine,
	  .help = "HTTP/2 framing: nghttp2 (its session) or hx (our own,\n"
	  "over nghttp2's HPACK decoder) (hx)" },
	{ "h3-engine", 0, FN(opt_h3_engine), .arg = "<e>", .dump = dump_h3_engine,
	  .help = "HTTP/3 response framing: nghttp3 (its streams) or hx\n"
	  "(our own, static QPACK, raw literals) (hx)" },
	{ "h3-streams", 0, NUM(h3_streams, 1, 1 << 20, 100), .arg = "<n>",
	  .help = "HTTP/3 max concurrent streams (100)" },
	{ "h3-window", 0, NUM(h3_window, 1024, 1U << 30, 256 << 10), .arg = "<n>",
	  .help = "QUIC stream flow-control window (256k)" },
	{ "qpack-table", 0, NUM(qpack_table, 0, 1 << 20, 0), .arg = "<n>",
	  .help = "QPACK dynamic table capacity (0)" },
	{ "udp-rcvbuf", 0, NUM(udp_rcvbuf, 0, 1 << 30, 0), .arg = "<n>",
	  .help = "QUIC sockets' receive buffer, SO_RCVBUF(FORCE); the\n"
	  "kernel's answer is logged (0: the kernel's)" },
	{ "quic-max-conns", 0, NUM(quic_max_conns, 1, 1 << 24, 10000), .arg = "<n>",
	  .help = "QUIC connections per thread (10000)" },
	{ "no-h3", 0, FLAG(no_h3),
	  .help = "no HTTP/3 on the TLS ports' UDP twins" },
	{ "quic-retry", 0, FLAG(quic_retry),
	  .help = "validate client addresses with a QUIC Retry first" },
	{ "quic-retry-threshold", 0, NUM(quic_retry_half, 0, 1 << 24, 100), .arg = "<n>",
	  .help = "half-open QUIC connections per thread beyond\n"
	  "which new clients get a Retry first (100)" },
	{ "no-alt-svc", 0, FLAG(no_alt_svc),
	  .help = "no alt-svc: h3 header on TLS responses" },
	{ "no-defer-accept", 0, FLAG(no_defer_accept),
	  .help = "accept connections before their first bytes (default:\n"
	  "TCP_DEFER_ACCEPT, the kernel holds a silent new\n"
	  "connection about 1 to 3 s; it is invisible until then)" },
	{ "io-uring", 0, FLAG(io_uring),
	  .help = "clear-text HTTP/1 and h2c reads and writes through\n"
	  "io_uring, one ring per thread (default: epoll)" },
	{ .kind = OPT_END },
};

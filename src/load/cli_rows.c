/* hxload's option table (-h's order) and its usage text */
#include <stdio.h>

#include "common.h"
#include "lc_cli.h"
#include "lc_cli_int.h"
#include "lc_sub.h"

/* ---------- the table: -h's order ---------- */

#define NUM(f, lo, hi, d) .kind = OPT_NUM, OPT_F(struct lc_opts, f), .min = (lo), .max = (hi), .dflt = (d)
#define DUR(f, lo, d, r)  NUM(f, lo, UINT64_MAX, d), .parse = cli_dur_parse, .range = (r)
#define FLAG(f)           .kind = OPT_FLAG, OPT_F(struct lc_opts, f)
#define CONST(f, v)       .kind = OPT_CONST, OPT_F(struct lc_opts, f), .val = (v)
#define STR(f)            .kind = OPT_STR, OPT_F(struct lc_opts, f)
#define FN(fn)            .kind = OPT_FN, .set_at = (fn)

const struct opt cli_rows[] = {
	{ .kind = OPT_TEXT, .help = "Load:" },
	{ NULL, 't', NUM(threads, 1, 256, 1), .arg = "<n>",
	  .mark = LC_OWN_PROBE, .help = "threads, each with its own connections (1)" },
	{ NULL, 'c', NUM(conns, 1, 100000, 10), .arg = "<n>",
	  .mark = LC_OWN_PROBE, .help = "connections in all (10); the open-file soft limit is raised\n"
	  "to them, past the hard one refused" },
	{ NULL, 'm', NUM(depth, 1, LC_MAX_DEPTH, 1), .arg = "<n>",
	  .mark = LC_OWN_PROBE, .help = "in flight per connection: h2/h3 streams, h1 pipeline depth (1)" },
	{ NULL, 'd', DUR(duration_us, 1000, 10000000, "1ms or more"), .arg = "<time>",
	  .mark = LC_OWN_FIND | LC_OWN_PROBE, .help = "duration: seconds, or 500ms, 2m, 1h (10); with -n, whichever\n"
	  "ends first" },
	{ NULL, 'n', NUM(total, 1, 1000000000000000ULL, 0), .arg = "<n>",
	  .mark = LC_OWN_FIND | LC_OWN_PROBE, .help = "requests in all" },
	{ NULL, 'R', FN(cli_set_rate), .arg = "<rate>",
	  .mark = LC_OWN_FIND | LC_OWN_PROBE, .help = "open loop: requests per second, latency measured from each\n"
	  "request's intended send time (no coordinated omission),\n"
	  "the connections taking the send times in turn;\n"
	  "-R A:B ramps linearly from A to B over the duration" },
	{ "exact-wake", 0, FLAG(exact_wake),
	  .help = "the threads wait with a timer slack of 1 ns, not the\n"
	  "kernel's 50 us: an open loop's sends leave when due (-R\n"
	  "200000 on h3: p50 0.084 ms against 0.150, at 1.5x the\n"
	  "client's CPU a request and 1.2x the server's)" },
	{ "stages", 0, FN(cli_set_stages), .arg = "<s>",
	  .mark = LC_OWN_FIND | LC_OWN_PROBE, .help = "open loop in stages, 'D@RATE' or 'D@FROM:TO', comma-separated\n"
	  "('10s@1000,30s@5000,10s@0'); sets the duration" },
	{ NULL, 'w', DUR(warmup_us, 0, 0, NULL), .arg = "<time>",
	  .mark = LC_OWN_FIND | LC_OWN_PROBE, .help = "warm-up, not counted (at the first rate)" },
	{ "shard", 0, FN(cli_set_shard), .arg = "<I/N>",
	  .mark = LC_OWN_PROBE, .help = "this run is shard I (0..N-1) of N runs sharing one load: it\n"
	  "takes every N-th send time of the schedule, its share of -c\n"
	  "and -n, random streams of its own; with one --start-at the\n"
	  "shards start together and hxload merge adds them up" },
	{ "shards", 0, FN(cli_set_shards), .arg = "<n>",
	  .mark = LC_OWN_PROBE, .help = "--shard $JOB_COMPLETION_INDEX/<n> (a Kubernetes Indexed Job)" },
	{ "probe", 0, FN(cli_set_probe), .arg = "<rate>",
	  .mark = LC_OWN_PROBE, .help = "a reference probe beside the load: its own connection,\n"
	  "this many requests a second (open loop), its latency\n"
	  "reported apart: what a light user sees at the load's rate" },
	{ "urls", 0, STR(urls), .arg = "<file>",
	  .help = "'weight URL' a line (weight 1 when absent): each request\n"
	  "takes one by weight; one scheme, host and port for all" },
	{ "close", 0, FLAG(close),
	  .help = "a new connection for each request (h1: Connection: close;\n"
	  "h2, h3: one stream per connection); sets -m 1" },
	{ "start-at", 0, FN(cli_set_start_at), .arg = "<t>",
	  .mark = LC_OWN_AB | LC_OWN_FIND | LC_OWN_PROBE, .help = "start at epoch seconds or ISO time (2026-12-01T10:00:00Z,\n"
	  "no zone: local) so several machines start together" },
	{ .kind = OPT_TEXT, .help = "Requests:" },
	{ NULL, 'H', FN(cli_set_header), .arg = "'N: V'",
	  .help = "extra request header (repeatable); 'Host: x' replaces the\n"
	  "URL's Host and :authority" },
	{ "method", 0, STR(method), .sdflt = "GET", .arg = "<m>",
	  .help = "request method (GET)" },
	{ "body", 0, NUM(body, 0, 1 << 30, 0), .arg = "<size>",
	  .help = "request body bytes (k, m, g: KiB, MiB, GiB)" },
	{ "timeout", 0, DUR(timeout_us, 1000, 10000000, "1ms or more"), .arg = "<t>",
	  .help = "a request unanswered this long is an error (10); at the end\n"
	  "of the run, requests in flight are waited for this long" },
	{ "h1", 0, CONST(force, LC_H1), .head = "--h1 / --h2",
	  .help = "force HTTP/1.1 or HTTP/2 on https://" },
	{ "h2", 0, CONST(force, LC_H2) },
	{ "h3", 0, CONST(force, LC_H3),
	  .help = "HTTP/3 over QUIC to the https:// URL's host and port" },
	{ .kind = OPT_TEXT, .help = "Names and TLS:" },
	{ "sni", 0, STR(route.sni), .arg = "<name>",
	  .help = "TLS server name (default: the URL's host when it is a name,\n"
	  "none for an IP address; '' for none)" },
	{ "connect-to", 0, FN(cli_set_connect_to), .arg = "<H1:P1:H2:P2>",
	  .help = "connect to H2:P2 for URLs naming H1:P1 (empty:\n"
	  "any), as curl does (repeatable)" },
	{ "resolve", 0, FN(cli_set_resolve), .arg = "<H:P:ADDR>",
	  .help = "the address of H:P (P may be *), as curl (repeatable)" },
	{ "unix-socket", 0, STR(route.unix_path), .arg = "<path>",
	  .help = "connect to this Unix-domain socket (http://, h2c://,\n"
	  "https://), the URL naming the Host" },
	{ "source", 0, STR(source), .arg = "<addrs>",
	  .help = "connect from these local addresses, one per connection\n"
	  "in turn: ADDR, A-B (IPv4), A.B.C.D/N, comma-separated\n"
	  "(127.0.0.2-127.0.0.11: more than one port range's worth\n"
	  "of connections to one target, source-hash balancing)" },
	{ "proxy-protocol", 0, FN(cli_set_proxy_protocol), .arg = "v1|v2",
	  .help = "start each connection with a PROXY protocol header\n"
	  "carrying its own addresses (as a proxy does; TCP only)" },
	{ "cert", 0, STR(cert), .arg = "<file>",
	  .help = "client certificate (PEM) for mutual TLS" },
	{ "key", 0, STR(key), .arg = "<file>",
	  .help = "its key (default: in the certificate file)" },
	{ "cacert", 0, STR(cacert), .arg = "<file>",
	  .help = "verify the server's certificate and name against these CAs\n"
	  "(default: no verification, a test target is self-signed)" },
	{ "no-resume", 0, FLAG(no_resume),
	  .help = "no TLS session resumption on new connections (default: the\n"
	  "last session of the thread is offered; h3 too)" },
	{ "0rtt", 0, FLAG(zero_rtt),
	  .help = "HTTP/3: a resumed connection's first requests go in 0-RTT,\n"
	  "before the handshake ends (the server says early=1 in\n"
	  "X-rsp; refused, they are sent again after it)" },
	{ "handshakes", 0, FN(cli_set_handshakes), .arg = "<F:R:Z>",
	  .help = "handshake load: each connection one request, then closed;\n"
	  "full : resumed : 0-RTT handshakes in these shares, in turn\n"
	  "(70:25:5: exactly so in each 100), tickets from the run's\n"
	  "own; reported by kind (0-RTT: --h1 or --h3)" },
	{ "h2-engine", 0, FN(cli_set_h2_engine), .arg = "<e>",
	  .help = "HTTP/2's client: hx (default), our own, a connection's\n"
	  "state 72 bytes and the server's HPACK entries; nghttp2,\n"
	  "nghttp2's session (10 KiB a connection more)" },
	{ "h3-ports", 0, NUM(h3_ports, 0, LC_QS_PORTS_MAX, 0), .arg = "<n>",
	  .help = "HTTP/3: a thread's connections share n UDP sockets (1 to\n"
	  "64), connection i on socket i mod n, read with a recvmmsg a\n"
	  "loop turn, written by sendmmsg, 4 connections a call; 0\n"
	  "(default) a socket each, which a server sharing its port\n"
	  "over threads (SO_REUSEPORT) spreads the most evenly" },
	{ "h3-no-ring", 0, FLAG(h3_no_ring),
	  .help = "HTTP/3: each socket's reads and sends system calls of their\n"
	  "own (default: a loop turn's, all sockets, go in one\n"
	  "io_uring_enter where the kernel allows it)" },
	{ "h3-window", 0, NUM(h3_window, 1024, 1 << 30, LC_H3_WINDOW), .arg = "<n>",
	  .help = "HTTP/3: each request stream's flow-control window, bytes\n"
	  "(default 8388608), credited again as the answer is read: a\n"
	  "small one makes the server (or proxy) wait on the client" },
	{ "h3-conn-window", 0, NUM(h3_conn_window, 1024, 1 << 30, LC_H3_CONN_WINDOW), .arg = "<n>",
	  .help = "HTTP/3: the connection's flow-control window, bytes\n"
	  "(default 67108864)" },
	{ "udp-rcvbuf", 0, NUM(udp_rcvbuf, 0, 1 << 30, 4 << 20), .arg = "<n>",
	  .help = "HTTP/3: each UDP socket's receive buffer, SO_RCVBUF(FORCE)\n"
	  "(default 4194304; 0 the kernel's): a smaller one drops a\n"
	  "fast answer's datagrams (counted: UDP drops)" },
	{ "h3-no-credit", 0, FLAG(h3_no_credit),
	  .help = "HTTP/3: stream windows of 1 KiB never extended, a client\n"
	  "that stops reading at the QUIC level (a target's or a\n"
	  "proxy's send timeout should end it)" },
	{ "h3-fields", 0, FN(cli_set_h3_fields), .arg = "<list>",
	  .help = "HTTP/3: each connection's first request sends these fields,\n"
	  "'name:value&...' percent-decoded, in order, as they are (no\n"
	  "check, no lower-casing, no pseudo-header added): a probe of a\n"
	  "target's or a proxy's checks of malformed requests" },
	{ "h3-no-body", 0, FLAG(h3_no_body),
	  .help = "HTTP/3: the request head with --body's length, never the\n"
	  "body (a target's or a proxy's body timeout should end it)" },
	{ .kind = OPT_TEXT, .help = "Results:" },
	{ "verify", 0, FLAG(verify),
	  .help = "check every body byte against hxterm's pattern and the\n"
	  "length against X-rsp's size" },
	{ "sse", 0, FLAG(sse),
	  .help = "the bodies are server-sent events (hxterm's sse=1): each\n"
	  "one's delay from the send time on its data: line (the event\n"
	  "row), and how many came bunched (a buffering proxy)" },
	{ "json", 0, FLAG(json),
	  .mark = LC_OWN_PROBE, .help = "one JSON object with every figure and the full histograms,\n"
	  "and each second's (or --interval's): what compare resamples" },
	{ "server-pid", 0, NUM(server_pid, 1, 1 << 30, 0), .arg = "<pid>",
	  .mark = LC_OWN_PROBE, .help = "the target runs on this machine: its CPU time (its\n"
	  "CPU clock, to the us) per request and per MiB, in the report" },
	{ "pid", 0, FN(cli_set_pid), .arg = "<name>=<pid>",
	  .mark = LC_OWN_PROBE, .help = "another process on this machine (a proxy): its CPU time\n"
	  "in the window, per request and per MiB (repeatable, 8)" },
	{ "idle", 0, NUM(idle, 0, 1000000, 0), .arg = "<n>",
	  .help = "n more connections (h1, h2; clear or TLS; h3) that each send one\n"
	  "request, then stay idle to the end: how many the server or\n"
	  "a proxy closed and after how long idle, each process's RSS\n"
	  "(hxload's, --pid's) per idle connection" },
	{ "idle-ping", 0, DUR(idle_ping_us, 100000, 0, "100ms or more"), .arg = "<t>",
	  .help = "h2, h3: a PING on each idle connection every t (default none:\n"
	  "idle means idle, a peer's idle timeout shows)" },
	{ "label", 0, STR(label), .arg = "<text>",
	  .mark = LC_OWN_AB | LC_OWN_FIND | LC_OWN_PROBE, .help = "a name for this run in the report and the JSON" },
	{ "interval", 0, DUR(interval_us, 10000, 0, "10ms or more"), .arg = "<t>",
	  .mark = LC_OWN_AB | LC_OWN_FIND | LC_OWN_PROBE, .help = "one JSON line per interval on stdout while it runs" },
	{ "metrics", 0, STR(metrics), .arg = "<addr>",
	  .mark = LC_OWN_PROBE, .help = "serve the run's figures in Prometheus text while it runs\n"
	  "(127.0.0.1:9101; requests, errors, bytes, latency quantiles)" },
	{ "html", 0, STR(html), .arg = "<file>",
	  .mark = LC_OWN_PROBE, .help = "a self-contained HTML report (charts, no external assets)" },
	{ "hlog", 0, STR(hlog), .arg = "<file>",
	  .mark = LC_OWN_PROBE, .help = "each interval's latency as an HdrHistogram interval log\n"
	  "(ns; HistogramLogProcessor reads it; tags server, other, queue)" },
	{ "log", 0, STR(log), .arg = "<file>",
	  .mark = LC_OWN_AB | LC_OWN_FIND | LC_OWN_PROBE, .help = "one line per request: send time (epoch us), latency (us),\n"
	  "status, server time (us, - when absent)" },
	{ "fail-on", 0, FN(lc_set_check), OPT_F(struct lc_opts, fail_on), .arg = "<s>",
	  .mark = LC_OWN_FIND | LC_OWN_PROBE, .help = "exit 3 when a threshold is crossed: comma-separated\n"
	  "METRIC OP VALUE, METRIC one of p50 p90 p99 p99.9 p99.99\n"
	  "max mean (latency: us, ms (default), s), errors, non2xx\n"
	  "(a count, or % of requests), rps, late, unsent; OP one of\n"
	  "> >= < <=  ('p99>5ms,errors>0,non2xx>1%')" },
	{ "expect", 0, FN(cli_set_expect), .arg = "<statuses>",
	  .help = "the statuses that are right ('200,304', '2xx,404', '500-503';\n"
	  "default 2xx): when over half the answers are others, the\n"
	  "report opens with it, quoting the first, and the exit is 1" },
	{ NULL, 'q', FLAG(quiet),
	  .mark = LC_OWN_AB | LC_OWN_FIND | LC_OWN_PROBE, .help = "no progress line" },
	{ "version", 'v', .kind = OPT_VERSION,
	  .help = "the version" },
	{ "help", 'h', .kind = OPT_HELP,
	  .help = "this help" },
	{ .kind = OPT_TEXT, .help = "When the server is hxterm, its X-rsp time splits each latency into server" },
	{ .kind = OPT_TEXT, .help = "time, the client's own queueing (open loop) and the rest (network + proxy)." },
	{ .kind = OPT_TEXT, .help = "Exit status: 0, 1 when nothing was answered (one line says why) or over half" },
	{ .kind = OPT_TEXT, .help = "the answers had a status --expect (2xx) does not name, 2 on a bad command" },
	{ .kind = OPT_TEXT, .help = "line, 3 when a --fail-on threshold was crossed." },
	{ .kind = OPT_END },
};

void cli_usage(FILE *f)
{
	fputs("Usage: hxload [options] URL\n"
	      "       hxload [options] --urls FILE\n"
	      "       hxload ab [--rounds N] [--keep DIR] [--closed] [--json] [--html FILE] [--max-failed PCT]\n"
	      "                 [--from DIR] [options] A_URL B_URL\n"
	      "       hxload find --slo SPEC [--step-duration T] [--precision PCT] [--keep DIR] [--json] [options] URL\n"
	      "       hxload merge [--json] [--html FILE] [--fail-on SPEC] [--label L] [--force] RUN.json...\n"
	      "       hxload compare [--json] [--resamples N] A.json... [vs B.json...]\n"
	      "       hxload quic-flood [--count N] [--rate N] [--random] [--json] HOST:PORT\n"
	      "  URL: http://host:port/path (HTTP/1.1), https://... (ALPN: h2, else\n"
	      "  HTTP/1.1), h2c://host:port/path (HTTP/2 by prior knowledge),\n"
	      "  ws://host:port/path, wss://... (WebSocket: each request a message; echo:\n"
	      "  one of --body bytes (64) sent, its echo timed and checked; a path with\n"
	      "  ws=gen: each message the server sends, timed from the one before),\n"
	      "  grpc://host:port/Service/Method?QUERY, grpcs://... (gRPC calls on h2: an\n"
	      "  empty message each, the query as x-hxterm metadata; calls counted by\n"
	      "  grpc-status, their messages counted)\n", f);
	opt_usage(f, cli_rows, 18);
}

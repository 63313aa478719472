/* --dump-config (haterm's -C): the effective configuration, every setting, as the options that give it. */
#include <stdio.h>

#include "config.h"

/* an -L value: the address, its TLS port, its options */
static void dump_addr(FILE *f, const struct listen_addr *la)
{
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

static void flag(FILE *f, int on, const char *opt)
{
	if (on)
		fprintf(f, "%s\n", opt);
}

static void num(FILE *f, const char *opt, unsigned long long v)
{
	fprintf(f, "%s %llu\n", opt, v);
}

static void str(FILE *f, const char *opt, const char *v)
{
	if (v)
		fprintf(f, "%s '%s'\n", opt, v);
}

static void dump_tunables(FILE *f)
{
	num(f, "--bufsize", cfg.iobuf);
	num(f, "--rspbuf", cfg.rspbuf);
	num(f, "--sndbuf", (unsigned long long)cfg.sndbuf);
	fputs(cfg.splice ? "--splice\n" : "--no-splice\n", f);
	num(f, "--max-uri", cfg.max_uri);
	num(f, "--max-headers", (unsigned long long)cfg.max_hdrs);
	num(f, "--max-body", cfg.max_body);
	num(f, "--idle-timeout", cfg.idle_ms);
	num(f, "--head-timeout", cfg.head_ms);
	num(f, "--body-timeout", cfg.body_ms);
	num(f, "--send-timeout", cfg.send_ms);
	num(f, "--drain-timeout", cfg.drain_ms);
	num(f, "--h2-streams", cfg.h2_streams);
	num(f, "--h2-window", cfg.h2_window);
	num(f, "--h2-conn-window", cfg.h2_conn_window);
	num(f, "--h2-frame", cfg.h2_frame);
	num(f, "--h2-table", cfg.h2_table);
	num(f, "--h2-enc-table", cfg.h2_enc_table);
	num(f, "--h2-max-resets", cfg.h2_max_resets);
	fprintf(f, "--h2-engine %s\n", cfg.h2_engine == H2ENG_HX ? "hx" : "nghttp2");
	fprintf(f, "--h3-engine %s\n", cfg.h3_engine == H3ENG_HX ? "hx" : "nghttp3");
	num(f, "--h3-streams", cfg.h3_streams);
	num(f, "--h3-window", cfg.h3_window);
	num(f, "--qpack-table", cfg.qpack_table);
	num(f, "--quic-max-conns", cfg.quic_max_conns);
	num(f, "--quic-retry-threshold", cfg.quic_retry_half);
}

void config_dump(FILE *f)
{
	char name[160];

	fprintf(f, "# hxterm %s: the effective configuration, one option a line\n", HX_VERSION);
	for (int i = 0; i < cfg.naddrs; i++)
		dump_addr(f, &cfg.addrs[i]);
	num(f, "-t", (unsigned long long)cfg.threads);
	num(f, "-n", (unsigned long long)cfg.maxconn);
	flag(f, cfg.daemon, "-D");
	flag(f, cfg.quiet, "-q");
	flag(f, cfg.debug, "-d");
	str(f, "--pidfile", cfg.pidfile);
	str(f, "--name", cfg.name);
	str(f, "--defaults", cfg.defaults);
	num(f, "--max-size", cfg.max_size);
	num(f, "--max-wait", cfg.max_wait);
	if (cfg.cert) {
		str(f, "--cert", cfg.cert);
		str(f, "--key", cfg.key);
	} else {
		num(f, "-b", (unsigned long long)cfg.rsa_bits);
		str(f, "-c", cfg.curve);
	}
	str(f, "--client-ca", cfg.client_ca);
	if (cfg.client_cert)
		fprintf(f, "--client-cert %s\n", cfg.client_cert == CC_REQUIRE ? "require" : "request");
	str(f, "--ticket-keys", cfg.ticket_keys);
	flag(f, cfg.early_data, "--early-data");
	dump_tunables(f);
	flag(f, cfg.no_h3, "--no-h3");
	flag(f, cfg.quic_retry, "--quic-retry");
	flag(f, cfg.no_alt_svc, "--no-alt-svc");
	flag(f, cfg.strict, "--strict");
	flag(f, cfg.no_defer_accept, "--no-defer-accept");
	flag(f, cfg.io_uring, "--io-uring");
	flag(f, cfg.share_port, "--share-port");
	if (cfg.stats.clear_port) {
		listen_name(&cfg.stats, cfg.stats.clear_port, name, sizeof(name));
		fprintf(f, "--stats %s\n", name);
	}
	str(f, "--access-log", cfg.access_log);
	if (cfg.access_log)
		num(f, "--access-log-sample", cfg.access_sample);
	for (int i = 0; i < cfg.nreplace; i++)
		fprintf(f, "%s%d%s", i ? "," : cfg.replace_now ? "--terminate " : "--finish ", cfg.replace_pids[i],
			i + 1 == cfg.nreplace ? "\n" : "");
}

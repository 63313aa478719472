/* hxload's command line between its files: cli.c parses and checks, cli_rows.c holds the option table, cli_set.c its setters. */
#ifndef HX_LC_CLI_INT_H
#define HX_LC_CLI_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "opt.h"

/* the option table, -h's order */
extern const struct opt cli_rows[];
/* what the setters saw that cli.c checks or uses */
extern const char *cli_host_hdr; /* -H 'Host: ...' */
extern int cli_have_conn_hdr;    /* -H 'Connection: ...' */
extern int cli_have_stages;      /* --stages */

int cli_dur_parse(const char *s, uint64_t *us, const char **err);
int cli_set_connect_to(const char *arg, char *why, size_t len);
int cli_set_expect(const char *arg, char *why, size_t len);
int cli_set_fail_on(const char *arg, char *why, size_t len);
int cli_set_h3_fields(const char *arg, char *why, size_t len);
int cli_set_handshakes(const char *arg, char *why, size_t len);
int cli_set_header(const char *h, char *why, size_t len);
int cli_set_pid(const char *arg, char *why, size_t len);
int cli_set_probe(const char *arg, char *why, size_t len);
int cli_set_proxy_protocol(const char *arg, char *why, size_t len);
int cli_set_rate(const char *arg, char *why, size_t len);
int cli_set_resolve(const char *arg, char *why, size_t len);
int cli_set_shard(const char *arg, char *why, size_t len);
int cli_set_shards(const char *arg, char *why, size_t len);
int cli_set_source(const char *arg, char *why, size_t len);
int cli_set_stages(const char *arg, char *why, size_t len);
int cli_set_start_at(const char *arg, char *why, size_t len);
void cli_usage(FILE *f);

#endif

/* hxload's command line between its files: cli.c parses and checks, cli_rows.c holds the option table, cli_set.c its setters. */
#ifndef HX_LC_CLI_INT_H
#define HX_LC_CLI_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "opt.h"

/* the option table, -h's order */
extern const struct opt cli_rows[];
/* a row's setter: the row, the struct it sets (struct lc_opts for the
 * main rows), the value; 0, or -1 with one line in <why>; no global, no exit */
#define CLI_SETTER(name) int name(const struct opt *o, void *base, const char *arg, char *why, size_t len)

int cli_dur_parse(const char *s, uint64_t *us, const char **err);
CLI_SETTER(cli_set_connect_to);
CLI_SETTER(cli_set_expect);
CLI_SETTER(cli_set_h2_engine);
CLI_SETTER(cli_set_h3_fields);
CLI_SETTER(cli_set_handshakes);
CLI_SETTER(cli_set_header);
CLI_SETTER(cli_set_pid);
CLI_SETTER(cli_set_probe);
CLI_SETTER(cli_set_proxy_protocol);
CLI_SETTER(cli_set_rate);
CLI_SETTER(cli_set_resolve);
CLI_SETTER(cli_set_shard);
CLI_SETTER(cli_set_shards);
CLI_SETTER(cli_set_stages);
CLI_SETTER(cli_set_start_at);
void cli_usage(FILE *f);

#endif

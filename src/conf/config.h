/* Command-line parsing into the global configuration. */
#ifndef HX_CONFIG_H
#define HX_CONFIG_H

#include <stdio.h>

#include "config-t.h"

extern struct config cfg;

/* Fills <cfg> from argv. Returns 0 to run, 1 when the process should exit 0
 * (-h, -v), or -1 after printing one line on stderr (exit status 2). */
int config_parse(int argc, char **argv);
/* the effective configuration as the options that give it (--dump-config) */
void config_dump(FILE *f);

#endif

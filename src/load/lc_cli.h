/* hxload's options while the command line is parsed: the writable objects behind lc_o and lc_tg, for cli.c and url.c alone. */
#ifndef HX_LC_CLI_H
#define HX_LC_CLI_H

#include "lc_opts.h"

extern struct lc_opts lc_opts;
extern struct lc_target lc_target;

/* reads <url> into lc_target (scheme, host, port, authority, path), or exits 2 */
void lc_url_parse(const char *url, int first);
/* where to connect and what SNI to send, from the URL and lc_route, or exits 2 */
void lc_url_route(void);
/* reads --urls FILE */
void lc_urls_file(const char *file);


#endif

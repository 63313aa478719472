/* hxload --idle: connections held idle beside the load, their closes and each process's RSS per connection. */
#ifndef HX_LC_IDLE_H
#define HX_LC_IDLE_H

#include <stdio.h>

/* opens --idle N connections and waits until each is answered (or failed):
 * 0, or -1 with a line on stderr */
int lc_idle_start(void);
/* the load is over: the RSS at the end, then they are closed */
void lc_idle_stop(void);
/* the report's idle lines, the JSON's "idle" member: nothing without --idle */
void lc_idle_text(FILE *f);
void lc_idle_json(FILE *f);

struct json;
/* hxload merge: a run's idle object added to the report's (counts summed,
 * the closes by second too, the rss rows side by side): 0 or -1 (malformed) */
int lc_idle_read(const struct json *run);

#endif

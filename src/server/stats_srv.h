/* The stats listener (--stats): bound at start, served by a thread of its own. */
#ifndef HX_STATS_SRV_H
#define HX_STATS_SRV_H

/* binds --stats when it is set: 0, or -1 after saying why */
int stats_listen(void);
/* starts its thread (after the workers): 0 or -1 */
int stats_start(void);
/* ends the thread, closes the listener */
void stats_stop(void);

#endif

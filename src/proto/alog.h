/* The access log (--access-log): a JSON line per request (or one in --access-log-sample), buffered per worker, written by a thread of its own. */
#ifndef HX_ALOG_H
#define HX_ALOG_H

#include <stdint.h>
#include <sys/socket.h>

#include "client.h"
#include "gen.h"
#include "stats.h"

struct worker;

/* opens cfg.access_log ("-": stdout) and starts the writer: 0, or -1 after saying why */
int alog_start(void);
/* SIGHUP: the file is opened again by its name (logrotate) */
void alog_reopen(void);
/* after the workers ended: what they left written, the writer stopped */
void alog_stop(void);
/* lines that could not be kept (out of memory, a write error) */
uint64_t alog_dropped(void);

/* the worker's buffer and its once-a-second flush: 0 or -1 */
int alog_thread_init(struct worker *w);
/* the worker ends: its buffer handed to the writer */
void alog_thread_flush(struct worker *w);

/* who the request came from: a TCP socket, or a QUIC peer's address */
struct alog_peer {
	int fd;                                  /* -1: see <addr> */
	const struct sockaddr_storage *addr;
};

/* One response head went out on <w> (call it when w->alog is set): logs
 * it when the sample takes it. */
void alog_write(struct worker *w, enum st_proto p, const struct exch *x, struct cpeer peer, uint32_t nreq,
		int64_t gen_ns);

#endif

/* ngtcp2's memory for one connection, tracked: what ngtcp2 0.12 leaves allocated when the connection is deleted (its issue 1244) is freed with it. */
#ifndef HX_QMEM_H
#define HX_QMEM_H

#include <stddef.h>

#include <ngtcp2/ngtcp2.h>

/* the list's head: every block ngtcp2 holds, between prev and next */
struct qmem_blk {
	struct qmem_blk *prev, *next;
};

struct qmem {
	ngtcp2_mem mem;      /* what ngtcp2_conn_*_new() is given */
	struct qmem_blk head;
};

void qmem_init(struct qmem *q);
/* after ngtcp2_conn_del(): frees what is left, returns how many blocks */
size_t qmem_release(struct qmem *q);

#endif

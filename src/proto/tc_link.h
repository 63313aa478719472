/* The counted base of a server connection, TCP or QUIC: its worker and its place on its protocol's set (tc_set.h), all the set's accounting needs beside the why and the stats slot it is given. */
#ifndef HX_TC_LINK_H
#define HX_TC_LINK_H

#include "list.h"

struct worker;

struct tc_link {
	struct worker *w;
	struct list node;    /* on its set's live list (a TCP one's: or zombies, or free) */
};

/* the base as a member of a connection's struct, named whole (c->l, for
 * the set) and by its fields (c->w, c->node). WHY both: the protocols'
 * code names c->w in a hundred places; the set is handed the base alone,
 * so a QUIC connection, with no TCP part, is counted by the same code */
#define TC_LINK union { struct tc_link l; struct { struct worker *w; struct list node; }; }

#endif

/* The protocol table: every protocol's row, in enum proto_id order, for sess_init(). */
#include "proto.h"

const struct proto *const proto_table[P_MAX] = {
	[P_H1] = &proto_h1,
	[P_H2] = &proto_h2,
	[P_H3] = &proto_h3,
	[P_WS] = &proto_ws,
};

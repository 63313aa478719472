/* What each worker counts for --stats: the bucket bounds, the labels, the rarer counts. */
#include <stdio.h>

#include "stats.h"

const char *const st_proto_names[SP_MAX] = { "h1", "h1-tls", "h2c", "h2", "h3", "ws" };

/* 50 us to 10 s: a target's generation time and its timers' lateness */
const uint64_t st_time_le_us[ST_TIME_B - 1] = { 50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000,
						100000, 250000, 500000, 1000000, 2500000, 5000000,
						10000000 };

const uint64_t st_rpc_le[ST_RPC_B - 1] = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000 };

const uint16_t st_bad_codes[ST_BAD_B - 1] = { 400, 408, 413, 414, 431, 501, 505 };
const char *const st_bad_names[ST_BAD_B] = { "400", "408", "413", "414", "431", "501", "505", "other" };
const char *const st_fault_names[SF_MAX] = { "reset", "close" };
const char *const st_dgram_names[SQD_MAX] = { "version_negotiation", "retry", "stateless_reset", "dropped" };
const char *const st_h3t_names[SH3_MAX] = { "head", "body", "send" };
const char *const st_pp_names[2] = { "1", "2" }, *const st_pp_keys[2] = { "v1", "v2" };
const char *const st_dir_names[2] = { "in", "out" };
const char *st_udp_names[ST_LISTEN_B];

void st_udp_name(unsigned i, const char *name)
{
	static char names[ST_LISTEN_B][64];

	if (i >= ST_LISTEN_B)
		return;
	snprintf(names[i], sizeof(names[i]), "%s", name);
	st_udp_names[i] = names[i];
}

#define ST_ROW(f, n, name, json, label, lv, jv, help) \
	{ NULL, json, name, label, lv, jv, help, n, offsetof(struct wstats, f) },
const struct row st_rows[] = { ST_ROWS(ST_ROW) };
#undef ST_ROW
const unsigned st_nrows = sizeof(st_rows) / sizeof(st_rows[0]);

const char *const st_h2e_names[ST_H2E_B] = { "no_error", "protocol_error", "internal_error", "refused_stream",
					     "cancel", "enhance_your_calm", "other" };

unsigned st_h2e(uint32_t code)
{
	switch (code) {
	case 0: return 0;
	case 1: return 1;
	case 2: return 2;
	case 7: return 3;
	case 8: return 4;
	case 11: return 5;
	default: return 6;
	}
}

const char *const st_h3e_names[ST_H3E_B] = { "no_error", "general_protocol_error", "internal_error",
					     "excessive_load", "request_rejected", "request_cancelled",
					     "request_incomplete", "message_error", "qpack_decompression_failed", "other" };

unsigned st_h3e(uint64_t code)
{
	switch (code) {
	case 0x100: return 0;
	case 0x101: return 1;
	case 0x102: return 2;
	case 0x107: return 3;
	case 0x10b: return 4;
	case 0x10c: return 5;
	case 0x10d: return 6;
	case 0x10e: return 7;
	case 0x200: return 8;
	default: return 9;
	}
}

const char *const st_pre_names[SPR_MAX] = { "proxy_bad", "proxy_timeout", "tls_failed", "tls_timeout", "peer",
					    "drain", "error", "out_of_fds" };
const char *const st_close_names[SC_MAX] = { "peer", "server", "idle", "timeout", "fault", "bad_request", "error",
					     "drain" };

void st_conn_close(struct wstats *st, enum st_proto p, uint32_t nreq, unsigned why)
{
	unsigned i = 0;

	ctr_add(&st->conn_why[p][why < SC_MAX ? why : SC_PEER], 1);
	while (i < ST_RPC_B - 1 && nreq > st_rpc_le[i])
		i++;
	ctr_add(&st->conn_closed[p], 1);
	ctr_add(&st->rpc[p].b[i], 1);
	ctr_add(&st->rpc[p].sum, nreq);
}

void st_bad(struct wstats *st, unsigned status)
{
	unsigned i = 0;

	while (i < ST_BAD_B - 1 && st_bad_codes[i] != status)
		i++;
	ctr_add(&st->bad[i], 1);
}

/* Types of the process-wide configuration, read-only once workers start. */
#ifndef HX_CONFIG_T_H
#define HX_CONFIG_T_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "gen.h"
#include "listen.h"

#define CFG_MAX_LISTEN 256

/* what --client-cert asks */
enum { CC_OFF, CC_REQUEST, CC_REQUIRE }; /* -L addresses, after host names and port ranges */
/* --h2-engine, --h3-engine: the library's (0) or ours (1, opt_engine) */
enum { H2ENG_NGHTTP2, H2ENG_HX };
enum { H3ENG_NGHTTP3, H3ENG_HX };

struct config {
	struct listen_addr addrs[CFG_MAX_LISTEN];
	int naddrs;
	int threads;
	int maxconn;
	int daemon;
	int quiet;
	int debug;
	char name[256];             /* X-rsp id= */
	size_t name_len;
	const char *defaults;       /* --defaults query, already validated */
	uint64_t max_size;          /* --max-size */
	uint64_t max_wait;          /* --max-wait, ms */
	size_t iobuf;               /* --bufsize: recv buffer = max request head */
	size_t rspbuf;              /* --rspbuf: prebuilt body buffer size */
	size_t max_uri;             /* --max-uri: request line limit (414) */
	int max_hdrs;               /* --max-headers (431) */
	int sndbuf;                 /* --sndbuf: SO_SNDBUF, 0 = kernel's */
	int udp_rcvbuf;             /* --udp-rcvbuf: QUIC sockets' SO_RCVBUF, 0 = kernel's */
	int splice;                 /* --splice */
	uint64_t idle_ms;           /* --idle-timeout: keep-alive idle */
	uint32_t conn_requests;     /* --conn-requests: requests per connection, then its end (0: no limit) */
	uint64_t head_ms;           /* --head-timeout: first byte to end of head */
	uint64_t body_ms;           /* --body-timeout: between body reads */
	uint64_t send_ms;           /* --send-timeout: client not reading */
	uint64_t max_body;          /* --max-body: request body (413) */
	uint64_t drain_ms;          /* --drain-timeout: graceful stop */
	int rsa_bits;               /* -b */
	const char *curve;          /* -c */
	const char *cert;           /* --cert */
	const char *key;            /* --key */
	const char *client_ca;      /* --client-ca: CAs of client certificates */
	int client_cert;            /* --client-cert: CC_OFF, CC_REQUEST, CC_REQUIRE */
	const char *ticket_keys;    /* --ticket-keys: session-ticket keys file */
	int early_data;             /* --early-data: TLS 1.3 0-RTT */
	uint32_t h2_streams;        /* --h2-streams: SETTINGS_MAX_CONCURRENT_STREAMS */
	uint32_t h2_window;         /* --h2-window: SETTINGS_INITIAL_WINDOW_SIZE */
	uint32_t h2_conn_window;    /* --h2-conn-window */
	uint32_t h2_frame;          /* --h2-frame: SETTINGS_MAX_FRAME_SIZE */
	uint32_t h2_table;          /* --h2-table: SETTINGS_HEADER_TABLE_SIZE */
	uint32_t h2_enc_table;      /* --h2-enc-table: our HPACK encoder's table at most */
	uint32_t h2_max_resets;     /* --h2-max-resets: RST_STREAM per second */
	uint8_t h2_engine;          /* --h2-engine: H2ENG_HX (ours) or H2ENG_NGHTTP2 */
	uint8_t h3_engine;          /* --h3-engine: H3ENG_HX (ours) or H3ENG_NGHTTP3 */
	uint32_t h3_streams;        /* --h3-streams: initial_max_streams_bidi */
	uint32_t h3_window;         /* --h3-window: stream flow-control window */
	uint32_t qpack_table;       /* --qpack-table: QPACK dynamic table capacity */
	uint32_t quic_max_conns;    /* --quic-max-conns: per thread */
	int no_h3;                  /* --no-h3 */
	int quic_retry;             /* --quic-retry: validate addresses with Retry */
	uint32_t quic_retry_half;   /* --quic-retry-threshold: half-open per thread, then Retry */
	int no_alt_svc;             /* --no-alt-svc */
	int strict;                 /* --strict: an unknown key is a 400 */
	int no_defer_accept;        /* --no-defer-accept */
	int io_uring;               /* --io-uring */
	struct listen_addr stats;   /* --stats: its clear port 0 when off */
	int share_port;             /* --share-port: bind beside another owner */
	const char *pidfile;        /* --pidfile, NULL: none */
	const char *access_log;     /* --access-log file or "-", NULL: off */
	uint64_t access_sample;     /* --access-log-sample: one request in N */
	int listen_default;         /* no -L: :8000:8443 */
	int check;                  /* --check (httpterm's -c): parse, then exit 0 */
	int dump;                   /* --dump-config (haterm's -C) */
	int nreplace;               /* --finish/--terminate: the old instances */
	int replace_now;            /* --terminate: stop them at once, not drained */
	int replace_pids[64];
	struct gen_conf gen;        /* what the generator reads of the above */
};

#endif

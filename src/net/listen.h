/* Listening sockets: address parsing for -L and SO_REUSEPORT sockets per worker. */
#ifndef HX_LISTEN_H
#define HX_LISTEN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* one -L: an address, its clear port and its optional TLS port */
struct listen_addr {
	struct sockaddr_storage ss; /* port left 0: filled per socket */
	socklen_t sslen;
	int any;                    /* empty ip: all addresses (dual stack) */
	uint16_t clear_port;
	uint16_t tls_port;          /* 0: none */
	char text[128];             /* the address, numeric ("" for all) */
	char host[128];             /* the host name it was resolved from, or "" */
};

/* Parses "<host>:<port>[:<tls port>]" into out[0..max): <host> is an IP
 * (IPv6 in brackets), empty or * for all addresses, or a name resolved now
 * (each of its addresses); a port may be a range N-M (the clear and TLS
 * ranges of the same length). Returns how many listen addresses, or -1 with
 * a reason in <why>. */
int listen_parse(const char *arg, struct listen_addr *out, int max, const char **why);

/* 0 when no socket holds <la> at <port> (<type>: SOCK_STREAM or
 * SOCK_DGRAM), else -1 with errno (EADDRINUSE: another process has it;
 * SO_REUSEPORT would share it silently). */
int listen_free(const struct listen_addr *la, uint16_t port, int type);

/* A non-blocking SO_REUSEPORT listening TCP socket on <la> at <port>.
 * Returns the fd, or -1 with errno set. */
int listen_tcp(const struct listen_addr *la, uint16_t port);

/* The same for a UDP socket (QUIC) */
int listen_udp(const struct listen_addr *la, uint16_t port);

/* "127.0.0.1:8000" / "[::1]:8000" / "*:8000" into <buf> */
void listen_name(const struct listen_addr *la, uint16_t port, char *buf,
		 size_t len);

#endif

/* Listening sockets: address parsing for -L and SO_REUSEPORT sockets per worker. */
#ifndef HX_LISTEN_H
#define HX_LISTEN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/* one -L: an address, its clear port and its optional TLS port; or a
 * Unix socket (ss.ss_family AF_UNIX, no ports, clear text) */
struct listen_addr {
	struct sockaddr_storage ss; /* port left 0: filled per socket */
	socklen_t sslen;
	int any;                    /* empty ip: all addresses (dual stack) */
	uint16_t clear_port;
	uint16_t tls_port;          /* 0: none */
	char text[128];             /* the address, numeric ("" for all) */
	char host[128];             /* the host name it was resolved from, or "" */
	uint8_t proxy;              /* ,proxy: a PROXY header starts each connection */
	uint16_t mode;              /* ,mode= of a Unix socket, 0: the umask's */
};

/* Parses "<host>:<port>[:<tls port>][,<option>...]" or
 * "unix:<path>[,<option>...]" into out[0..max): <host> is an IP (IPv6 in
 * brackets), empty or * for all addresses, or a name resolved now (each of
 * its addresses); a port may be a range N-M (the clear and TLS ranges of
 * the same length). Options: "proxy" (PROXY protocol v1 or v2 first),
 * "mode=<octal>" (a Unix socket's permissions). Returns how many listen
 * addresses, or -1 with a reason in <why>. */
int listen_parse(const char *arg, struct listen_addr *out, int max, const char **why);

/* 0 when no socket holds <la> at <port> (<type>: SOCK_STREAM or
 * SOCK_DGRAM), else -1 with errno (EADDRINUSE: another process has it;
 * SO_REUSEPORT would share it silently). */
int listen_free(const struct listen_addr *la, uint16_t port, int type);

/* A non-blocking listening Unix socket at <la>'s path, with its mode. A
 * socket file left by a process that is gone is replaced; one that answers
 * is refused (errno EADDRINUSE) unless <take_over> (this process replaces
 * that one), and so is a file that is no socket (EEXIST). Returns the fd
 * with the socket file's inode in <*ino>, or -1 with errno set. */
int listen_unix(const struct listen_addr *la, int take_over, ino_t *ino);

/* Removes <la>'s socket file when it is still the one listen_unix() made,
 * inode <ino> (a process that replaced this one may have bound its own). */
void listen_unix_remove(const struct listen_addr *la, ino_t ino);

/* A non-blocking SO_REUSEPORT listening TCP socket on <la> at <port>.
 * Returns the fd, or -1 with errno set. */
int listen_tcp(const struct listen_addr *la, uint16_t port);

/* The same for a UDP socket (QUIC) */
int listen_udp(const struct listen_addr *la, uint16_t port);

/* a socket address as "192.0.2.1:5678", "[2001:db8::1]:5678", "unix" (a
 * Unix socket's peer has no name) or "?" */
void sa_name(const struct sockaddr_storage *ss, char *buf, size_t len);

/* "127.0.0.1:8000" / "[::1]:8000" / "*:8000" / "unix:/path" into <buf> */
/* 1 when a socket bound to <a> and one bound to <b> at the same port (and
 * type) would share its connections: the same address, a wildcard that
 * covers the other, or the same Unix path */
int listen_overlap(const struct listen_addr *a, const struct listen_addr *b);

void listen_name(const struct listen_addr *la, uint16_t port, char *buf,
		 size_t len);

#endif

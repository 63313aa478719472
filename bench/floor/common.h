/* The kernel floor: what the two floor servers share (listener, fixed response, request count). */
#ifndef FLOOR_COMMON_H
#define FLOOR_COMMON_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define MAX_PIPE 64 /* pipelined requests answered per read */

/* a response of hxterm's shape: the same head fields, 100-byte body */
static char resp[512];
static size_t resp_len;

static void resp_init(void)
{
	char body[101];

	memset(body, 'a', 100);
	body[100] = 0;
	resp_len = (size_t)snprintf(resp, sizeof(resp),
		"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nContent-Type: text/plain\r\n"
		"X-req: size=95, time=0.010 ms\r\n"
		"X-rsp: id=floor, code=200, cache=1, size=100, time=0 ms (0.003 real)\r\n"
		"Server-Timing: wait;dur=0, gen;dur=0.003\r\n\r\n%s", body);
}

static int listen_on(int port, int flags)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | flags, 0), one = 1;

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 4096) < 0) {
		perror("listen");
		exit(1);
	}
	return fd;
}

/* complete request heads in <b>: no parsing beyond the blank line */
static int heads_in(const char *b, size_t n)
{
	int k = 0;

	for (size_t i = 3; i < n; i++)
		k += b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r';
	return k < MAX_PIPE ? k : MAX_PIPE;
}

/* one iovec per response, all pointing at the same bytes */
static int responses(struct iovec *iov, int k)
{
	for (int i = 0; i < k; i++)
		iov[i] = (struct iovec){ resp, resp_len };
	return k;
}

#endif

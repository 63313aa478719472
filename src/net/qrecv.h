/* QUIC datagrams in, a batch per recvmmsg, with the kernel's count of those it dropped (SO_RXQ_OVFL). */
#ifndef HX_QRECV_H
#define HX_QRECV_H

#include <stdint.h>
#include <sys/socket.h>

#define QR_BATCH 16   /* datagrams a recvmmsg */
#define QR_SIZE  2048 /* bytes a datagram: a longer one is cut, and fails to decrypt */

/* one batch's room: datagram i is bufs[i], mm[i].msg_len bytes long, from peers[i] */
struct qr_batch {
	struct mmsghdr mm[QR_BATCH];
	struct iovec iov[QR_BATCH];
	struct sockaddr_storage peers[QR_BATCH];
	uint8_t bufs[QR_BATCH][QR_SIZE];
	/* SO_RXQ_OVFL's uint32_t, aligned as cmsg wants */
	union {
		char b[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} ctrl[QR_BATCH];
	int used; /* entries the last read filled: their lengths are set back before the next */
};

/* Asks <fd> for the kernel's drop count with each datagram and, when
 * <rcvbuf> is not 0, for a receive buffer that large (SO_RCVBUFFORCE
 * first: past net.core.rmem_max when the process may). Returns the size
 * the kernel answered (SO_RCVBUF, which counts its overhead: about twice
 * the size asked), or -1 with errno. */
int qr_setup(int fd, int rcvbuf);

/* Points <b>'s entries at their buffers, once before its first read. */
void qr_init(struct qr_batch *b);

/* Reads up to QR_BATCH datagrams of <fd> into <b>. Returns how many (0:
 * none waiting, -1: an error). <*seen> is the last drop count the kernel
 * gave for this socket: the datagrams it dropped since are added to
 * <*drops>. */
int qr_read(int fd, struct qr_batch *b, uint32_t *seen, uint64_t *drops);

#endif

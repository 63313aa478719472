/* QUIC datagrams in, a batch per recvmmsg, with the kernel's count of those it dropped (SO_RXQ_OVFL). */
#include <errno.h>
#include <string.h>

#include "qrecv.h"

int qr_setup(int fd, int rcvbuf)
{
	int one = 1, got = 0;
	socklen_t len = sizeof(got);

	if (setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one)) < 0)
		return -1;
	/* WHY FORCE first: SO_RCVBUF is capped at net.core.rmem_max (208k
	 * here), too small for a burst at 300k requests a second */
	if (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) < 0)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len) < 0)
		return -1;
	return got;
}

/* the kernel's drop count in datagram <m>'s control data, if it came */
static int qr_drops(struct msghdr *m, uint32_t *count)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SO_RXQ_OVFL) {
			memcpy(count, CMSG_DATA(cm), sizeof(*count));
			return 1;
		}
	return 0;
}

void qr_init(struct qr_batch *b)
{
	for (int i = 0; i < QR_BATCH; i++) {
		b->iov[i] = (struct iovec){ b->bufs[i], QR_SIZE };
		b->mm[i].msg_hdr = (struct msghdr){ .msg_name = &b->peers[i], .msg_namelen = sizeof(b->peers[i]),
						    .msg_iov = &b->iov[i], .msg_iovlen = 1,
						    .msg_control = b->ctrl[i].b, .msg_controllen = sizeof(b->ctrl[i].b) };
	}
	b->used = 0;
}

int qr_read(int fd, struct qr_batch *b, uint32_t *seen, uint64_t *drops)
{
	int n;

	/* WHY only the lengths, and only of the entries filled: recvmmsg writes
	 * back the address and control lengths (and flags) of the datagrams it
	 * gave, never the pointers or the iovecs. Setting all 16 headers each
	 * call cost 423 instructions, at 20k requests a second two reads a
	 * request (callgrind) */
	for (int i = 0; i < b->used; i++) {
		b->mm[i].msg_hdr.msg_namelen = sizeof(b->peers[i]);
		b->mm[i].msg_hdr.msg_controllen = sizeof(b->ctrl[i].b);
	}
	b->used = 0;
	do
		n = recvmmsg(fd, b->mm, QR_BATCH, 0, NULL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	b->used = n;
	/* WHY the last one: the count is the socket's running total when the
	 * datagram was queued (absent while it is 0) */
	for (int i = n - 1; i >= 0; i--) {
		uint32_t c;

		if (qr_drops(&b->mm[i].msg_hdr, &c)) {
			*drops += (uint32_t)(c - *seen); /* WHY uint32_t: the kernel's counter wraps */
			*seen = c;
			break;
		}
	}
	return n;
}

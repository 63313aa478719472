/* Unit tests of the QUIC Initial check: a real client's Initial opens, any byte changed, a random payload, a cut packet or a wrong header does not. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>

#include <gnutls/crypto.h>

#include "qhello.h"
#include "qinit.h"
#include "tap.h"

int main(void)
{
	struct qtls t = { 0 };
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(4433) };
	struct sockaddr_in b = { .sin_family = AF_INET, .sin_port = htons(50000) };
	uint8_t pkt[1500], bad[1500];
	long n;
	int changed_ok = 0, trials = 0;

	a.sin_addr.s_addr = b.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok(qtls_init(&t) == 0, "GnuTLS for QUIC");
	n = qhello_write(&t, "localhost", (struct sockaddr *)&b, sizeof(b), (struct sockaddr *)&a, sizeof(a), pkt,
			 sizeof(pkt));
	ok(n >= 1200, "ngtcp2 and GnuTLS wrote a client Initial of %ld bytes (at least 1200)", n);
	is_int(qinit_open(pkt, (size_t)n), 0, "a real client's Initial opens with the keys of its DCID");
	for (int i = 0; i < 20; i++) {
		long m = qhello_write(&t, NULL, (struct sockaddr *)&b, sizeof(b), (struct sockaddr *)&a, sizeof(a), bad,
				      sizeof(bad));

		trials += m > 0 && qinit_open(bad, (size_t)m) == 0;
	}
	is_int(trials, 20, "so do 20 more, each with its own connection IDs");
	/* WHY every position: the header is authenticated data, the rest is
	 * sealed (ngtcp2 pads inside the packet, so nothing is outside both) */
	for (long i = 0; i < n; i++) {
		memcpy(bad, pkt, (size_t)n);
		bad[i] ^= 0x01;
		changed_ok += qinit_open(bad, (size_t)n) == 0;
	}
	ok(changed_ok == 0, "one bit flipped anywhere in the %ld bytes: none opens (%d did)", n, changed_ok);
	memcpy(bad, pkt, (size_t)n);
	gnutls_rnd(GNUTLS_RND_NONCE, bad + 60, (size_t)n - 60);
	is_int(qinit_open(bad, (size_t)n), -1, "the same header with a random payload does not open");
	is_int(qinit_open(pkt, 1100), -1, "cut short of its Length, it does not open");
	is_int(qinit_open(pkt, 6), -1, "nor six bytes of it");
	memcpy(bad, pkt, (size_t)n);
	bad[0] = (uint8_t)((bad[0] & ~0x30) | 0x20); /* Handshake type */
	is_int(qinit_open(bad, (size_t)n), -1, "a Handshake packet is not an Initial");
	memcpy(bad, pkt, (size_t)n);
	bad[5] = 21;
	is_int(qinit_open(bad, (size_t)n), -1, "a DCID longer than 20 bytes is refused");
	memcpy(bad, pkt, (size_t)n);
	bad[1] = 0x70, bad[2] = 0x9a, bad[3] = 0x50, bad[4] = 0xc4;
	is_int(qinit_open(bad, (size_t)n), 1, "another version is not ours to check (1)");
	qtls_free(&t);
	return done_testing();
}

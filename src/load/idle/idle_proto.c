/* hxload --idle's wire: the one HTTP/1.1, h2 or h3 request of each held connection, the h2 frames that come back, the PINGs. */
#include <string.h>

#include "common.h"
#include "lc_idle_int.h"
#include "tls.h"

#define H2_PREFACE "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

static size_t frame_head(uint8_t *p, size_t len, uint8_t type, uint8_t flags, uint32_t stream)
{
	p[0] = (uint8_t)(len >> 16), p[1] = (uint8_t)(len >> 8), p[2] = (uint8_t)len;
	p[3] = type, p[4] = flags;
	p[5] = (uint8_t)(stream >> 24), p[6] = (uint8_t)(stream >> 16), p[7] = (uint8_t)(stream >> 8);
	p[8] = (uint8_t)stream;
	return 9;
}

/* an HPACK integer of a 7-bit prefix, then the string as it is (no Huffman) */
static size_t hpack_str(uint8_t *p, const char *s, size_t n)
{
	size_t k = 0, v = n;

	if (v < 127) {
		p[k++] = (uint8_t)v;
	} else {
		p[k++] = 127;
		for (v -= 127; v >= 128; v >>= 7)
			p[k++] = (uint8_t)(v | 128);
		p[k++] = (uint8_t)v;
	}
	memcpy(p + k, s, n);
	return k + n;
}

/* the preface, SETTINGS, then GET on stream 1 (static table: :method GET,
 * :scheme http; :path and :authority literal, not indexed) */
static size_t h2_request(uint8_t *p)
{
	const char *path = lc_tg->paths[0].path;
	size_t k = sizeof(H2_PREFACE) - 1, hb;

	memcpy(p, H2_PREFACE, k);
	k += frame_head(p + k, 0, 4, 0, 0);
	hb = k + 9;
	p[hb++] = 0x82, p[hb++] = 0x86;
	p[hb++] = 0x04;
	hb += hpack_str(p + hb, path, strlen(path));
	p[hb++] = 0x01;
	hb += hpack_str(p + hb, lc_tg->authority, strlen(lc_tg->authority));
	frame_head(p + k, hb - k - 9, 1, 0x5, 1);
	return hb;
}

/* HEADERS (type 1, a one-byte length then) on QPACK's static table:
 * :method GET (17), :scheme https (23) indexed; :authority (0) and :path
 * (1) literal with the name's index; no Huffman */
size_t idle_h3_request(uint8_t *p, size_t max)
{
	const char *path = lc_tg->paths[0].path;
	size_t k = 3, pl = strlen(path), al = strlen(lc_tg->authority);

	if (pl + al + 24 > max || pl + al + 24 > 16383)
		return 0;
	p[k++] = 0, p[k++] = 0; /* Required Insert Count, Base */
	p[k++] = 0xc0 | 17, p[k++] = 0xc0 | 23;
	p[k++] = 0x50 | 0;
	k += hpack_str(p + k, lc_tg->authority, al);
	p[k++] = 0x50 | 1;
	k += hpack_str(p + k, path, pl);
	p[0] = 0x01, p[1] = (uint8_t)(0x40 | (k - 3) >> 8), p[2] = (uint8_t)(k - 3); /* a 2-byte varint */
	return k;
}

int idle_send_request(struct idle_conn *c)
{
	uint8_t buf[4096];

	if (!c->h2)
		return idle_send(c, lc_tg->paths[0].req, lc_tg->paths[0].reqlen);
	if (strlen(lc_tg->paths[0].path) + strlen(lc_tg->authority) > sizeof(buf) - 128)
		return -1;
	return idle_send(c, buf, h2_request(buf));
}

void idle_answered(struct idle_conn *c, uint64_t now)
{
	if (c->st != IC_SENT)
		return;
	c->st = IC_ANSWERED;
	c->since_us = now;
	atomic_fetch_add(&lc_idle.answered, 1);
}

/* a whole frame header: the server's SETTINGS and PINGs acknowledged, the
 * answer's HEADERS noted, GOAWAY ends it (as its close would) */
static int h2_frame(struct idle_conn *c, uint64_t now)
{
	uint8_t ack[17];
	uint8_t type = c->hb[3], flags = c->hb[4];

	c->skip = (uint32_t)c->hb[0] << 16 | (uint32_t)c->hb[1] << 8 | c->hb[2];
	if (type == 1)
		idle_answered(c, now);
	else if (type == 4 && !(flags & 1))
		return idle_send(c, ack, frame_head(ack, 0, 4, 1, 0));
	else if (type == 7)
		return -1;
	return 0;
}

int idle_read(struct idle_conn *c, const char *p, size_t n, uint64_t now)
{
	if (!c->h2) {
		idle_answered(c, now);
		return 0;
	}
	while (n) {
		size_t k;

		if (c->skip) {
			k = MIN(n, (size_t)c->skip);
			c->skip -= (uint32_t)k, p += k, n -= k;
			continue;
		}
		k = MIN(n, (size_t)(9 - c->hn));
		memcpy(c->hb + c->hn, p, k);
		c->hn += (uint8_t)k, p += k, n -= k;
		if (c->hn == 9) {
			c->hn = 0;
			if (h2_frame(c, now) < 0)
				return -1;
		}
	}
	return 0;
}

/* the end of the run, on a connection still held: h2 says GOAWAY
 * NO_ERROR (RFC 9113 6.8: an endpoint SHOULD before it closes; 0, as a
 * client that took no pushed stream), then TLS its close_notify; WHY: a
 * proxy in front counts a close without them as an abort or a truncation */
void idle_end(struct idle_conn *c)
{
	uint8_t f[17] = { 0 };

	if (c->st != IC_ANSWERED)
		return;
	if (c->h2)
		idle_send(c, f, frame_head(f, 8, 7, 0, 0) + 8);
	if (c->ssl)
		tls_close_notify(c->ssl);
}

/* --idle-ping: an h2 PING on each held connection (HTTP/1.1 has none) */
void idle_ping_all(struct idle_state *s, uint64_t now)
{
	uint8_t f[17] = { 0 };

	frame_head(f, 8, 6, 0, 0);
	memcpy(f + 9, &now, 8);
	for (int i = 0; i < s->n; i++)
		if (s->conns[i].st == IC_ANSWERED && s->conns[i].h2 && !idle_send(&s->conns[i], f, sizeof(f)))
			s->pings++;
}

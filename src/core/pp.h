/* PROXY protocol v1 and v2 (HAProxy's spec): the header a proxy puts before a backend connection's first byte, read strictly and written. */
#ifndef HX_PP_H
#define HX_PP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define PP_MAX 4096       /* the longest header taken, TLVs included */
#define PP_V1_MAX 107     /* the spec's bound for a v1 line, CRLF included */

/* what a PROXY header said */
struct pp_info {
	uint8_t version;               /* 1 or 2 */
	uint8_t local;                 /* v2 LOCAL or v1 UNKNOWN: no addresses */
	struct sockaddr_storage src;   /* the client (AF_INET, AF_INET6), unless local */
	struct sockaddr_storage dst;   /* the address it connected to */
	uint8_t alpn_len;              /* v2 PP2_TYPE_ALPN, 0: none */
	uint8_t auth_len;              /* v2 PP2_TYPE_AUTHORITY, 0: none */
	char alpn[64];
	char authority[256];
};

/* Reads the header at the start of <buf> (<len> bytes so far). Returns its
 * length (> 0) with <*pi> filled, HX_AGAIN when the bytes so far may still
 * begin one, or -1 with a one-line reason in <*why>: not a PROXY header,
 * malformed, or longer than PP_MAX. */
long pp_parse(const char *buf, size_t len, struct pp_info *pi, const char **why);

/* Writes a header of <version> (1 or 2) for a connection from <src> to
 * <dst> (both AF_INET or both AF_INET6; another family: v1 UNKNOWN, v2
 * LOCAL) into <out> (PP_V1_MAX bytes at least; 52 for v2). Returns its
 * length. */
size_t pp_write(char *out, int version, const struct sockaddr *src, const struct sockaddr *dst);

/* CRC-32C (Castagnoli) of <len> bytes, for PP2_TYPE_CRC32C */
uint32_t pp_crc32c(const void *buf, size_t len);

#endif

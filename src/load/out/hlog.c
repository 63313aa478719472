/* hxload --hlog FILE: each interval's latency as HdrHistogram's interval log (V2 compressed histograms), so HdrHistogram's own tools read the run. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include <openssl/evp.h>

#include "common.h"
#include "hist.h"
#include "lc_cmd.h"
#include "lc_stats.h"

/* the histograms written: values in ns (HdrHistogram's tools print ms by
 * default), 3 significant digits, up to an hour */
#define HDR_DIGITS   3
#define HDR_SUB_MAG  11                 /* log2 of the sub-buckets 3 digits need (2 * 10^3 -> 2048) */
#define HDR_SUB      (1 << HDR_SUB_MAG)
#define HDR_HALF_MAG (HDR_SUB_MAG - 1)
#define HDR_HIGHEST  3600000000000ULL   /* 1 h in ns */
#define HDR_COOKIE   0x1c849313         /* V2 encoding, LEB128/ZigZag words */
#define HDR_ZCOOKIE  0x1c849314         /* ... deflated */
#define HDR_HEAD     40                 /* the encoding's header */

/* HdrHistogram's counts index of <v> (lowest discernible value 1) */
static unsigned hdr_index(uint64_t v)
{
	unsigned bucket = (unsigned)(64 - HDR_SUB_MAG) - (unsigned)__builtin_clzll(v | (HDR_SUB - 1));
	unsigned sub = (unsigned)(v >> bucket);

	return ((bucket + 1) << HDR_HALF_MAG) + sub - (HDR_SUB >> 1);
}

/* the counts array's length for HDR_HIGHEST */
static unsigned hdr_length(void)
{
	uint64_t top = HDR_SUB;
	unsigned buckets = 1;

	while (top <= HDR_HIGHEST) {
		top <<= 1;
		buckets++;
	}
	return (buckets + 1) << HDR_HALF_MAG;
}

/* a ZigZag LEB128 word, as HdrHistogram's ZigZagEncoding writes one */
static size_t put_zigzag(unsigned char *p, int64_t v)
{
	uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	size_t n = 0;

	while (n < 8 && u >= 0x80) {
		p[n++] = (unsigned char)(u | 0x80);
		u >>= 7;
	}
	p[n++] = (unsigned char)u;
	return n;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

/* <h> (us) as HdrHistogram's counts (ns): each bucket's count at the value
 * hxload reports for it (its upper edge, at most the maximum) */
static unsigned hdr_counts(const struct hist *h, uint64_t *counts, unsigned len)
{
	unsigned top = 0;

	memset(counts, 0, len * sizeof(*counts));
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		uint64_t c = h->b[i / HIST_SUB][i % HIST_SUB], us, k;

		if (!c)
			continue;
		us = MIN(hist_bucket_value(i), h->max);
		k = hdr_index(MIN(us * 1000, HDR_HIGHEST));
		counts[k] += c;
		top = MAX(top, (unsigned)k + 1);
	}
	return top;
}

/* the uncompressed encoding of <counts> up to <top> into <p>: its length */
static size_t hdr_encode(const uint64_t *counts, unsigned top, unsigned char *p)
{
	size_t n = HDR_HEAD;
	double one = 1.0;
	uint64_t bits;

	memcpy(&bits, &one, sizeof(bits));
	put32(p, HDR_COOKIE);
	put32(p + 8, 0);                /* normalizing index offset */
	put32(p + 12, HDR_DIGITS);
	put64(p + 16, 1);               /* lowest discernible value */
	put64(p + 24, HDR_HIGHEST);
	put64(p + 32, bits);            /* integer to double conversion ratio */
	for (unsigned i = 0; i < top;) {
		unsigned zeros = 0;

		while (i + zeros < top && !counts[i + zeros])
			zeros++;
		if (zeros > 1) {
			n += put_zigzag(p + n, -(int64_t)zeros);
			i += zeros;
		} else {
			n += put_zigzag(p + n, (int64_t)counts[i++]);
		}
	}
	put32(p + 4, (uint32_t)(n - HDR_HEAD));
	return n;
}

static FILE *out;
static uint64_t base_us;

int lc_hlog_open(const char *path)
{
	return (out = fopen(path, "w")) ? 0 : -1;
}

void lc_hlog_start(double start_epoch, uint64_t start_us, const char *url)
{
	char when[64];
	time_t t = (time_t)start_epoch;
	struct tm tm;

	if (!out)
		return;
	base_us = start_us;
	strftime(when, sizeof(when), "%a %b %d %H:%M:%S UTC %Y", gmtime_r(&t, &tm));
	fprintf(out, "#[Logged with hxload %s: %s; latency in ns from the intended send time; "
		"tags server, other, queue: its parts]\n", HX_VERSION, url);
	fprintf(out, "#[Histogram log format version 1.3]\n");
	fprintf(out, "#[StartTime: %.3f (seconds since epoch), %s]\n", start_epoch, when);
	fprintf(out, "#[BaseTime: %.3f (seconds since epoch)]\n", start_epoch);
	fprintf(out, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n");
}

/* one histogram's line: [Tag=T,]start,length,max (ms),base64 */
static void line(const char *tag, const struct hist *h, double from, double len)
{
	static uint64_t counts[(33 + 1) << HDR_HALF_MAG];
	static unsigned char raw[HDR_HEAD + 9 * ARRAY_SIZE(counts)], z[sizeof(raw) + 1024];
	static char b64[4 * (sizeof(z) + 2) / 3 + 1];
	unsigned top = hdr_counts(h, counts, hdr_length());
	size_t n = hdr_encode(counts, top, raw);
	uLongf zn = sizeof(z) - 8;

	if (compress2(z + 8, &zn, raw, n, Z_DEFAULT_COMPRESSION) != Z_OK)
		return; /* WHY: cannot happen with z sized for the worst case; the line is left out */
	put32(z, HDR_ZCOOKIE);
	put32(z + 4, (uint32_t)zn);
	EVP_EncodeBlock((unsigned char *)b64, z, (int)zn + 8);
	fprintf(out, "%s%s%.3f,%.3f,%.3f,%s\n", tag ? "Tag=" : "", tag ? tag : "", from, len,
		(double)h->max / 1000.0, b64);
}

void lc_hlog_add(const struct lc_ival *v)
{
	static const struct { const char *tag; int iv; } parts[] = {
		{ NULL, IV_LAT }, { "server,", IV_SRV }, { "other,", IV_OTH }, { "queue,", IV_QUEUE },
	};
	double from, len;

	if (!out)
		return;
	from = (double)(v->from_us - base_us) / 1e6;
	len = (double)(v->to_us - v->from_us) / 1e6;
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (!i || v->h[parts[i].iv].n)
			line(parts[i].tag, &v->h[parts[i].iv], from, len);
}

int lc_hlog_close(void)
{
	int rc = 0;

	if (out && (ferror(out) | fclose(out)))
		rc = -1;
	out = NULL;
	return rc;
}

/* hxload's raw histograms in --json (n, min, max, sums, the buckets that are not empty): what merge and compare read back. */
#include <stdio.h>

#include "hist_json.h"

/* the raw histogram: what lc_hist_read reads back (merge, compare) */
void lc_hist_json(FILE *f, const char *name, const struct hist *h, int first)
{
	int any = 0;

	fprintf(f, "%s\"%s\": {\"n\": %llu, \"min\": %llu, \"max\": %llu, \"sum\": %llu, \"sumsq\": %.17g, "
		"\"buckets\": [", first ? "" : ", ", name, (unsigned long long)h->n,
		(unsigned long long)(h->n ? h->min : 0), (unsigned long long)h->max,
		(unsigned long long)h->sum, h->sumsq);
	for (unsigned i = 0; i < HIST_BUCKETS && h->n; i++) {
		uint64_t c = h->b[i / HIST_SUB][i % HIST_SUB];

		if (c) {
			fprintf(f, "%s[%u, %llu]", any ? ", " : "", i, (unsigned long long)c);
			any = 1;
		}
	}
	fprintf(f, "]}");
}

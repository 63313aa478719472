/* hxload's raw histograms written in --json, for runs.c's lc_hist_read. */
#ifndef HX_HIST_JSON_H
#define HX_HIST_JSON_H

#include <stdio.h>

#include "hist.h"

/* <h> as the member <name> of an object ({n, min, max, sum, sumsq, buckets}), <first> its first member */
void lc_hist_json(FILE *f, const char *name, const struct hist *h, int first);

#endif

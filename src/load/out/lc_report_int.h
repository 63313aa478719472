/* hxload's report between its files: report.c writes the text and keeps the figures both use, report_json.c the JSON object. */
#ifndef HX_LC_REPORT_INT_H
#define HX_LC_REPORT_INT_H

#include <stdint.h>

#include "lc_stats.h"

#define REPORT_NQ 5
extern const double report_quantiles[REPORT_NQ];
extern const char *const report_qnames[REPORT_NQ];

double report_per_req(const struct lc_stats *T, uint64_t n);
double report_per_mib(const struct lc_stats *T, uint64_t us);
double report_hit_share(const struct lc_stats *T);
double report_mean_rpc(const struct lc_stats *T);
uint64_t report_grpc_calls(const struct lc_stats *T);

#endif

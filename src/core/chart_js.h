/* The charts both HTML pages draw: Chart.js, their style sheet and the helpers on it (fmt, lines, bars), as text to inline. */
#ifndef HX_CHART_JS_H
#define HX_CHART_JS_H

/* Chart.js v3 itself (Debian's libjs-chart.js, embedded at build time) */
extern const char chartjs_lib[];
extern const char chart_css[];
/* the helpers, to inline after chartjs_lib */
extern const char chart_js[];

#endif

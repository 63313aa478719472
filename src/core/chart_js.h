/* The charts both HTML pages draw: their style sheet and script (el, fmt, lines, bars), as text to inline. */
#ifndef HX_CHART_JS_H
#define HX_CHART_JS_H

extern const char chart_css[];
extern const char chart_js[];

#endif

/* Chart.js, from Debian's libjs-chart.js, embedded at build time (HX_CHARTJS names the file): both pages inline it and ask nothing of the network. */
#include "chart_js.h"

/* WHY .incbin: the library's 200 KB as it ships, no generated source; a
 * NUL after it, so it is a string */
__asm__(".section .rodata.hx_chartjs,\"a\"\n"
	".global chartjs_lib\n"
	".type chartjs_lib, @object\n"
	"chartjs_lib:\n"
	".incbin \"" HX_CHARTJS "\"\n"
	".byte 0\n"
	".size chartjs_lib, . - chartjs_lib\n"
	".previous\n");

/* libFuzzer driver: HTTP/2 frames after a valid preface and SETTINGS, each framed from a record (h2in.h), run on both engines (ours and nghttp2's session) so that every input reaches their frame layers and our callbacks. */
#include <stdint.h>
#include <stdlib.h>

#include "h2in.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int ready;

static void setup(void)
{
	static char *argv[] = { "hxterm", "-q", "--max-wait", "50", "--head-timeout", "20",
				"--idle-timeout", "20", "--body-timeout", "20", "--send-timeout", "20",
				"--max-size", "16k", NULL };

	srv_setup(argv);
	sess_init(proto_table);
	srv_thread();
	ready = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ready)
		setup();
	cfg.h2_engine = H2ENG_HX;
	h2in_run(data, size);
	cfg.h2_engine = H2ENG_NGHTTP2;
	h2in_run(data, size);
	return 0;
}

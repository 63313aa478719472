/* hxload's entry: a load run, or one of its commands (ab, find, merge, compare, quic-flood); nothing calls back here. */
#include <string.h>

#include "lc_cmd.h"
#include "tls_mem.h"

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} cmds[] = {
		{ "merge", lc_merge_main }, { "compare", lc_compare_main }, { "ab", lc_ab_main },
		{ "find", lc_find_main }, { "quic-flood", lc_qflood_main },
	};

	/* WHY first: OpenSSL takes its allocator only before its first block */
	tls_mem_init(1);
	for (size_t i = 0; argc > 1 && i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	return lc_run_main(argc, argv);
}

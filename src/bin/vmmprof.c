/* vmmprof.c - the one binary: the command line with the front ends it starts (daemon, TUI) */
#include "cli/fronts.h"
#include "tui/tui.h"
#ifdef HAVE_MHD
#include "daemon/serve.h"
#endif

int main(int argc, char **argv)
{
	static const struct cli_fronts fronts = {
#ifdef HAVE_MHD
		.serve = vpd_run,
#endif
		.screen = tui_run_source,
	};

	return cli_main(argc, argv, &fronts);
}

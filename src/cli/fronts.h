/* fronts.h - the front ends the command line starts, handed to it by the binary's main() */
#ifndef VP_CLI_FRONTS_H
#define VP_CLI_FRONTS_H

#include "srv/conf.h"
#include "top/screen.h"
#include "util/dirs.h"

/*
 * The command line never includes another front end: `vmmprof serve` and
 * `vmmprof top` reach the daemon and the TUI screen through these, which
 * main() in src/bin/vmmprof.c, the one place that links them, fills in.
 */
struct cli_fronts {
	/* the daemon (vpd_run()) on conf until SIGTERM or SIGINT, printing its own
	 * errors; returns the exit code.  NULL: built without libmicrohttpd */
	int (*serve)(struct srv_conf *conf, const struct vp_dirs *dirs);
	/* the live screen of top (tui_run_source()) */
	top_screen_fn screen;
};

/* The command line on argv with the front ends f; returns the exit code. */
int cli_main(int argc, char **argv, const struct cli_fronts *f);

/* The front ends cli_main() was given. */
const struct cli_fronts *cli_fronts(void);

#endif

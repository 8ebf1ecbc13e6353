/* serve.h - the daemon's entry point, called by `vmmprof serve` and `vmmprofd` */
#ifndef VP_SERVE_H
#define VP_SERVE_H

#include "srv/conf.h"
#include "util/dirs.h"

/*
 * Run the daemon with conf (defaults already filled in: listen, users,
 * web_dir, root) until SIGTERM or SIGINT; dirs: the user's directories as
 * the front end that starts it read them (the model path's and the default
 * calibration's; NULL none).  Prints its errors; returns the exit code.
 * The command line reaches it through struct cli_fronts (src/bin/).
 */
int vpd_run(struct srv_conf *conf, const struct vp_dirs *dirs);

#endif

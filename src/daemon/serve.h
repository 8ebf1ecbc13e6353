/* serve.h - the daemon's entry point, called by `vmmprof serve` and `vmmprofd` */
#ifndef VP_SERVE_H
#define VP_SERVE_H

#include "srv/conf.h"

/*
 * Run the daemon with conf (defaults already filled in: listen, users,
 * web_dir, root) until SIGTERM or SIGINT.  Prints its errors; returns the
 * exit code.
 */
int vpd_run(struct srv_conf *conf);

#endif

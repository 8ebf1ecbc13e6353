/* remote.h - `vmmprof --remote URL CMD ...`: the same commands against a vmmprofd */
#ifndef VP_REMOTE_H
#define VP_REMOTE_H

#include <stdbool.h>

#include "cli/cli.h"

/* Where the daemon is and how to talk to it (global options or environment). */
struct remote_conf {
	const char *url;         /* --remote URL, VMMPROF_REMOTE: "http://127.0.0.1:7767" */
	const char *token_file;  /* --token-file F, VMMPROF_TOKEN_FILE; NULL: no token */
	const char *cacert;      /* --cacert F, VMMPROF_CACERT: CA bundle for https; NULL: the system's */
};

/*
 * Run command c (argv[0] is its name) against the daemon.  --json prints
 * what the daemon returned, byte for byte (the same document the local
 * --json prints); text goes through the local command's own renderer.
 * Returns the exit code (2 for a usage error, 1 for a failure).
 */
int remote_run(const struct remote_conf *rc, const struct cmd *c, int argc, char **argv);
/* Whether c has a remote form (without libcurl: none). */
bool remote_supported(const struct cmd *c);

#endif

/* run.h - running a tool (xl, xentrace) live, or reading its captured output under a fixture root */
#ifndef VP_RUN_H
#define VP_RUN_H

#include "util/err.h"

/*
 * Run argv and return its standard output in *out (heap string, free() it).
 * On a live root (NULL, "" or "/") argv is executed (PATH is searched);
 * a failure names the tool and quotes the first line it wrote to standard
 * error ("'xl list' failed (status 1): xl: ... Permission denied").  On any
 * other root the captured output is read from
 * ROOT/.vmmprof-fixture/<basename argv[0]>/<argv[1..] joined by '-', leading
 * dashes dropped>.json, else .txt ("xl info -n" -> xl/info-n.txt).
 */
int vp_run(const char *root, const char *const *argv, char **out, struct vp_err *err);

/* The fixture file vp_run() reads for argv (without root); free() it. */
char *vp_run_fixture_path(const char *root, const char *const *argv);

#endif

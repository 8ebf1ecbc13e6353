/* file.h - which calibration file a command reads, and whether it fits this machine */
#ifndef VP_CALIB_FILE_H
#define VP_CALIB_FILE_H

#include <stdbool.h>

#include "calib/calib.h"
#include "platform/platform.h"
#include "util/dirs.h"
#include "util/sbuf.h"

/*
 * Default calibration file: calibration.json in the configuration
 * directory of env (vp_config_dir(): $XDG_CONFIG_HOME/vmmprof or
 * ~/.config/vmmprof); the directory made when create_dir.  NULL when env
 * names neither.  free() the result.
 */
char *calib_default_path(const struct vp_dirs *env, bool create_dir);

/*
 * Load the calibration named by path, or the default file of env
 * (calib_default_path()) when path is NULL, into *cal (calib_init()ed by the caller) and check it against plat
 * (NULL: not checked).  *have says whether it can be used; note gets one
 * line saying which calibration, or why none.  A named file that cannot be
 * read is an error (a negative code, *err says why); a missing or unusable
 * default file is only a note.  Values that fail calib_check() are taken
 * out (calib_quarantine(): NaN with the reason) and the note names them.
 * Returns 0 otherwise.
 */
int calib_file_open(const struct platform *plat, const char *path, const struct vp_dirs *env,
		    struct calib *cal, bool *have, struct sbuf *note, struct vp_err *err);

#endif

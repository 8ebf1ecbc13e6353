/* file.c - which calibration file a command reads, and whether it fits this machine */
#include "calib/file.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/alloc.h"

char *calib_default_path(const struct vp_dirs *env, bool create_dir)
{
	char *dir = vp_config_dir(env);
	char *path;

	if (!dir)
		return NULL;
	if (create_dir) {
		char *parent = xstrdup(dir), *slash = strrchr(parent, '/');

		if (slash && slash != parent) {
			*slash = 0;
			mkdir(parent, 0755);
		}
		mkdir(dir, 0755);
		free(parent);
	}
	path = xasprintf("%s/calibration.json", dir);
	free(dir);
	return path;
}

int calib_file_open(const struct platform *plat, const char *path, const struct vp_dirs *env,
		    struct calib *cal, bool *have, struct sbuf *note, struct vp_err *err)
{
	struct calib_machine here;
	struct vp_err e = { 0, "" };
	struct calib_checks chk;
	char *def = NULL;
	int rc = 0;

	*have = false;
	if (!path && !(path = def = calib_default_path(env, false))) {
		sbuf_addstr(note, "no calibration (neither HOME nor XDG_CONFIG_HOME is set)");
		return 0;
	}
	if ((rc = calib_load(cal, path, &e))) {
		if (!def)
			*err = e;
		else
			sbuf_addf(note, "no calibration: %s (run 'vmmprof calibrate')", e.msg);
		rc = def ? 0 : rc;
		goto out;
	}
	if (plat) {
		calib_machine_of(plat, &here);
		if (calib_match(cal, &here, &e)) {
			sbuf_addf(note, "calibration '%s' not used: %s", path, e.msg);
			goto out;
		}
	}
	*have = true;
	sbuf_addf(note, "calibration '%s'", path);
	if (calib_check(cal, &chk)) {   /* impossible values are not computed with */
		size_t i;
		int n = calib_quarantine(cal, &chk);

		sbuf_addf(note, ", %d implausible value%s left out (n/a):", n, n == 1 ? "" : "s");
		for (i = 0; i < chk.n && i < CALIB_VIOLATION_MAX; i++)
			sbuf_addf(note, "%s %s", i ? ";" : "", chk.v[i].why);
		if (chk.n > CALIB_VIOLATION_MAX)
			sbuf_addf(note, "; and %zu more", chk.n - CALIB_VIOLATION_MAX);
	}
out:
	free(def);
	return rc;
}

/* dirs.c - vmmprof's configuration directory from the directories a front end gives */
#include "util/dirs.h"

#include <stddef.h>

#include "util/alloc.h"

char *vp_config_dir(const struct vp_dirs *d)
{
	if (!d)
		return NULL;
	if (d->xdg_config_home && *d->xdg_config_home)
		return xasprintf("%s/vmmprof", d->xdg_config_home);
	if (d->home && *d->home)
		return xasprintf("%s/.config/vmmprof", d->home);
	return NULL;
}

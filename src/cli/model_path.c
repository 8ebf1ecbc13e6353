/* model_path.c - the model search path of the command-line front end */
#include "cli/model_path.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/fs.h"

static void add(struct model_dirs *d, char *dir)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->v[i], dir)) {
			free(dir);
			return;
		}
	VP_GROW(d->v, d->cap, d->n + 1);
	d->v[d->n++] = dir;
}

/* A built-in directory, canonical, when it exists. */
static void add_real(struct model_dirs *d, char *dir)
{
	char *real = realpath(dir, NULL);

	free(dir);
	if (real)
		add(d, xstrdup(real));
	free(real);
}

void model_dirs_build(struct model_dirs *d, char *const *paths, size_t n_paths)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char exe[PATH_MAX], *slash;
	ssize_t len;
	size_t i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < n_paths; i++) {
		const char *p = paths[i], *colon;

		while (*p) {
			colon = strchr(p, ':');
			if (!colon)
				colon = p + strlen(p);
			if (colon > p)
				add(d, xstrndup(p, (size_t)(colon - p)));
			p = *colon ? colon + 1 : colon;
		}
	}
	if (xdg && *xdg)
		add(d, xasprintf("%s/vmmprof/models", xdg));
	else if (home && *home)
		add(d, xasprintf("%s/.config/vmmprof/models", home));
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		exe[len] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			/* an installed binary first, then a build directory of the source tree */
			char *installed = xasprintf("%s/../share/vmmprof/models", exe);
			char *tree = xasprintf("%s/../models", exe);

			add_real(d, installed);
			add_real(d, tree);
		}
	}
}

void model_dirs_release(struct model_dirs *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->v[i]);
	free(d->v);
	memset(d, 0, sizeof(*d));
}

/* dirs.c - the model search path, from the options and the directories a front end gives */
#include "model/dirs.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

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

void model_dirs_build(struct model_dirs *d, char *const *paths, size_t n_paths,
		      const struct vp_dirs *env)
{
	char *conf = vp_config_dir(env);
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
	if (conf)
		add(d, xasprintf("%s/models", conf));
	free(conf);
	if (env && env->exe_dir && *env->exe_dir) {
		/* an installed binary first, then a build directory of the source tree */
		add_real(d, xasprintf("%s/../share/vmmprof/models", env->exe_dir));
		add_real(d, xasprintf("%s/../models", env->exe_dir));
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

/* dirs.h - where models are looked for: --model-path, ~/.config, the built-in directories */
#ifndef VP_MODEL_DIRS_H
#define VP_MODEL_DIRS_H

#include <stddef.h>

#include "util/dirs.h"

/* A list of directories, most important first; caller-owned. */
struct model_dirs {
	char **v;
	size_t n;
	size_t cap;
};

/*
 * Fill d: each --model-path argument (split at ':'), then the models/
 * directory of the configuration directory of env (vp_config_dir():
 * $XDG_CONFIG_HOME/vmmprof/models or ~/.config/vmmprof/models), then the
 * built-in directories next to the binary, env->exe_dir
 * (../share/vmmprof/models for an installed binary, ../models for one
 * built in the source tree), those that exist.  env NULL: only paths.
 */
void model_dirs_build(struct model_dirs *d, char *const *paths, size_t n_paths,
		      const struct vp_dirs *env);
void model_dirs_release(struct model_dirs *d);

#endif

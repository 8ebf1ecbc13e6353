/* model_path.h - where the CLI looks for models: --model-path, ~/.config, the built-in directories */
#ifndef VP_MODEL_PATH_H
#define VP_MODEL_PATH_H

#include <stddef.h>

/* A list of directories, most important first; caller-owned. */
struct model_dirs {
	char **v;
	size_t n;
	size_t cap;
};

/*
 * Fill d: each --model-path argument (split at ':'), then
 * $XDG_CONFIG_HOME/vmmprof/models or ~/.config/vmmprof/models, then the
 * built-in directories next to the binary (../share/vmmprof/models for an
 * installed binary, ../models for one built in the source tree).
 */
void model_dirs_build(struct model_dirs *d, char *const *paths, size_t n_paths);
void model_dirs_release(struct model_dirs *d);

#endif

/* registry.h - the models found in a search path, and choosing one for a platform */
#ifndef VP_MODEL_REGISTRY_H
#define VP_MODEL_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "model/model.h"
#include "platform/platform.h"
#include "util/err.h"

/*
 * The caller gives the search path, most important first (the CLI:
 * --model-path DIRs, ~/.config/vmmprof/models, then the built-in
 * directories); the library reads no environment.  Every NAME.model of
 * every directory is loaded; a name found twice is taken from the first
 * directory (a user's model shadows a built-in one of the same name).
 * Files that end in .inc are fragments for `include`, not models.
 */

struct model_entry {
	char *name;              /* file name without .model */
	char *path;
	char *dir;
	struct model *m;         /* NULL when it failed to load ... */
	char *error;             /* ... and then why (first diagnostic, rendered) */
	bool shadowed;           /* a model of the same name came earlier in the path */
};

struct model_registry {
	char **dirs;
	size_t n_dirs;
	struct model_entry *v;   /* by directory, then name */
	size_t n;
	size_t cap;
};

/* Scan dirs (missing directories are skipped).  Never fails on a bad model file. */
void model_registry_init(struct model_registry *r, const char *const *dirs, size_t n_dirs);
void model_registry_release(struct model_registry *r);

/* The loaded (not shadowed) entry named name, or NULL. */
const struct model_entry *model_registry_find(const struct model_registry *r, const char *name);

/*
 * How well a model's match rules fit a platform: 0 no rule matches; else
 * the most specific matching rule's weight (cpu with model list 60, cpu
 * with family 50, pmu table 55, cpu vendor 40, vpmu of a vendor 25, vpmu
 * 20, software 1).  Hardware rules need a core PMU.  why (may be NULL)
 * gets the rule that matched.
 */
int model_match_score(const struct model *m, const struct platform *p, char *why, size_t size);

/*
 * The best model for p (highest score; ties to the earlier entry), or
 * NULL with err set when none matches.  why says which rule decided.
 */
const struct model_entry *model_registry_choose(const struct model_registry *r,
						const struct platform *p, char *why, size_t size,
						struct vp_err *err);

/*
 * Load a model named by the user: a path (it holds '/' or ends in .model)
 * or a registry name.  Includes are searched in the registry's
 * directories.  Returns 0 and *out (model_free() it), or an error with
 * diagnostics in d.
 */
int model_registry_open(const struct model_registry *r, const char *name_or_path,
			struct model **out, struct diags *d, struct vp_err *err);

#endif

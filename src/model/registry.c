/* registry.c - the models of a search path, and the automatic choice for a platform */
#include "model/registry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/fs.h"

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);

	return n > k && !strcmp(s + n - k, suf);
}

void model_registry_init(struct model_registry *r, const char *const *dirs, size_t n_dirs)
{
	size_t i, j, k;

	memset(r, 0, sizeof(*r));
	r->dirs = xcalloc(n_dirs + 1, sizeof(char *));
	for (i = 0; i < n_dirs; i++)
		r->dirs[r->n_dirs++] = xstrdup(dirs[i]);
	for (i = 0; i < r->n_dirs; i++) {
		char **names = NULL;
		size_t n = 0;
		struct vp_err err;

		if (vp_list_dir(NULL, r->dirs[i], &names, &n, &err))
			continue;
		for (j = 0; j < n; j++) {
			struct model_entry *e;
			struct diags d;

			if (!has_suffix(names[j], ".model"))
				continue;
			VP_GROW(r->v, r->cap, r->n + 1);
			e = &r->v[r->n++];
			memset(e, 0, sizeof(*e));
			e->name = xstrndup(names[j], strlen(names[j]) - strlen(".model"));
			e->dir = xstrdup(r->dirs[i]);
			e->path = xasprintf("%s/%s", r->dirs[i], names[j]);
			for (k = 0; k + 1 < r->n; k++)
				if (!strcmp(r->v[k].name, e->name))
					e->shadowed = true;
			if (e->shadowed)
				continue;
			diags_init(&d);
			if (model_load(&e->m, e->path, (const char *const *)r->dirs, r->n_dirs, &d, &err))
				e->error = xstrdup(err.msg);
			diags_release(&d);
		}
		vp_free_names(names, n);
	}
}

void model_registry_release(struct model_registry *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].path);
		free(r->v[i].dir);
		free(r->v[i].error);
		model_free(r->v[i].m);
	}
	free(r->v);
	for (i = 0; i < r->n_dirs; i++)
		free(r->dirs[i]);
	free(r->dirs);
	memset(r, 0, sizeof(*r));
}

const struct model_entry *model_registry_find(const struct model_registry *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!r->v[i].shadowed && !strcmp(r->v[i].name, name))
			return &r->v[i];
	return NULL;
}

static int rule_score(const struct model_match *mt, const struct platform *p, char *why, size_t size)
{
	const struct cpu_identity *c = &p->cpu;
	size_t i;

	switch (mt->kind) {
	case MATCH_SOFTWARE:
		snprintf(why, size, "software (%s:%d)", mt->loc.file, mt->loc.line);
		return 1;
	case MATCH_VPMU:
		if (!p->core_pmu || (mt->vendor[0] && strcmp(mt->vendor, c->vendor)))
			return 0;
		snprintf(why, size, "a core PMU is present%s%s (%s:%d)", mt->vendor[0] ? " on " : "",
			 mt->vendor, mt->loc.file, mt->loc.line);
		return mt->vendor[0] ? 25 : 20;
	case MATCH_PMU:
		if (!p->core_pmu || !c->pfm_pmu[0])
			return 0;
		for (i = 0; i < mt->n_pmus; i++)
			if (!strcmp(mt->pmus[i], c->pfm_pmu)) {
				snprintf(why, size, "libpfm4 table '%s' (%s:%d)", c->pfm_pmu,
					 mt->loc.file, mt->loc.line);
				return 55;
			}
		return 0;
	case MATCH_CPU:
		if (!p->core_pmu || !c->known || strcmp(mt->vendor, c->vendor))
			return 0;
		if (mt->family >= 0 && mt->family != c->family)
			return 0;
		if (mt->n_models) {
			for (i = 0; i < mt->n_models; i++)
				if (c->model >= mt->models[i][0] && c->model <= mt->models[i][1])
					break;
			if (i == mt->n_models)
				return 0;
		}
		snprintf(why, size, "CPU %s family 0x%x model 0x%x (%s:%d)", c->vendor,
			 (unsigned)c->family, (unsigned)c->model, mt->loc.file, mt->loc.line);
		return mt->n_models ? 60 : mt->family >= 0 ? 50 : 40;
	}
	return 0;
}

int model_match_score(const struct model *m, const struct platform *p, char *why, size_t size)
{
	char buf[256];
	int best = 0, s;
	size_t i;

	for (i = 0; i < m->n_matches; i++) {
		s = rule_score(&m->matches[i], p, buf, sizeof(buf));
		if (s > best) {
			best = s;
			if (why)
				snprintf(why, size, "%s", buf);
		}
	}
	return best;
}

const struct model_entry *model_registry_choose(const struct model_registry *r,
						const struct platform *p, char *why, size_t size,
						struct vp_err *err)
{
	const struct model_entry *best = NULL;
	char buf[256];
	int best_score = 0, s;
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (r->v[i].shadowed || !r->v[i].m)
			continue;
		s = model_match_score(r->v[i].m, p, buf, sizeof(buf));
		if (s > best_score) {
			best_score = s;
			best = &r->v[i];
			if (why)
				snprintf(why, size, "%s", buf);
		}
	}
	if (!best) {
		char dirs[512] = "";
		size_t len = 0;

		for (i = 0; i < r->n_dirs && len < sizeof(dirs); i++)
			len += (size_t)snprintf(dirs + len, sizeof(dirs) - len, "%s%s",
						i ? ", " : "", r->dirs[i]);
		vp_err_set(err, VP_ENOTFOUND, "no model matches this machine (searched %s; "
			   "the built-in software.model, installed in share/vmmprof/models, "
			   "matches any machine)", r->n_dirs ? dirs : "no directory");
	}
	return best;
}

int model_registry_open(const struct model_registry *r, const char *name_or_path,
			struct model **out, struct diags *d, struct vp_err *err)
{
	const struct model_entry *e;

	if (strchr(name_or_path, '/') || has_suffix(name_or_path, ".model"))
		return model_load(out, name_or_path, (const char *const *)r->dirs, r->n_dirs, d, err);
	e = model_registry_find(r, name_or_path);
	if (!e)
		return vp_err_set(err, VP_ENOTFOUND, "no model named '%s' (see 'vmmprof model list')",
				  name_or_path);
	return model_load(out, e->path, (const char *const *)r->dirs, r->n_dirs, d, err);
}

/* resolve.h - whether a model's events and sources exist on a machine (live or a fixture root) */
#ifndef VP_MODEL_RESOLVE_H
#define VP_MODEL_RESOLVE_H

#include "model/model.h"
#include "model/swsource.h"
#include "platform/platform.h"
#include "pmu/event.h"

/*
 * What model_machine_check() resolves against.  Perf events go through
 * event_resolve() on db; libpfm4 core names that do not resolve as written
 * are retried as "pfm_table::NAME" (a fixture root has no /proc/cpuinfo
 * for libpfm4 to detect the CPU from; the caller names the table, and
 * must have made libpfm4 encode inactive tables, LIBPFM_ENCODE_INACTIVE).
 * Sources go through the swsource table and are read under root.
 *
 * An event that encodes is not yet one this machine can count: generic
 * hardware and hw-cache names (cycles, LLC-load-misses), raw rNNNN codes
 * and libpfm4 core names all go to the core PMU, which a VM without a vPMU
 * does not have.  plat (the platform probed through the same root) says
 * whether there is one; without it they are "no core PMU here: <the
 * kernel's reason>".  Sysfs specs (pmu/.../) need their PMU's directory
 * under root, which event_resolve() checks itself.
 */
struct model_machine {
	struct pmu_db *db;      /* NULL: every perf event is absent */
	const char *root;       /* "/" or a fixture tree */
	char pfm_table[64];     /* "" when none */
	const struct platform *plat; /* probed through root; NULL: core PMU not checked */
	const struct swsource_scope *scope; /* whose sources are read; NULL: the machine's */
	/*
	 * A source the caller provides from something it runs (stat -m's
	 * context-switch tracer for sched.node_migrations), asked before the
	 * swsource table: 0 with *val (a cumulative value as read now),
	 * VP_ENOTFOUND when it does not provide name, another negative code
	 * when it would but cannot (err says why: the source is absent).
	 * NULL: none.
	 */
	int (*live)(void *ctx, const char *name, double *val, struct vp_err *err);
	void *live_ctx;
};

/*
 * A model_input_check_fn (ctx is a struct model_machine *).  Returns 0,
 * VP_EUNSUPP when the input is absent here (its PMU, its libpfm4 table or
 * its source provider is missing), or VP_ENOTFOUND/VP_EPARSE when the spec
 * is wrong on a machine that has its PMU; *reason says why.
 */
int model_machine_check(void *ctx, const struct model_input *in, char **reason);

/*
 * Resolve one event spec as model_machine_check() does (retrying a bare
 * libpfm4 name as "pfm_table::NAME") and append what it opens to out with
 * spec_index index.  Returns as model_machine_check() does.
 */
int model_resolve_event(struct model_machine *mm, const char *spec, int index,
			struct evdesc_list *out, char **reason);

/* The first libpfm4 table a model names in 'match pmu', or NULL. */
const char *model_pfm_table(const struct model *m);

#endif

/* resolve.c - deciding whether a model's events and sources exist on a machine */
#include "model/resolve.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/swsource.h"
#include "pmu/sysfs_pmu.h"
#include "util/alloc.h"

const char *model_pfm_table(const struct model *m)
{
	size_t i;

	for (i = 0; i < m->n_matches; i++)
		if (m->matches[i].kind == MATCH_PMU && m->matches[i].n_pmus)
			return m->matches[i].pmus[0];
	return NULL;
}

/*
 * Is there a PMU named name, or a family name_0, name_1 ...?  Returns 0
 * none, 1 present without any format/ field (a tree that records only
 * which PMUs exist), 2 present and described.
 */
static int pmu_present(struct pmu_db *db, const char *name)
{
	const struct pmu_desc *p = pmu_db_find(db, name);
	size_t i, n = pmu_db_count(db);
	int found = 0;

	if (p)
		return p->nfields ? 2 : 1;
	for (i = 0; i < n; i++) {
		p = pmu_db_pmu(db, i);
		if (!strcmp(p->family, name)) {
			if (p->nfields)
				return 2;
			found = 1;
		}
	}
	return found;
}

/* A libpfm4-style name: upper-case event, no PMU slashes, not a raw rNNN. */
static bool looks_libpfm(const char *spec)
{
	return !strchr(spec, '/') && isupper((unsigned char)spec[0]);
}

/* "... at column N" of a qualified name, made a column of the name as written. */
static void unqualify_column(char *msg, size_t prefix)
{
	char *at = strstr(msg, " at column ");
	char *end;
	long col;

	if (!at)
		return;
	col = strtol(at + strlen(" at column "), &end, 10);
	if (col > (long)prefix) {
		char *tail = xstrdup(end); /* snprintf must not read what it writes */

		snprintf(at, strlen(at) + 1, " at column %ld%s", col - (long)prefix, tail);
		free(tail);
	}
}

/*
 * Does e count on the core PMU?  Generic hardware and hw-cache events and
 * raw codes do (the kernel hands PERF_TYPE_HARDWARE, _HW_CACHE and _RAW to
 * the core PMU's driver), and so do libpfm4 core names, which encode as
 * PERF_TYPE_RAW.  A sysfs spec carries its PMU's own type and has already
 * been checked against its directory; software events and tracepoints
 * need no PMU hardware.
 */
static bool needs_core_pmu(const struct evdesc *e)
{
	if (e->source == EV_SYSFS || e->source == EV_TRACEPOINT)
		return false;
	return e->attr.type == PERF_TYPE_HARDWARE || e->attr.type == PERF_TYPE_HW_CACHE ||
	       e->attr.type == PERF_TYPE_RAW;
}

static bool no_core_pmu(const struct model_machine *mm)
{
	return mm->plat && !mm->plat->core_pmu;
}

static char *no_core_reason(const struct model_machine *mm)
{
	if (mm->plat->core_pmu_reason.len)
		return xasprintf("no core PMU here: %s", sbuf_str(&mm->plat->core_pmu_reason));
	return xstrdup("no core PMU here");
}

/* Drop what event_resolve() appended past n0 when it cannot be counted here. */
static int drop_core_events(struct model_machine *mm, struct evdesc_list *out, size_t n0,
			    char **reason)
{
	size_t i;
	bool core = false;

	if (!no_core_pmu(mm))
		return 0;
	for (i = n0; i < out->n; i++)
		core |= needs_core_pmu(&out->v[i]);
	if (!core)
		return 0;
	for (i = n0; i < out->n; i++)
		evdesc_release(&out->v[i]);
	out->n = n0;
	*reason = no_core_reason(mm);
	return VP_EUNSUPP;
}

int model_resolve_event(struct model_machine *mm, const char *spec, int index,
			struct evdesc_list *out, char **reason)
{
	struct vp_err err = { 0, "" };
	size_t n0 = out->n;
	char *q;
	int ret;

	*reason = NULL;
	if (!mm->db) {
		*reason = xstrdup("no PMU database");
		return VP_EUNSUPP;
	}
	/* a libpfm4 core name needs the core PMU whatever table it is in */
	if (looks_libpfm(spec) && no_core_pmu(mm)) {
		*reason = no_core_reason(mm);
		return VP_EUNSUPP;
	}
	ret = event_resolve(mm->db, spec, index, out, &err);
	if (!ret)
		return drop_core_events(mm, out, n0, reason);
	if (strchr(spec, '/')) {
		size_t len = strcspn(spec, "/");
		char *pmu = xstrndup(spec, len);
		int present = pmu_present(mm->db, pmu);

		if (present < 2) {
			/* without format/ nothing can be checked: absent, not wrong */
			*reason = present ? xasprintf("PMU '%s' has no format/ description here", pmu)
					  : xasprintf("no PMU '%s' here", pmu);
			free(pmu);
			return VP_EUNSUPP;
		}
		free(pmu);
		*reason = xstrdup(err.msg);
		return ret;
	}
	if (looks_libpfm(spec) && !strstr(spec, "::")) {
		struct vp_err e2 = { 0, "" };

		if (!mm->pfm_table[0]) {
			*reason = xasprintf("no libpfm4 core PMU table for this CPU (%s)", err.msg);
			return VP_EUNSUPP;
		}
		q = xasprintf("%s::%s", mm->pfm_table, spec);
		ret = event_resolve(mm->db, q, index, out, &e2);
		free(q);
		if (!ret)
			return drop_core_events(mm, out, n0, reason);
		*reason = xasprintf("not in libpfm4 table '%s': %s", mm->pfm_table, e2.msg);
		unqualify_column(*reason, strlen(mm->pfm_table) + 2);
		return ret == VP_EDEP ? VP_EUNSUPP : ret;
	}
	*reason = xstrdup(err.msg);
	return ret == VP_EDEP ? VP_EUNSUPP : ret;
}

static int check_source(struct model_machine *mm, const char *name, char **reason)
{
	struct vp_err err = { 0, "" };
	const char *ev = swsource_event_for(name, mm->scope);
	double v;
	int ret;

	if (mm->live) {
		ret = mm->live(mm->live_ctx, name, &v, &err);
		if (!ret)
			return 0;
		if (ret != VP_ENOTFOUND) {
			*reason = xstrdup(err.msg);
			return VP_EUNSUPP;
		}
		vp_err_clear(&err);
	}
	if (ev) {  /* counted by a perf event here: present when the event is */
		struct evdesc_list out;
		char *why = NULL;

		evdesc_list_init(&out);
		ret = model_resolve_event(mm, ev, 0, &out, &why);
		evdesc_list_release(&out);
		if (ret) {
			*reason = xasprintf("counted by the event '%s' for a command: %s", ev,
					    why ? why : "absent");
			ret = VP_EUNSUPP;
		}
		free(why);
		return ret;
	}
	ret = swsource_read_scoped(mm->root, name, mm->scope, &v, &err);
	if (!ret)
		return 0;
	*reason = xstrdup(err.msg);
	/* an unknown name is the model's error; anything else is this machine's */
	return ret == VP_ENOTFOUND && !swsource_find(name) ? VP_ENOTFOUND : VP_EUNSUPP;
}

int model_machine_check(void *ctx, const struct model_input *in, char **reason)
{
	struct model_machine *mm = ctx;
	struct evdesc_list out;
	int ret;

	if (in->kind == INPUT_SOURCE)
		return check_source(mm, in->spec, reason);
	evdesc_list_init(&out);
	ret = model_resolve_event(mm, in->spec, 0, &out, reason);
	evdesc_list_release(&out);
	return ret;
}

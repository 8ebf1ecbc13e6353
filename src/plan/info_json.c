/* info_json.c - the `vmmprof info --json` document (schema vmmprof-info/1), shared with the daemon */
#include "plan/info_json.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/json.h"

static void jstr_or_null(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	if (s && *s)
		jw_str(w, s);
	else
		jw_null(w);
}

static void jlist(struct jw *w, const char *key, const struct cpulist *cl)
{
	struct sbuf tmp = SBUF_INIT;

	cpulist_format(cl, &tmp);
	jw_kstr(w, key, sbuf_str(&tmp));
	sbuf_release(&tmp);
}

/* "a, b, c" -> ["a","b","c"] */
static void jsplit(struct jw *w, const char *key, const char *s)
{
	const char *p = s;

	jw_key(w, key);
	jw_arr_begin(w);
	while (p && *p) {
		const char *e = strstr(p, ", ");
		char *item = e ? xstrndup(p, (size_t)(e - p)) : xstrdup(p);

		jw_str(w, item);
		free(item);
		p = e ? e + 2 : NULL;
	}
	jw_arr_end(w);
}

static void json_cpu(const struct platform *p, struct jw *w)
{
	const struct cpu_identity *c = &p->cpu;

	jw_key(w, "cpu");
	jw_obj_begin(w);
	jw_kbool(w, "known", c->known);
	jstr_or_null(w, "reason", c->known ? NULL : c->reason);
	jstr_or_null(w, "vendor", c->vendor);
	jstr_or_null(w, "arch", c->arch);
	jw_key(w, "family");
	if (c->family >= 0) jw_int(w, c->family); else jw_null(w);
	jw_key(w, "model");
	if (c->model >= 0) jw_int(w, c->model); else jw_null(w);
	jw_key(w, "stepping");
	if (c->stepping >= 0) jw_int(w, c->stepping); else jw_null(w);
	jstr_or_null(w, "model_name", c->model_name);
	jw_kint(w, "cpus_listed", c->n_cpus_listed);
	jstr_or_null(w, "pfm_pmu", c->pfm_pmu);
	jstr_or_null(w, "pfm_desc", c->pfm_desc);
	jstr_or_null(w, "pfm_source", c->pfm_source);
	jsplit(w, "pfm_active", c->pfm_active);
	jw_key(w, "flags");
	jw_obj_begin(w);
	jw_kbool(w, "hypervisor", c->flag_hypervisor);
	jw_kbool(w, "cqm_occup_llc", c->flag_cqm_llc);
	jw_kbool(w, "cqm_mbm", c->flag_cqm_mbm);
	jw_obj_end(w);
	jw_obj_end(w);
}

static void json_hv(const struct platform *p, struct jw *w)
{
	const struct hypervisor *h = &p->hv;

	jw_key(w, "virtualization");
	jw_obj_begin(w);
	jw_kbool(w, "known", h->known);
	jstr_or_null(w, "reason", h->known ? NULL : h->reason);
	jw_kstr(w, "hypervisor", hv_kind_name(h->kind));
	jstr_or_null(w, "signature", h->signature);
	jstr_or_null(w, "signature_source", h->signature_source);
	jstr_or_null(w, "sys_type", h->sys_type);
	jstr_or_null(w, "sys_capabilities", h->sys_properties);
	jstr_or_null(w, "dmi_vendor", h->dmi_vendor);
	jstr_or_null(w, "dmi_product", h->dmi_product);
	jw_kbool(w, "xen_dom0", h->xen_dom0);
	jstr_or_null(w, "xen_capabilities", h->xen_caps);
	jstr_or_null(w, "xen_pmu_mode", h->xen_pmu_mode);
	jstr_or_null(w, "xen_pmu_reason", h->xen_pmu_mode[0] ? NULL : h->xen_pmu_reason);
	jw_kstr(w, "role", plat_role_name(h->role));
	jw_kstr(w, "role_evidence", h->role_reason);
	jw_key(w, "qemu_processes");
	jw_obj_begin(w);
	jw_kint(w, "total", h->n_qemu);
	jw_kint(w, "kvm", h->n_qemu_kvm);
	jw_kint(w, "tcg", h->n_qemu_tcg);
	jw_obj_end(w);
	jw_obj_end(w);
}

static void json_topo(const struct platform *p, struct jw *w)
{
	const struct topology *t = &p->topo;
	int i, j;

	jw_key(w, "topology");
	jw_obj_begin(w);
	jw_kbool(w, "known", t->known);
	jstr_or_null(w, "reason", t->known ? NULL : t->reason);
	jlist(w, "cpus_online", &t->online);
	jw_kint(w, "n_cpus", t->n_cpus);
	jw_kint(w, "n_packages", t->n_packages);
	jw_kint(w, "n_cores", t->n_cores);
	jw_key(w, "smt");
	if (t->n_cores && !t->n_cpus_no_ids) jw_bool(w, t->smt_on); else jw_null(w);
	jw_kint(w, "cpus_without_ids", t->n_cpus_no_ids);
	jw_kbool(w, "numa_sysfs", t->numa_sysfs);
	jstr_or_null(w, "node_note", t->node_note);
	jw_key(w, "mem_total_bytes");
	if (t->mem_total_sys) jw_uint(w, t->mem_total_sys); else jw_null(w);
	jw_key(w, "nodes");
	jw_arr_begin(w);
	for (i = 0; i < t->n_nodes; i++) {
		const struct numa_node *nd = &t->nodes[i];

		jw_obj_begin(w);
		jw_kint(w, "id", nd->id);
		jlist(w, "cpus", &nd->cpus);
		jw_key(w, "mem_total_bytes");
		if (nd->mem_known) jw_uint(w, nd->mem_total); else jw_null(w);
		jw_key(w, "mem_free_bytes");
		if (nd->mem_known && t->numa_sysfs) jw_uint(w, nd->mem_free); else jw_null(w);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_key(w, "distance");
	if (t->distance) {
		jw_arr_begin(w);
		for (i = 0; i < t->n_nodes; i++) {
			jw_arr_begin(w);
			for (j = 0; j < t->n_nodes; j++)
				jw_int(w, t->distance[i * t->n_nodes + j]);
			jw_arr_end(w);
		}
		jw_arr_end(w);
	} else {
		jw_null(w);
	}
	jstr_or_null(w, "distance_reason", t->distance ? NULL : t->distance_reason);
	jw_key(w, "llc");
	jw_arr_begin(w);
	for (i = 0; i < t->n_llc; i++) {
		jw_obj_begin(w);
		jw_kint(w, "level", t->llc[i].level);
		jw_key(w, "size_bytes");
		if (t->llc[i].size) jw_uint(w, t->llc[i].size); else jw_null(w);
		jlist(w, "cpus", &t->llc[i].cpus);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jstr_or_null(w, "llc_reason", t->n_llc ? NULL : t->llc_reason);
	jstr_or_null(w, "hwloc", t->hwloc_note);
	jw_obj_end(w);
}

static void json_pmus(const struct platform *p, struct jw *w)
{
	int i;

	jw_key(w, "pmus");
	jw_obj_begin(w);
	jw_kbool(w, "known", p->pmus_known);
	jstr_or_null(w, "reason", p->pmus_known ? NULL : p->pmus_reason);
	jw_kbool(w, "core_pmu", p->core_pmu);
	jstr_or_null(w, "core_pmu_name", p->core_pmu_name);
	jstr_or_null(w, "core_pmu_reason", p->core_pmu ? NULL : p->core_pmu_reason);
	jstr_or_null(w, "kernel_line", p->kernel_pmu_line);
	jw_key(w, "devices");
	jw_arr_begin(w);
	for (i = 0; i < p->n_pmus; i++) {
		const struct pmu_info *pi = &p->pmus[i];

		jw_obj_begin(w);
		jw_kstr(w, "name", pi->name);
		jw_kstr(w, "family", pi->family);
		jw_kstr(w, "class", pmu_class_name(pi->cls));
		jw_key(w, "type");
		if (pi->type >= 0) jw_int(w, pi->type); else jw_null(w);
		jlist(w, "cpumask", &pi->cpumask);
		jw_kint(w, "events", pi->n_events);
		jw_kint(w, "formats", pi->n_formats);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_key(w, "families");
	jw_arr_begin(w);
	for (i = 0; i < p->n_families; i++) {
		jw_obj_begin(w);
		jw_kstr(w, "family", p->families[i].family);
		jw_kstr(w, "class", pmu_class_name(p->families[i].cls));
		jw_kint(w, "instances", p->families[i].n_instances);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

static void json_perm(const struct platform *p, struct jw *w)
{
	const struct perm_info *pm = &p->perm;

	jw_key(w, "permissions");
	jw_obj_begin(w);
	jw_kbool(w, "known", pm->known);
	jstr_or_null(w, "reason", pm->known ? NULL : pm->reason);
	jw_key(w, "perf_event_paranoid");
	if (pm->paranoid != INT_MIN) jw_int(w, pm->paranoid); else jw_null(w);
	jstr_or_null(w, "paranoid_reason", pm->paranoid != INT_MIN ? NULL : pm->paranoid_reason);
	jw_kbool(w, "root", pm->is_root);
	jw_kbool(w, "cap_perfmon", pm->cap_perfmon);
	jw_kbool(w, "cap_sys_admin", pm->cap_sys_admin);
	jw_kbool(w, "cgroup_v2", pm->cgroup_v2);
	jstr_or_null(w, "cgroup_root", pm->cgroup_root);
	jw_kbool(w, "cgroup_v1", pm->cgroup_v1);
	jstr_or_null(w, "cgroup_reason", pm->cgroup_v2 ? NULL : pm->cgroup_reason);
	jw_obj_end(w);

	jw_key(w, "resctrl");
	jw_obj_begin(w);
	jw_kbool(w, "supported", pm->resctrl_supported);
	jw_kbool(w, "mounted", pm->resctrl_mounted);
	jsplit(w, "mon_features", pm->resctrl_features);
	jw_kbool(w, "llc_occupancy", pm->resctrl_llc_occupancy);
	jw_kbool(w, "mbm_total", pm->resctrl_mbm_total);
	jw_kbool(w, "mbm_local", pm->resctrl_mbm_local);
	jstr_or_null(w, "reason", pm->resctrl_reason);
	jw_obj_end(w);
}

static void json_coverage(const struct coverage *cv, struct jw *w)
{
	int f;

	jw_key(w, "coverage");
	jw_obj_begin(w);
	jstr_or_null(w, "recipe", cv->recipe);
	jw_kstr(w, "summary", cv->summary);
	jw_kstr(w, "verdict", cv->verdict);
	jw_key(w, "factors");
	jw_arr_begin(w);
	for (f = 0; f < COV_NFACTORS; f++) {
		const struct cov_row *r = &cv->rows[f];

		jw_obj_begin(w);
		jw_kstr(w, "factor", cov_factor_name(r->factor));
		jw_kstr(w, "quality", cov_quality_name(r->quality));
		jw_kstr(w, "kind", cov_kind_name(r->kind));
		jw_kstr(w, "source", r->source);
		jstr_or_null(w, "events", r->events);
		jstr_or_null(w, "note", r->note);
		jstr_or_null(w, "instead", r->remains);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

void info_json(const struct platform *p, const struct coverage *cv, struct sbuf *sb)
{
	struct jw w;

	jw_init(&w, sb, true);
	jw_obj_begin(&w);
	jw_kstr(&w, "schema", "vmmprof-info/1");
	jw_kstr(&w, "root", p->root);
	jw_kbool(&w, "live", !strcmp(p->root, "/"));
	json_cpu(p, &w);
	json_hv(p, &w);
	json_topo(p, &w);
	json_pmus(p, &w);
	json_perm(p, &w);
	json_coverage(cv, &w);
	jw_obj_end(&w);
	sbuf_addch(sb, '\n');
}

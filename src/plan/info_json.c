/* info_json.c - the `vmmprof info --json` document (schema vmmprof-info/2), shared with the daemon */
#include "plan/info_json.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
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
	jstr_or_null(w, "reason", c->known ? NULL : sbuf_str(&c->reason));
	jstr_or_null(w, "vendor", c->vendor);
	jstr_or_null(w, "arch", c->arch);
	jw_key(w, "family");
	if (c->family >= 0) jw_int(w, c->family); else jw_null(w);
	jw_key(w, "model");
	if (c->model >= 0) jw_int(w, c->model); else jw_null(w);
	jw_key(w, "stepping");
	if (c->stepping >= 0) jw_int(w, c->stepping); else jw_null(w);
	jstr_or_null(w, "model_name", sbuf_str(&c->model_name));
	jw_kint(w, "cpus_listed", c->n_cpus_listed);
	jstr_or_null(w, "pfm_pmu", c->pfm_pmu);
	jstr_or_null(w, "pfm_desc", sbuf_str(&c->pfm_desc));
	jstr_or_null(w, "pfm_source", sbuf_str(&c->pfm_source));
	jsplit(w, "pfm_active", sbuf_str(&c->pfm_active));
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
	jstr_or_null(w, "reason", h->known ? NULL : sbuf_str(&h->reason));
	jw_kstr(w, "hypervisor", hv_kind_name(h->kind));
	jstr_or_null(w, "signature", h->signature);
	jstr_or_null(w, "signature_source", sbuf_str(&h->signature_source));
	jstr_or_null(w, "sys_type", h->sys_type);
	jstr_or_null(w, "sys_capabilities", sbuf_str(&h->sys_properties));
	jstr_or_null(w, "dmi_vendor", sbuf_str(&h->dmi_vendor));
	jstr_or_null(w, "dmi_product", sbuf_str(&h->dmi_product));
	jw_kbool(w, "xen_dom0", h->xen_dom0);
	jstr_or_null(w, "xen_capabilities", h->xen_caps);
	jstr_or_null(w, "xen_pmu_mode", h->xen_pmu_mode);
	jstr_or_null(w, "xen_pmu_reason", h->xen_pmu_mode[0] ? NULL : sbuf_str(&h->xen_pmu_reason));
	jstr_or_null(w, "xen_version", h->xen_version);
	jstr_or_null(w, "xen_scheduler", h->xen_scheduler);
	jstr_or_null(w, "xen_commandline", sbuf_str(&h->xen_cmdline));
	jstr_or_null(w, "xen_info_reason", sbuf_str(&h->xen_info_reason));
	if (h->xen_dom0) {
		struct sbuf why = SBUF_INIT;
		bool psr;

		jw_kbool(w, "xen_domain_pmu", platform_xen_pmu_why(p, &why));
		jw_kstr(w, "xen_domain_pmu_reason", sbuf_str(&why));
		psr = platform_xen_psr(p, &why);
		jw_kbool(w, "xen_psr", psr);
		jw_kstr(w, "xen_psr_reason", sbuf_str(&why));
		sbuf_release(&why);
	}
	jw_kstr(w, "role", plat_role_name(h->role));
	jw_kstr(w, "role_evidence", sbuf_str(&h->role_reason));
	jw_key(w, "qemu_processes");
	jw_obj_begin(w);
	jw_kint(w, "total", h->n_qemu);
	jw_kint(w, "kvm", h->n_qemu_kvm);
	jw_kint(w, "tcg", h->n_qemu_tcg);
	jw_obj_end(w);
	jw_obj_end(w);
}

static void json_topo(const char *key, const struct topology *t, struct jw *w)
{
	int i, j;

	jw_key(w, key);
	jw_obj_begin(w);
	jw_kbool(w, "known", t->known);
	jstr_or_null(w, "reason", t->known ? NULL : sbuf_str(&t->reason));
	jlist(w, "cpus_online", &t->online);
	jw_kint(w, "n_cpus", t->n_cpus);
	jw_kint(w, "n_packages", t->n_packages);
	jw_kint(w, "n_cores", t->n_cores);
	jw_key(w, "smt");
	if (t->n_cores && !t->n_cpus_no_ids) jw_bool(w, t->smt_on); else jw_null(w);
	jw_kint(w, "cpus_without_ids", t->n_cpus_no_ids);
	jw_kbool(w, "numa_sysfs", t->numa_sysfs);
	jw_kstr(w, "source", t->from_xen ? "xen" : "sysfs");
	jstr_or_null(w, "node_note", sbuf_str(&t->node_note));
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
		if (nd->mem_known && (t->numa_sysfs || t->from_xen)) jw_uint(w, nd->mem_free); else jw_null(w);
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
	jstr_or_null(w, "distance_reason", t->distance ? NULL : sbuf_str(&t->distance_reason));
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
	jstr_or_null(w, "llc_reason", t->n_llc ? NULL : sbuf_str(&t->llc_reason));
	jstr_or_null(w, "hwloc", sbuf_str(&t->hwloc_note));
	/* each online CPU's package, core and node (-1 unknown): SMT siblings share
	 * package and core; the placement maps of the web UI and the HTML report group by them */
	jw_key(w, "cpus");
	jw_arr_begin(w);
	for (i = 0; i < (int)t->online.n && t->cpu_package; i++) {
		int c = t->online.ids[i];

		if (c < 0 || c >= t->max_cpu)
			continue;
		jw_obj_begin(w);
		jw_kint(w, "cpu", c);
		jw_kint(w, "package", t->cpu_package[c]);
		jw_kint(w, "core", t->cpu_core[c]);
		jw_kint(w, "node", t->cpu_node[c]);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

static void json_pmus(const struct platform *p, struct jw *w)
{
	int i;

	jw_key(w, "pmus");
	jw_obj_begin(w);
	jw_kbool(w, "known", p->pmus_known);
	jstr_or_null(w, "reason", p->pmus_known ? NULL : sbuf_str(&p->pmus_reason));
	jw_kbool(w, "core_pmu", p->core_pmu);
	jstr_or_null(w, "core_pmu_name", p->core_pmu_name);
	jstr_or_null(w, "core_pmu_reason", p->core_pmu ? NULL : sbuf_str(&p->core_pmu_reason));
	jstr_or_null(w, "kernel_line", sbuf_str(&p->kernel_pmu_line));
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
	jstr_or_null(w, "reason", pm->known ? NULL : sbuf_str(&pm->reason));
	jw_key(w, "perf_event_paranoid");
	if (pm->paranoid != INT_MIN) jw_int(w, pm->paranoid); else jw_null(w);
	jstr_or_null(w, "paranoid_reason", pm->paranoid != INT_MIN ? NULL : sbuf_str(&pm->paranoid_reason));
	jw_kbool(w, "root", pm->is_root);
	jw_kbool(w, "cap_perfmon", pm->cap_perfmon);
	jw_kbool(w, "cap_sys_admin", pm->cap_sys_admin);
	jw_kbool(w, "cgroup_v2", pm->cgroup_v2);
	jstr_or_null(w, "cgroup_root", sbuf_str(&pm->cgroup_root));
	jw_kbool(w, "cgroup_v1", pm->cgroup_v1);
	jstr_or_null(w, "cgroup_reason", pm->cgroup_v2 ? NULL : sbuf_str(&pm->cgroup_reason));
	jw_obj_end(w);

	jw_key(w, "resctrl");
	jw_obj_begin(w);
	jw_kbool(w, "supported", pm->resctrl_supported);
	jw_kbool(w, "mounted", pm->resctrl_mounted);
	jsplit(w, "mon_features", sbuf_str(&pm->resctrl_features));
	jw_kbool(w, "llc_occupancy", pm->resctrl_llc_occupancy);
	jw_kbool(w, "mbm_total", pm->resctrl_mbm_total);
	jw_kbool(w, "mbm_local", pm->resctrl_mbm_local);
	jstr_or_null(w, "reason", sbuf_str(&pm->resctrl_reason));
	jw_obj_end(w);
}

static void json_input(const struct cov_input *ci, struct jw *w)
{
	jw_obj_begin(w);
	jw_kstr(w, "name", sbuf_str(&ci->name));
	jw_kstr(w, "spec", sbuf_str(&ci->spec));
	jstr_or_null(w, "description", sbuf_str(&ci->desc));
	jw_kstr(w, "kind", ci->source ? "source" : "event");
	jw_kbool(w, "per_node", ci->per_node);
	jw_kbool(w, "optional", ci->optional);
	jw_kbool(w, "present", ci->present);
	jstr_or_null(w, "pmu", ci->pmu);
	jstr_or_null(w, "reason", sbuf_str(&ci->reason));
	jw_obj_end(w);
}

static void json_coverage(const struct coverage *cv, struct jw *w)
{
	int f, i;

	jw_key(w, "coverage");
	jw_obj_begin(w);
	jstr_or_null(w, "model", sbuf_str(&cv->model));
	jstr_or_null(w, "model_path", sbuf_str(&cv->model_path));
	jw_kstr(w, "chosen_by", sbuf_str(&cv->model_why));
	jstr_or_null(w, "core_table", sbuf_str(&cv->table_from));
	jw_kstr(w, "summary", sbuf_str(&cv->summary));
	jw_kstr(w, "verdict", sbuf_str(&cv->verdict));
	jw_key(w, "costs");
	jw_obj_begin(w);
	jw_kstr(w, "anchor", cov_anchor_name(cv->anchor));
	jw_kstr(w, "note", sbuf_str(&cv->cost_note));
	jw_key(w, "terms");
	jw_arr_begin(w);
	for (i = 0; i < cv->n_terms; i++) {
		const struct cov_term *t = &cv->terms[i];

		jw_obj_begin(w);
		jw_kstr(w, "term", sbuf_str(&t->term));
		jw_kstr(w, "formula", sbuf_str(&t->formula));
		jw_kbool(w, "present", t->present);
		jstr_or_null(w, "reason", sbuf_str(&t->reason));
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
	jw_key(w, "factors");
	jw_arr_begin(w);
	for (f = 0; f < FACTOR_N; f++) {
		const struct cov_row *r = &cv->rows[f];

		jw_obj_begin(w);
		jw_kstr(w, "factor", factor_name(r->factor));
		jw_kstr(w, "quality", vp_quality_name(r->quality));
		jw_kstr(w, "model_quality", vp_quality_name(r->label));
		jw_kstr(w, "kind", cov_kind_name(r->kind));
		jw_kstr(w, "source", sbuf_str(&r->source));
		jstr_or_null(w, "score", sbuf_str(&r->score));
		jstr_or_null(w, "description", sbuf_str(&r->desc));
		jw_key(w, "reads");
		jw_arr_begin(w);
		for (i = 0; i < r->n_inputs; i++)
			json_input(&r->inputs[i], w);
		jw_arr_end(w);
		jstr_or_null(w, "note", sbuf_str(&r->note));
		jstr_or_null(w, "instead", sbuf_str(&r->remains));
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
	jw_kstr(&w, "schema", "vmmprof-info/2");
	jw_kstr(&w, "root", p->root);
	jw_kbool(&w, "live", !strcmp(p->root, "/"));
	json_cpu(p, &w);
	json_hv(p, &w);
	json_topo("topology", &p->topo, &w);
	if (p->topo.from_xen) /* a dom0's own view: its vCPUs and its nodes */
		json_topo("dom0_topology", &p->dom0_topo, &w);
	json_pmus(p, &w);
	json_perm(p, &w);
	json_coverage(cv, &w);
	jw_obj_end(&w);
	sbuf_addch(sb, '\n');
}

/* ---- reading the document back (the remote client's text) ---- */

/*
 * A string member into a fixed field whose text is bounded (a sysfs name, a
 * CPUID string, a kernel token): cut at a whole character when a daemon
 * sends more.
 */
static void rd_str(const struct jv *o, const char *key, char *dst, size_t size)
{
	const char *s = jv_str(o, key);

	utf8_copy(dst, size, s ? s : "");
}

/* A string member as the whole text of an sbuf field. */
static void rd_text(const struct jv *o, const char *key, struct sbuf *dst)
{
	const char *s = jv_str(o, key);

	sbuf_reset(dst);
	sbuf_addutf8(dst, s ? s : "");
}

static bool rd_bool(const struct jv *o, const char *key)
{
	const struct jv *v = jv_get(o, key);

	return v && v->type == JV_BOOL && v->b;
}

/* An integer member, dflt when absent or null. */
static int rd_int(const struct jv *o, const char *key, int dflt)
{
	double d = jv_num(o, key);

	return isnan(d) ? dflt : (int)d;
}

static uint64_t rd_u64(const struct jv *o, const char *key)
{
	double d = jv_num(o, key);

	return isnan(d) || d < 0 ? 0 : (uint64_t)d;
}

/* ["a","b"] -> "a, b" (the inverse of jsplit) */
static void rd_join(const struct jv *o, const char *key, struct sbuf *dst)
{
	const struct jv *a = jv_arr(o, key);
	size_t i;

	sbuf_reset(dst);
	for (i = 0; a && i < a->n; i++)
		if (a->items[i].type == JV_STR) {
			if (dst->len)
				sbuf_addstr(dst, ", ");
			sbuf_addutf8(dst, a->items[i].str);
		}
}

static void rd_list(const struct jv *o, const char *key, struct cpulist *cl)
{
	const char *s = jv_str(o, key);
	struct vp_err e;

	cpulist_init(cl);
	if (s && cpulist_parse(cl, s, &e))
		cpulist_init(cl);
}

/* The enum value whose name(i) is s, for i in [0, n); dflt when none. */
static int rd_enum(const char *s, const char *(*name)(int i), int n, int dflt)
{
	int i = jv_enum(s, n, name);

	return i < 0 ? dflt : i;
}

static const char *hv_name_i(int i) { return hv_kind_name((enum hv_kind)i); }
static const char *role_name_i(int i) { return plat_role_name((enum plat_role)i); }
static const char *class_name_i(int i) { return pmu_class_name((enum pmu_class)i); }
static const char *factor_name_i(int i) { return factor_name((enum factor_id)i); }
static const char *quality_name_i(int i) { return vp_quality_name((enum vp_quality)i); }
static const char *kind_name_i(int i) { return cov_kind_name((enum cov_kind)i); }
static const char *anchor_name_i(int i) { return cov_anchor_name((enum cov_anchor)i); }

static void rd_cpu(const struct jv *c, struct platform *p)
{
	const struct jv *fl = jv_get(c, "flags");

	p->cpu.known = rd_bool(c, "known");
	rd_text(c, "reason", &p->cpu.reason);
	rd_str(c, "vendor", p->cpu.vendor, sizeof(p->cpu.vendor));
	rd_str(c, "arch", p->cpu.arch, sizeof(p->cpu.arch));
	p->cpu.family = rd_int(c, "family", -1);
	p->cpu.model = rd_int(c, "model", -1);
	p->cpu.stepping = rd_int(c, "stepping", -1);
	rd_text(c, "model_name", &p->cpu.model_name);
	p->cpu.n_cpus_listed = rd_int(c, "cpus_listed", 0);
	rd_str(c, "pfm_pmu", p->cpu.pfm_pmu, sizeof(p->cpu.pfm_pmu));
	rd_text(c, "pfm_desc", &p->cpu.pfm_desc);
	rd_text(c, "pfm_source", &p->cpu.pfm_source);
	rd_join(c, "pfm_active", &p->cpu.pfm_active);
	p->cpu.flag_hypervisor = rd_bool(fl, "hypervisor");
	p->cpu.flag_cqm_llc = rd_bool(fl, "cqm_occup_llc");
	p->cpu.flag_cqm_mbm = rd_bool(fl, "cqm_mbm");
}

static void rd_hv(const struct jv *v, struct platform *p)
{
	struct hypervisor *h = &p->hv;
	const struct jv *q = jv_get(v, "qemu_processes");

	h->known = rd_bool(v, "known");
	rd_text(v, "reason", &h->reason);
	h->kind = (enum hv_kind)rd_enum(jv_str(v, "hypervisor"), hv_name_i, HV_UNKNOWN + 1, HV_UNKNOWN);
	rd_str(v, "signature", h->signature, sizeof(h->signature));
	rd_text(v, "signature_source", &h->signature_source);
	rd_str(v, "sys_type", h->sys_type, sizeof(h->sys_type));
	rd_text(v, "sys_capabilities", &h->sys_properties);
	rd_text(v, "dmi_vendor", &h->dmi_vendor);
	rd_text(v, "dmi_product", &h->dmi_product);
	h->xen_dom0 = rd_bool(v, "xen_dom0");
	rd_str(v, "xen_capabilities", h->xen_caps, sizeof(h->xen_caps));
	rd_str(v, "xen_pmu_mode", h->xen_pmu_mode, sizeof(h->xen_pmu_mode));
	rd_text(v, "xen_pmu_reason", &h->xen_pmu_reason);
	rd_str(v, "xen_version", h->xen_version, sizeof(h->xen_version));
	rd_str(v, "xen_scheduler", h->xen_scheduler, sizeof(h->xen_scheduler));
	rd_text(v, "xen_commandline", &h->xen_cmdline);
	rd_text(v, "xen_info_reason", &h->xen_info_reason);
	h->role = (enum plat_role)rd_enum(jv_str(v, "role"), role_name_i, ROLE_HOST + 1, ROLE_UNKNOWN);
	rd_text(v, "role_evidence", &h->role_reason);
	h->n_qemu = rd_int(q, "total", 0);
	h->n_qemu_kvm = rd_int(q, "kvm", 0);
	h->n_qemu_tcg = rd_int(q, "tcg", 0);
}

/* "cpus" (written since the placement maps; absent before): the per-CPU arrays. */
static void rd_cpus(const struct jv *v, struct topology *t)
{
	const struct jv *cpus = jv_arr(v, "cpus");
	size_t i;
	int max = -1, j;

	for (i = 0; cpus && i < cpus->n; i++) {
		int c = rd_int(&cpus->items[i], "cpu", -1);

		if (c > max && c < 1 << 20)
			max = c;
	}
	if (max < 0)
		return;
	t->max_cpu = max + 1;
	t->cpu_package = xmalloc((size_t)t->max_cpu * sizeof(int));
	t->cpu_core = xmalloc((size_t)t->max_cpu * sizeof(int));
	t->cpu_node = xmalloc((size_t)t->max_cpu * sizeof(int));
	for (j = 0; j < t->max_cpu; j++)
		t->cpu_package[j] = t->cpu_core[j] = t->cpu_node[j] = -1;
	for (i = 0; i < cpus->n; i++) {
		const struct jv *c = &cpus->items[i];
		int id = rd_int(c, "cpu", -1);

		if (id < 0 || id >= t->max_cpu)
			continue;
		t->cpu_package[id] = rd_int(c, "package", -1);
		t->cpu_core[id] = rd_int(c, "core", -1);
		t->cpu_node[id] = rd_int(c, "node", -1);
	}
}

static void rd_topo(const struct jv *v, struct topology *t)
{
	const struct jv *nodes = jv_arr(v, "nodes"), *dist = jv_arr(v, "distance");
	const struct jv *llc = jv_arr(v, "llc"), *smt = jv_get(v, "smt");
	size_t i, j;

	t->known = rd_bool(v, "known");
	rd_text(v, "reason", &t->reason);
	rd_list(v, "cpus_online", &t->online);
	t->n_cpus = rd_int(v, "n_cpus", 0);
	t->n_packages = rd_int(v, "n_packages", 0);
	t->n_cores = rd_int(v, "n_cores", 0);
	t->smt_on = smt && smt->type == JV_BOOL && smt->b;
	t->n_cpus_no_ids = rd_int(v, "cpus_without_ids", 0);
	t->numa_sysfs = rd_bool(v, "numa_sysfs");
	t->from_xen = jv_str(v, "source") && !strcmp(jv_str(v, "source"), "xen");
	rd_text(v, "node_note", &t->node_note);
	t->mem_total_sys = rd_u64(v, "mem_total_bytes");
	if (nodes && nodes->n) {
		t->nodes = xcalloc(nodes->n, sizeof(*t->nodes));
		for (i = 0; i < nodes->n; i++) {
			const struct jv *n = &nodes->items[i];
			struct numa_node *nd = &t->nodes[t->n_nodes++];

			nd->id = rd_int(n, "id", (int)i);
			rd_list(n, "cpus", &nd->cpus);
			nd->mem_known = !isnan(jv_num(n, "mem_total_bytes"));
			nd->mem_total = rd_u64(n, "mem_total_bytes");
			nd->mem_free = rd_u64(n, "mem_free_bytes");
		}
	}
	/* a square matrix over the nodes, or none */
	if (dist && dist->n == (size_t)t->n_nodes && t->n_nodes) {
		t->distance = xcalloc((size_t)t->n_nodes * (size_t)t->n_nodes, sizeof(int));
		for (i = 0; i < dist->n && t->distance; i++) {
			const struct jv *row = &dist->items[i];

			if (row->type != JV_ARR || row->n != (size_t)t->n_nodes) {
				free(t->distance);
				t->distance = NULL;
				break;
			}
			for (j = 0; j < row->n; j++)
				t->distance[i * (size_t)t->n_nodes + j] =
					row->items[j].type == JV_NUM ? (int)row->items[j].num : 0;
		}
	}
	rd_text(v, "distance_reason", &t->distance_reason);
	if (llc && llc->n) {
		t->llc = xcalloc(llc->n, sizeof(*t->llc));
		for (i = 0; i < llc->n; i++) {
			struct cache_domain *c = &t->llc[t->n_llc++];

			c->id = (int)i;
			c->level = rd_int(&llc->items[i], "level", 3);
			c->size = rd_u64(&llc->items[i], "size_bytes");
			rd_list(&llc->items[i], "cpus", &c->cpus);
		}
	}
	rd_text(v, "llc_reason", &t->llc_reason);
	rd_text(v, "hwloc", &t->hwloc_note);
	rd_cpus(v, t);
}

static void rd_pmus(const struct jv *v, struct platform *p)
{
	const struct jv *dev = jv_arr(v, "devices"), *fam = jv_arr(v, "families");
	size_t i;

	p->pmus_known = rd_bool(v, "known");
	rd_text(v, "reason", &p->pmus_reason);
	p->core_pmu = rd_bool(v, "core_pmu");
	rd_str(v, "core_pmu_name", p->core_pmu_name, sizeof(p->core_pmu_name));
	rd_text(v, "core_pmu_reason", &p->core_pmu_reason);
	rd_text(v, "kernel_line", &p->kernel_pmu_line);
	if (dev && dev->n) {
		p->pmus = xcalloc(dev->n, sizeof(*p->pmus));
		for (i = 0; i < dev->n; i++) {
			const struct jv *d = &dev->items[i];
			struct pmu_info *pi = &p->pmus[p->n_pmus++];

			rd_str(d, "name", pi->name, sizeof(pi->name));
			rd_str(d, "family", pi->family, sizeof(pi->family));
			pi->cls = (enum pmu_class)rd_enum(jv_str(d, "class"), class_name_i, PMU_OTHER + 1,
							  PMU_OTHER);
			pi->type = rd_int(d, "type", -1);
			rd_list(d, "cpumask", &pi->cpumask);
			pi->n_events = rd_int(d, "events", 0);
			pi->n_formats = rd_int(d, "formats", 0);
		}
	}
	if (fam && fam->n) {
		p->families = xcalloc(fam->n, sizeof(*p->families));
		for (i = 0; i < fam->n; i++) {
			const struct jv *f = &fam->items[i];
			struct pmu_family *pf = &p->families[p->n_families++];

			rd_str(f, "family", pf->family, sizeof(pf->family));
			pf->cls = (enum pmu_class)rd_enum(jv_str(f, "class"), class_name_i, PMU_OTHER + 1,
							  PMU_OTHER);
			pf->n_instances = rd_int(f, "instances", 0);
		}
	}
}

static void rd_perm(const struct jv *v, const struct jv *rc, struct perm_info *pm)
{
	pm->known = rd_bool(v, "known");
	rd_text(v, "reason", &pm->reason);
	pm->paranoid = rd_int(v, "perf_event_paranoid", INT_MIN);
	rd_text(v, "paranoid_reason", &pm->paranoid_reason);
	pm->is_root = rd_bool(v, "root");
	pm->cap_perfmon = rd_bool(v, "cap_perfmon");
	pm->cap_sys_admin = rd_bool(v, "cap_sys_admin");
	pm->cgroup_v2 = rd_bool(v, "cgroup_v2");
	rd_text(v, "cgroup_root", &pm->cgroup_root);
	pm->cgroup_v1 = rd_bool(v, "cgroup_v1");
	rd_text(v, "cgroup_reason", &pm->cgroup_reason);
	pm->resctrl_supported = rd_bool(rc, "supported");
	pm->resctrl_mounted = rd_bool(rc, "mounted");
	rd_join(rc, "mon_features", &pm->resctrl_features);
	pm->resctrl_llc_occupancy = rd_bool(rc, "llc_occupancy");
	pm->resctrl_mbm_total = rd_bool(rc, "mbm_total");
	pm->resctrl_mbm_local = rd_bool(rc, "mbm_local");
	rd_text(rc, "reason", &pm->resctrl_reason);
}

static void rd_input(const struct jv *v, struct cov_input *ci)
{
	const char *k = jv_str(v, "kind");

	rd_text(v, "name", &ci->name);
	rd_text(v, "spec", &ci->spec);
	rd_text(v, "description", &ci->desc);
	ci->source = k && !strcmp(k, "source");
	ci->per_node = rd_bool(v, "per_node");
	ci->optional = rd_bool(v, "optional");
	ci->present = rd_bool(v, "present");
	rd_str(v, "pmu", ci->pmu, sizeof(ci->pmu));
	rd_text(v, "reason", &ci->reason);
}

static int rd_coverage(const struct jv *v, struct coverage *cv, struct vp_err *err)
{
	const struct jv *rows = jv_arr(v, "factors");
	const struct jv *costs = jv_get(v, "costs");
	const struct jv *terms = costs ? jv_arr(costs, "terms") : NULL;
	size_t i, k;

	rd_text(v, "model", &cv->model);
	rd_text(v, "model_path", &cv->model_path);
	rd_text(v, "chosen_by", &cv->model_why);
	rd_text(v, "core_table", &cv->table_from);
	rd_text(v, "summary", &cv->summary);
	rd_text(v, "verdict", &cv->verdict);
	if (costs) {
		cv->anchor = (enum cov_anchor)rd_enum(jv_str(costs, "anchor"), anchor_name_i,
						      COV_COST_ESTIMATED + 1, COV_COST_NONE);
		rd_text(costs, "note", &cv->cost_note);
		for (k = 0; terms && k < terms->n && k < CT_N; k++) {
			const struct jv *t = &terms->items[k];
			struct cov_term *ct = &cv->terms[k];

			rd_text(t, "term", &ct->term);
			rd_text(t, "formula", &ct->formula);
			ct->present = rd_bool(t, "present");
			rd_text(t, "reason", &ct->reason);
		}
		cv->n_terms = (int)k;
	}
	if (!rows || rows->n != FACTOR_N)
		return vp_err_set(err, VP_EFORMAT, "the info document's coverage has not %d factors",
				  FACTOR_N);
	for (i = 0; i < rows->n; i++) {
		const struct jv *r = &rows->items[i];
		const struct jv *in = jv_arr(r, "reads");
		struct cov_row *row = &cv->rows[i];

		row->factor = (enum factor_id)rd_enum(jv_str(r, "factor"), factor_name_i, FACTOR_N,
						       (int)i);
		row->quality = (enum vp_quality)rd_enum(jv_str(r, "quality"), quality_name_i,
							 VQ_UNAVAILABLE + 1, VQ_UNAVAILABLE);
		row->label = (enum vp_quality)rd_enum(jv_str(r, "model_quality"), quality_name_i,
						       VQ_UNAVAILABLE + 1, VQ_UNAVAILABLE);
		row->kind = (enum cov_kind)rd_enum(jv_str(r, "kind"), kind_name_i, COV_SRC_NONE + 1,
						   COV_SRC_NONE);
		rd_text(r, "source", &row->source);
		rd_text(r, "score", &row->score);
		rd_text(r, "description", &row->desc);
		for (k = 0; in && k < in->n; k++)
			rd_input(&in->items[k], cov_row_add_input(row));
		rd_text(r, "note", &row->note);
		rd_text(r, "instead", &row->remains);
	}
	return 0;
}

int info_from_json(const struct jv *doc, struct platform *p, struct coverage *cv,
		   struct vp_err *err)
{
	const char *schema = jv_str(doc, "schema");
	int ret;

	memset(p, 0, sizeof(*p));
	memset(cv, 0, sizeof(*cv));
	if (!schema || strcmp(schema, "vmmprof-info/2"))
		return vp_err_set(err, VP_EFORMAT, "not a vmmprof-info/2 document (schema '%s')",
				  schema ? schema : "none");
	rd_str(doc, "root", p->root, sizeof(p->root));
	rd_cpu(jv_get(doc, "cpu"), p);
	rd_hv(jv_get(doc, "virtualization"), p);
	rd_topo(jv_get(doc, "topology"), &p->topo);
	if (p->topo.from_xen && jv_get(doc, "dom0_topology"))
		rd_topo(jv_get(doc, "dom0_topology"), &p->dom0_topo);
	rd_pmus(jv_get(doc, "pmus"), p);
	rd_perm(jv_get(doc, "permissions"), jv_get(doc, "resctrl"), &p->perm);
	ret = rd_coverage(jv_get(doc, "coverage"), cv, err);
	if (ret) {
		platform_release(p);
		coverage_release(cv);
	}
	return ret;
}

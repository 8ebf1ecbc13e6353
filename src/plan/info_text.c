/* info_text.c - the `vmmprof info` text, shared by the local command and the remote client */
#include "plan/info_text.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/table.h"

/* "4.3 GiB" */
static void add_bytes(struct sbuf *sb, uint64_t b)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		sbuf_addf(sb, "%llu B", (unsigned long long)b);
	else
		sbuf_addf(sb, v < 10 ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

static void add_list(struct sbuf *sb, const struct cpulist *cl)
{
	if (cl->n)
		cpulist_format(cl, sb);
	else
		sbuf_addstr(sb, "-");
}

static void kv(struct sbuf *sb, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void kv(struct sbuf *sb, const char *key, const char *fmt, ...)
{
	va_list ap;

	sbuf_addf(sb, "  %-16s ", key);
	va_start(ap, fmt);
	sbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	sbuf_addch(sb, '\n');
}

static void text_cpu(const struct platform *p, struct sbuf *sb)
{
	const struct cpu_identity *c = &p->cpu;
	bool arm = !strcmp(c->arch, "aarch64");

	sbuf_addstr(sb, "CPU\n");
	if (!c->known && !c->vendor[0]) {
		kv(sb, "identity", "unknown (%s)", sbuf_str(&c->reason));
		return;
	}
	if (!c->known)
		kv(sb, "identity", "incomplete (%s)", sbuf_str(&c->reason));
	kv(sb, "vendor", "%s", c->vendor[0] ? c->vendor : "unknown");
	kv(sb, "model", "%s", c->model_name.len ? sbuf_str(&c->model_name) : "unknown");
	if (arm)
		kv(sb, "id", "implementer 0x%02x, part 0x%03x, revision %d", (unsigned)c->family,
		   (unsigned)c->model, c->stepping);
	else if (c->family >= 0 && c->model >= 0)
		kv(sb, "id", "family 0x%x (%d), model 0x%x (%d), stepping %d", (unsigned)c->family,
		   c->family, (unsigned)c->model, c->model, c->stepping);
	else
		kv(sb, "id", "unknown (family or model unreadable)");
	kv(sb, "arch", "%s, %d CPU%s listed in /proc/cpuinfo", c->arch, c->n_cpus_listed,
	   c->n_cpus_listed == 1 ? "" : "s");
	if (c->pfm_pmu[0])
		kv(sb, "libpfm4", "%s%s%s%s, from %s", c->pfm_pmu, c->pfm_desc.len ? " \"" : "",
		   sbuf_str(&c->pfm_desc), c->pfm_desc.len ? "\"" : "", sbuf_str(&c->pfm_source));
	else
		kv(sb, "libpfm4", "none (%s)", sbuf_str(&c->pfm_source));
	if (c->pfm_active.len)
		kv(sb, "", "active libpfm4 tables: %s", sbuf_str(&c->pfm_active));
	if (c->pfm_pmu[0] && !p->core_pmu)
		kv(sb, "", "the kernel exposes no core PMU: these events cannot be opened here");
}

static void text_hv(const struct platform *p, struct sbuf *sb)
{
	const struct hypervisor *h = &p->hv;

	sbuf_addstr(sb, "\nVirtualization\n");
	if (h->signature[0])
		kv(sb, "hypervisor", "%s (signature \"%s\", %s)", hv_kind_name(h->kind), h->signature,
		   sbuf_str(&h->signature_source));
	else if (h->kind == HV_UNKNOWN)
		kv(sb, "hypervisor", "unknown (%s)", h->known ? sbuf_str(&h->signature_source) : sbuf_str(&h->reason));
	else
		kv(sb, "hypervisor", "%s (%s)", hv_kind_name(h->kind), sbuf_str(&h->signature_source));
	kv(sb, "role", "%s: %s", plat_role_name(h->role), sbuf_str(&h->role_reason));
	if (!p->cpu.n_cpus_listed && !p->cpu.vendor[0])
		kv(sb, "cpuinfo flag", "unknown (%s)", sbuf_str(&p->cpu.reason));
	else if (!strcmp(p->cpu.arch, "aarch64"))
		kv(sb, "cpuinfo flag", "none on aarch64");
	else
		kv(sb, "cpuinfo flag", "%s", p->cpu.flag_hypervisor ? "hypervisor" : "no hypervisor flag");
	if (h->sys_type[0])
		kv(sb, "/sys/hypervisor", "type %s%s%s", h->sys_type,
		   h->sys_properties.len ? ", capabilities " : "", sbuf_str(&h->sys_properties));
	else
		kv(sb, "/sys/hypervisor", "absent");
	if (h->dmi_vendor.len || h->dmi_product.len)
		kv(sb, "DMI", "%s / %s", h->dmi_vendor.len ? sbuf_str(&h->dmi_vendor) : "?",
		   h->dmi_product.len ? sbuf_str(&h->dmi_product) : "?");
	else
		kv(sb, "DMI", "unknown (no /sys/class/dmi/id)");
	if (h->kind == HV_XEN || h->sys_type[0] || h->xen_caps[0]) {
		kv(sb, "Xen", "%s%s%s", h->xen_dom0 ? "dom0" : "domU",
		   h->xen_caps[0] ? ", capabilities " : "", h->xen_caps);
		if (h->xen_version[0])
			kv(sb, "Xen version", "%s, scheduler %s", h->xen_version,
			   h->xen_scheduler[0] ? h->xen_scheduler : "unknown");
		if (h->xen_dom0 && h->xen_info_reason.len)
			kv(sb, "xl info", "unreadable (%s)", sbuf_str(&h->xen_info_reason));
		else if (h->xen_dom0)
			kv(sb, "Xen options", "%s", h->xen_cmdline.len ? sbuf_str(&h->xen_cmdline) :
			   "none (xen_commandline is empty)");
		if (h->xen_pmu_mode[0])
			kv(sb, "Xen PMU mode", "%s", h->xen_pmu_mode);
		else
			kv(sb, "Xen PMU mode", "unknown (%s)", sbuf_str(&h->xen_pmu_reason));
		if (h->xen_dom0) {
			/* what dom0 cannot count, and what would change it: docs/xen.md */
			struct sbuf why = SBUF_INIT;
			bool ok = platform_xen_pmu_why(p, &why);

			kv(sb, "per-domain PMU", "%s%s", ok ? "apportioned: " : "n/a: ", sbuf_str(&why));
			ok = platform_xen_psr(p, &why);
			kv(sb, "per-domain PSR", "%s%s", ok ? "available: " : "n/a: ", sbuf_str(&why));
			sbuf_release(&why);
		}
	}
	kv(sb, "QEMU here", "%d process%s", h->n_qemu, h->n_qemu == 1 ? "" : "es");
}

static void text_topo(const struct platform *p, struct sbuf *sb)
{
	const struct topology *t = &p->topo;
	struct sbuf tmp = SBUF_INIT;
	struct table tb;
	int i, j;
	uint64_t node_sum = 0;
	bool node_mem_known = true;

	sbuf_addstr(sb, "\nTopology\n");
	if (!t->known) {
		kv(sb, "CPUs", "unknown (%s)", sbuf_str(&t->reason));
		return;
	}
	add_list(&tmp, &t->online);
	kv(sb, "CPUs", "%d online (%s), %d package%s, %d core%s, SMT %s", t->n_cpus, sbuf_str(&tmp),
	   t->n_packages, t->n_packages == 1 ? "" : "s", t->n_cores, t->n_cores == 1 ? "" : "s",
	   !t->n_cores || t->n_cpus_no_ids ? "unknown" : t->smt_on ? "on" : "off");
	if (t->n_cpus_no_ids)
		kv(sb, "", "%d CPU%s without readable topology/physical_package_id or core_id",
		   t->n_cpus_no_ids, t->n_cpus_no_ids == 1 ? "" : "s");
	kv(sb, "NUMA nodes", "%d, %s", t->n_nodes, sbuf_str(&t->node_note));
	{
		static const char *const head[] = { ">node", "cpus", ">memory", ">free" };

		table_init(&tb, 4, head);
		for (i = 0; i < t->n_nodes; i++) {
			const struct numa_node *nd = &t->nodes[i];

			table_row(&tb);
			table_cell(&tb, "%d", nd->id);
			sbuf_reset(&tmp);
			add_list(&tmp, &nd->cpus);
			table_cell(&tb, "%s", sbuf_str(&tmp));
			sbuf_reset(&tmp);
			if (nd->mem_known) {
				add_bytes(&tmp, nd->mem_total);
				node_sum += nd->mem_total;
			} else {
				sbuf_addstr(&tmp, "n/a");
				node_mem_known = false;
			}
			table_cell(&tb, "%s", sbuf_str(&tmp));
			sbuf_reset(&tmp);
			if (nd->mem_known && (t->numa_sysfs || t->from_xen))
				add_bytes(&tmp, nd->mem_free);
			else
				sbuf_addstr(&tmp, "n/a");
			table_cell(&tb, "%s", sbuf_str(&tmp));
		}
		table_render(&tb, sb, 4, true);
		table_release(&tb);
	}
	if (t->distance) {
		const char **head = calloc((size_t)t->n_nodes + 1, sizeof(char *));
		char **names = calloc((size_t)t->n_nodes + 1, sizeof(char *));

		names[0] = strdup(">from\\to");
		for (j = 0; j < t->n_nodes; j++)
			names[j + 1] = NULL, sbuf_reset(&tmp), sbuf_addf(&tmp, ">%d", t->nodes[j].id),
			names[j + 1] = strdup(sbuf_str(&tmp));
		for (j = 0; j <= t->n_nodes; j++)
			head[j] = names[j];
		table_init(&tb, (size_t)t->n_nodes + 1, head);
		for (i = 0; i < t->n_nodes; i++) {
			table_row(&tb);
			table_cell(&tb, "%d", t->nodes[i].id);
			for (j = 0; j < t->n_nodes; j++)
				table_cell(&tb, "%d", t->distance[i * t->n_nodes + j]);
		}
		kv(sb, "distances", "%s", t->from_xen ? "(Xen's: 10 = local)" :
		   "(the kernel's SLIT: 10 = local)");
		table_render(&tb, sb, 4, true);
		table_release(&tb);
		for (j = 0; j <= t->n_nodes; j++)
			free(names[j]);
		free(names);
		free(head);
	} else {
		kv(sb, "distances", "unknown (%s)", sbuf_str(&t->distance_reason));
	}
	if (t->n_llc) {
		kv(sb, "LLC domains", "%d", t->n_llc);
		for (i = 0; i < t->n_llc; i++) {
			sbuf_reset(&tmp);
			sbuf_addf(&tmp, "L%d ", t->llc[i].level);
			if (t->llc[i].size)
				add_bytes(&tmp, t->llc[i].size);
			else
				sbuf_addstr(&tmp, "size n/a");
			sbuf_addstr(&tmp, ", CPUs ");
			add_list(&tmp, &t->llc[i].cpus);
			kv(sb, "", "%s", sbuf_str(&tmp));
		}
	} else {
		kv(sb, "LLC domains", "unknown (%s)", sbuf_str(&t->llc_reason));
	}
	if (t->mem_total_sys) {
		sbuf_reset(&tmp);
		add_bytes(&tmp, t->mem_total_sys);
		if (node_mem_known && t->numa_sysfs && node_sum &&
		    (node_sum > t->mem_total_sys * 105 / 100 || node_sum < t->mem_total_sys * 95 / 100)) {
			sbuf_addstr(&tmp, " in /proc/meminfo; the nodes' meminfo totals ");
			add_bytes(&tmp, node_sum);
			sbuf_addstr(&tmp, " (memory outside any node's count, e.g. hotplugged)");
		} else {
			sbuf_addstr(&tmp, t->from_xen ? " (xl info total_memory)" : " (/proc/meminfo)");
		}
		kv(sb, "memory", "%s", sbuf_str(&tmp));
	}
	if (t->from_xen) {
		const struct topology *d = &p->dom0_topo;

		sbuf_reset(&tmp);
		add_list(&tmp, &d->online);
		if (d->known)
			kv(sb, "dom0's own view", "%d vCPU%s (%s), %d node%s (sysfs: dom0's vCPUs, "
			   "not pCPUs)", d->n_cpus, d->n_cpus == 1 ? "" : "s", sbuf_str(&tmp),
			   d->n_nodes, d->n_nodes == 1 ? "" : "s");
		else
			kv(sb, "dom0's own view", "unknown (%s)", sbuf_str(&d->reason));
	}
	if (t->hwloc_note.len)
		kv(sb, "hwloc", "%s", sbuf_str(&t->hwloc_note));
	sbuf_release(&tmp);
}

static void text_pmus(const struct platform *p, struct sbuf *sb)
{
	static const char *const head[] = { "family", "class", ">instances", ">type", "cpumask",
					    ">events", ">formats" };
	struct sbuf tmp = SBUF_INIT;
	struct table tb;
	int f, i;

	sbuf_addstr(sb, "\nPMUs (/sys/bus/event_source/devices)\n");
	if (!p->pmus_known) {
		kv(sb, "inventory", "unknown (%s)", sbuf_str(&p->pmus_reason));
		kv(sb, "core PMU", "unknown");
		return;
	}
	if (p->core_pmu)
		kv(sb, "core PMU", "%s", p->core_pmu_name);
	else
		kv(sb, "core PMU", "none: %s", sbuf_str(&p->core_pmu_reason));
	if (p->core_pmu && p->kernel_pmu_line.len)
		kv(sb, "kernel", "%s", sbuf_str(&p->kernel_pmu_line));
	table_init(&tb, 7, head);
	for (f = 0; f < p->n_families; f++) {
		const struct pmu_family *fam = &p->families[f];
		const struct pmu_info *first = NULL, *last = NULL;

		for (i = 0; i < p->n_pmus; i++)
			if (!strcmp(p->pmus[i].family, fam->family)) {
				if (!first)
					first = &p->pmus[i];
				last = &p->pmus[i];
			}
		table_row(&tb);
		table_cell(&tb, "%s", fam->family);
		table_cell(&tb, "%s", pmu_class_name(fam->cls));
		table_cell(&tb, "%d", fam->n_instances);
		if (!first) {
			/* a family without a device: only a document read back (a daemon's
			 * answer) can say so; its columns are unknown, not a crash */
			table_cell(&tb, "n/a");
			table_cell(&tb, "n/a");
			table_cell(&tb, "n/a");
			table_cell(&tb, "n/a");
			continue;
		}
		if (first->type < 0)
			table_cell(&tb, "n/a");
		else if (first != last && last->type >= 0)
			table_cell(&tb, "%d..%d", first->type, last->type);
		else
			table_cell(&tb, "%d", first->type);
		sbuf_reset(&tmp);
		add_list(&tmp, &first->cpumask);
		table_cell(&tb, "%s", sbuf_str(&tmp));
		table_cell(&tb, "%d", first->n_events);
		table_cell(&tb, "%d", first->n_formats);
	}
	table_render(&tb, sb, 4, true);
	table_release(&tb);
	sbuf_release(&tmp);
}

static void text_perm(const struct platform *p, struct sbuf *sb)
{
	const struct perm_info *pm = &p->perm;

	sbuf_addstr(sb, "\nPermissions\n");
	if (pm->paranoid != INT_MIN)
		kv(sb, "perf paranoid", "%d%s", pm->paranoid,
		   pm->paranoid >= 2 ? " (CPU-wide counting needs root or CAP_PERFMON)" :
		   pm->paranoid >= 1 ? " (no CPU-wide counting without CAP_PERFMON)" : "");
	else
		kv(sb, "perf paranoid", "unknown (%s)", sbuf_str(&pm->paranoid_reason));
	if (pm->known)
		kv(sb, "privileges", "%s, CAP_PERFMON %s, CAP_SYS_ADMIN %s",
		   pm->is_root ? "root (euid 0)" : "not root", pm->cap_perfmon ? "yes" : "no",
		   pm->cap_sys_admin ? "yes" : "no");
	else
		kv(sb, "privileges", "%sunknown (%s)", pm->is_root ? "root, capabilities " : "",
		   sbuf_str(&pm->reason));
	if (pm->resctrl_features.len)
		kv(sb, "resctrl", "mounted, L3 monitoring: %s", sbuf_str(&pm->resctrl_features));
	else
		kv(sb, "resctrl", "unavailable (%s)", sbuf_str(&pm->resctrl_reason));
	if (pm->cgroup_v2)
		kv(sb, "cgroup v2", "%s%s", sbuf_str(&pm->cgroup_root), pm->cgroup_v1 ? " (v1 controllers also mounted)" : "");
	else
		kv(sb, "cgroup v2", "unavailable (%s)", sbuf_str(&pm->cgroup_reason));
}

static void text_coverage(const struct coverage *cv, struct sbuf *sb)
{
	int f, i;

	sbuf_addf(sb, "\nFactor coverage: %s\n", sbuf_str(&cv->summary));
	sbuf_addf(sb, "  %s\n", sbuf_str(&cv->verdict));
	if (cv->model.len)
		sbuf_addf(sb, "  model %s chosen by: %s\n", sbuf_str(&cv->model),
			  sbuf_str(&cv->model_why));
	else
		sbuf_addf(sb, "  no model: %s\n", sbuf_str(&cv->model_why));
	if (cv->table_from.len)
		sbuf_addf(sb, "  core events checked with: %s\n", sbuf_str(&cv->table_from));
	sbuf_addf(sb, "  costs: %s: %s\n", cov_anchor_name(cv->anchor), sbuf_str(&cv->cost_note));
	for (i = 0; i < cv->n_terms; i++) {
		const struct cov_term *t = &cv->terms[i];

		sbuf_addf(sb, "    cost %-14s = %s: %s\n", sbuf_str(&t->term), sbuf_str(&t->formula),
			  t->present ? "here" : sbuf_str(&t->reason));
	}
	for (f = 0; f < FACTOR_N; f++) {
		const struct cov_row *r = &cv->rows[f];

		sbuf_addf(sb, "  %-9s %-12s %s", factor_name(r->factor),
			  vp_quality_name(r->quality), sbuf_str(&r->source));
		if (r->kind != COV_SRC_NONE)
			sbuf_addf(sb, " (%s)", cov_kind_name(r->kind));
		if (r->quality != r->label)
			sbuf_addf(sb, "; the model says %s", vp_quality_name(r->label));
		sbuf_addch(sb, '\n');
		if (r->score.len)
			sbuf_addf(sb, "  %-22s score: %s\n", "", sbuf_str(&r->score));
		for (i = 0; i < r->n_inputs; i++) {
			const struct cov_input *ci = &r->inputs[i];

			sbuf_addf(sb, "  %-22s %s %s = %s", "", ci->present ? "reads " : "absent",
				  sbuf_str(&ci->name), sbuf_str(&ci->spec));
			if (ci->desc.len)
				sbuf_addf(sb, " \"%s\"", sbuf_str(&ci->desc));
			sbuf_addf(sb, "%s: ", ci->optional ? " (optional)" : "");
			if (!ci->present)
				sbuf_addstr(sb, sbuf_str(&ci->reason));
			else if (ci->source)
				sbuf_addstr(sb, "software source");
			else
				sbuf_addf(sb, "%s%s", ci->pmu[0] ? ci->pmu : "perf event",
					  ci->per_node ? ", per node" : "");
			sbuf_addch(sb, '\n');
		}
		if (r->note.len)
			sbuf_addf(sb, "  %-22s %s: %s\n", "",
				  r->quality == VQ_UNAVAILABLE ? "why" : "note", sbuf_str(&r->note));
		if (r->remains.len)
			sbuf_addf(sb, "  %-22s instead: %s\n", "", sbuf_str(&r->remains));
	}
}

/* One line a newcomer reads first: what this machine is, in plain words. */
static void add_summary(const struct platform *p, struct sbuf *sb)
{
	const struct hypervisor *h = &p->hv;
	bool vm = h->kind != HV_NONE && h->kind != HV_UNKNOWN && !h->xen_dom0;

	sbuf_addf(sb, "  %s", plat_role_name(h->role));
	if (h->role == ROLE_HOST && h->xen_dom0)
		sbuf_addstr(sb, " (Xen dom0)");
	else if (h->role == ROLE_HOST)
		sbuf_addf(sb, " of %d QEMU guest%s", h->n_qemu, h->n_qemu == 1 ? "" : "s");
	if (vm && h->kind == HV_OTHER)
		sbuf_addf(sb, ", %s an unidentified hypervisor", h->role == ROLE_HOST ? "itself under" : "under");
	else if (vm)
		sbuf_addf(sb, ", %s %s", h->role == ROLE_HOST ? "itself a guest of" : "under",
			  hv_kind_name(h->kind));
	if (p->cpu.model_name.len)
		sbuf_addf(sb, "; %s", sbuf_str(&p->cpu.model_name));
	if (p->topo.known)
		sbuf_addf(sb, "; %d CPU%s, %d NUMA node%s", p->topo.n_cpus, p->topo.n_cpus == 1 ? "" : "s",
			  p->topo.n_nodes, p->topo.n_nodes == 1 ? "" : "s");
	if (p->pmus_known)
		sbuf_addf(sb, "; %s", p->core_pmu ? "hardware PMU available" : "no hardware PMU");
	sbuf_addch(sb, '\n');
}

void info_text(const struct platform *p, const struct coverage *cv, const char *where,
	       struct sbuf *sb)
{
	sbuf_addf(sb, "vmmprof info: %s\n", where);
	add_summary(p, sb);
	sbuf_addch(sb, '\n');
	text_cpu(p, sb);
	text_hv(p, sb);
	text_topo(p, sb);
	text_pmus(p, sb);
	text_perm(p, sb);
	text_coverage(cv, sb);
}

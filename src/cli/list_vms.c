/* list_vms.c - `vmmprof list vms`: every VM the adapters find, with vCPU placement and memory per node */
#include "analysis/vms_view.h"
#include "cli/list.h"
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/table.h"

static void mib(struct sbuf *sb, uint64_t bytes)
{
	sbuf_addf(sb, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
}

static void affinity_str(struct sbuf *sb, const struct cpulist *cl, bool all)
{
	if (all)
		sbuf_addstr(sb, "all");
	else if (cl->n)
		cpulist_format(cl, sb);
	else
		sbuf_addstr(sb, "-");
}

static void qval_text(struct sbuf *sb, struct qval q)
{
	if (isnan(q.v))
		sbuf_addf(sb, "n/a (%s)", q.why ? q.why : "unavailable");
	else
		sbuf_addf(sb, "%.1f%% (%s)", 100.0 * q.v, vp_quality_name(q.q));
}

static void text_vm(const struct vms_view *v, const struct hv_vm *vm, struct sbuf *out)
{
	static const char *const titles[] = { ">vcpu", ">tid", ">cpu", ">node", "affinity", "state",
					      ">cpu_s", "remote(est)", "cgroup" };
	struct table t;
	int e = vms_vm_entity(v, vm), n;
	size_t i;

	sbuf_addf(out, "%s%s\n", vm->name, vm->dom0 ? " (dom0)" : "");
	sbuf_addf(out, "  hypervisor  %s%s%s", hv_adapter_name(vm->adapter),
		  vm->accel ? ", type " : "", vm->accel ? vm->accel : "");
	if (vm->pid > 0)
		sbuf_addf(out, ", pid %d", vm->pid);
	if (vm->domid >= 0)
		sbuf_addf(out, ", domid %d", vm->domid);
	sbuf_addf(out, " (name from %s)\n", vm->name_source ? vm->name_source : "?");
	if (vm->uuid)
		sbuf_addf(out, "  uuid        %s\n", vm->uuid);
	if (vm->cgroup)
		sbuf_addf(out, "  cgroup      %s (v%d)\n", vm->cgroup, vm->cgroup_version);
	sbuf_addstr(out, "  memory      size ");
	if (vm->mem_size)
		mib(out, vm->mem_size);
	else
		sbuf_addstr(out, "n/a");
	if (vm->n_mem_nodes) {
		for (n = 0; n < vm->n_mem_nodes; n++) {
			sbuf_addf(out, "%s node %d ", n ? "," : "; per node:", n);
			mib(out, vm->mem_node[n]);
		}
		sbuf_addf(out, " (%s)\n", vm->mem_reason);
	} else {
		sbuf_addf(out, "; per node n/a (%s)\n", vm->mem_reason[0] ? vm->mem_reason : "unknown");
	}
	if (vm->node_affinity.n) {
		sbuf_addstr(out, "  node affinity ");
		cpulist_format(&vm->node_affinity, out);
		sbuf_addch(out, '\n');
	}
	if (e >= 0) {
		sbuf_addstr(out, "  remote      ");
		qval_text(out, v->attrib.ents[e].remote_frac);
		sbuf_addch(out, '\n');
	}
	sbuf_addf(out, "  vcpus       %zu (%s)\n", vm->n_vcpus, vm->vcpu_reason);
	if (!vm->n_vcpus)
		return;
	table_init(&t, VP_ARRAY_SIZE(titles), titles);
	for (i = 0; i < vm->n_vcpus; i++) {
		const struct hv_vcpu *c = &vm->vcpus[i];
		int ve = vms_vcpu_entity(v, vm, c);
		struct sbuf s = SBUF_INIT;

		table_row(&t);
		table_cell(&t, "%d", c->index);
		table_cell(&t, c->tid > 0 ? "%d" : "-", c->tid);
		table_cell(&t, c->cpu >= 0 ? "%d" : "-", c->cpu);
		table_cell(&t, c->node >= 0 ? "%d" : "-", c->node);
		affinity_str(&s, &c->affinity, c->affinity_all);
		if (c->soft_affinity.n || c->soft_all) {
			sbuf_addstr(&s, " / ");
			affinity_str(&s, &c->soft_affinity, c->soft_all);
		}
		table_cell(&t, "%s", sbuf_str(&s));
		table_cell(&t, "%s", c->state[0] ? c->state : "-");
		if (isnan(c->cpu_time_s))
			table_cell(&t, "n/a");
		else
			table_cell(&t, "%.2f", c->cpu_time_s);
		sbuf_reset(&s);
		if (ve >= 0 && !isnan(v->attrib.ents[ve].remote_frac.v))
			sbuf_addf(&s, "%.1f%%", 100.0 * v->attrib.ents[ve].remote_frac.v);
		else
			sbuf_addstr(&s, "n/a");
		table_cell(&t, "%s", sbuf_str(&s));
		table_cell(&t, "%s", c->cgroup ? c->cgroup : "-");
		sbuf_release(&s);
	}
	table_render(&t, out, 2, true);
	table_release(&t);
}

static void vms_render_text(const struct vms_view *v, const struct list_opts *o, struct sbuf *out)
{
	size_t i, shown = 0;

	for (i = 0; i < v->vms.n; i++) {
		if (!list_match(o, v->vms.vms[i].name))
			continue;
		if (shown++)
			sbuf_addch(out, '\n');
		text_vm(v, &v->vms.vms[i], out);
	}
	if (!shown)
		sbuf_addf(out, "no VMs found%s%s%s\n", o->pattern ? " matching '" : "",
			  o->pattern ? o->pattern : "", o->pattern ? "'" : "");
	if (v->vms.notes[0])
		sbuf_addf(out, "note: %s\n", v->vms.notes);
	sbuf_addstr(out, "remote(est): expected remote-memory fraction from placement alone "
			 "(run time per node x memory on other nodes); an estimate, not a count\n");
}

static bool keep_vm(const void *ctx, const char *name)
{
	return list_match(ctx, name);
}

int list_vms(const struct list_opts *o, struct sbuf *out)
{
	struct vms_view v;
	struct vp_err err = { 0, "" };
	struct hv_xen_numa xn = { 0, 0 };
	int rc = 0;

	if (vms_scan_xen(&v, o->root, o->xen_numa_dump ? &xn : NULL, &err))
		rc = cli_error(&err);
	else if (o->json)
		vms_json(&v, keep_vm, o, out);
	else
		vms_render_text(&v, o, out);
	vms_release(&v);
	return rc;
}

/* list_vms.c - `vmmprof list vms`: every VM the adapters find, with vCPU placement and memory per node */
#include "cli/vms.h"
#include "cli/list.h"
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/table.h"
#include "util/timeutil.h"

int vms_scan(struct vms_view *v, const char *root, struct vp_err *err)
{
	struct hv_ctx ctx;
	int ret;

	memset(v, 0, sizeof(*v));
	ret = platform_probe(&v->plat, root, err);
	if (ret)
		return ret;
	v->have_plat = true;
	ctx.root = root;
	ctx.plat = &v->plat;
	ctx.exec = NULL;
	ret = hv_scan_vms(&ctx, &v->vms, err);
	if (ret)
		return ret;
	attrib_init(&v->attrib, &v->plat.topo);
	v->have_attrib = true;
	attrib_update(&v->attrib, &v->vms, vp_now_ns());
	return 0;
}

void vms_release(struct vms_view *v)
{
	hv_vm_list_release(&v->vms);
	if (v->have_attrib)
		attrib_release(&v->attrib);
	if (v->have_plat)
		platform_release(&v->plat);
	memset(v, 0, sizeof(*v));
}

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

static int vcpu_entity(const struct vms_view *v, const struct hv_vm *vm, const struct hv_vcpu *c)
{
	char *k = attrib_vcpu_key(vm, c);
	int e = attrib_find(&v->attrib, k);

	free(k);
	return e;
}

static int vm_entity(const struct vms_view *v, const struct hv_vm *vm)
{
	char *k = attrib_vm_key(vm);
	int e = attrib_find(&v->attrib, k);

	free(k);
	return e;
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
	int e = vm_entity(v, vm), n;
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
		int ve = vcpu_entity(v, vm, c);
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

void vms_render_text(const struct vms_view *v, const struct list_opts *o, struct sbuf *out)
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

void vms_json_qval(struct jw *w, const char *key, struct qval q)
{
	jw_key(w, key);
	jw_obj_begin(w);
	jw_kdouble(w, "value", q.v);
	jw_kstr(w, "quality", vp_quality_name(q.q));
	jw_kstr(w, "why", q.why);
	jw_obj_end(w);
}

static void json_list(struct jw *w, const char *key, const struct cpulist *cl, bool all)
{
	struct sbuf s = SBUF_INIT;

	if (all)
		sbuf_addstr(&s, "all");
	else
		cpulist_format(cl, &s);
	jw_kstr(w, key, cl->n || all ? sbuf_str(&s) : NULL);
	sbuf_release(&s);
}

static void json_vm(const struct vms_view *v, const struct hv_vm *vm, struct jw *w)
{
	int e = vm_entity(v, vm), n;
	size_t i;

	jw_obj_begin(w);
	jw_kstr(w, "name", vm->name);
	jw_kstr(w, "name_source", vm->name_source);
	jw_kstr(w, "hypervisor", hv_adapter_name(vm->adapter));
	jw_kstr(w, "accel", vm->accel);
	jw_key(w, "pid");
	if (vm->pid > 0)
		jw_int(w, vm->pid);
	else
		jw_null(w);
	jw_key(w, "domid");
	if (vm->domid >= 0)
		jw_int(w, vm->domid);
	else
		jw_null(w);
	jw_kbool(w, "dom0", vm->dom0);
	jw_kstr(w, "uuid", vm->uuid);
	jw_kstr(w, "cgroup", vm->cgroup);
	jw_kint(w, "cgroup_version", vm->cgroup_version);
	jw_kstr(w, "cgroup_dir", vm->cgroup_dir);
	jw_key(w, "mem_size_bytes");
	if (vm->mem_size)
		jw_uint(w, vm->mem_size);
	else
		jw_null(w);
	jw_key(w, "mem_node_bytes");
	if (vm->n_mem_nodes) {
		jw_obj_begin(w);
		for (n = 0; n < vm->n_mem_nodes; n++) {
			char k[16];

			snprintf(k, sizeof(k), "%d", n);
			jw_kuint(w, k, vm->mem_node[n]);
		}
		jw_obj_end(w);
	} else {
		jw_null(w);
	}
	jw_kstr(w, "mem_reason", vm->mem_reason);
	json_list(w, "node_affinity", &vm->node_affinity, false);
	if (e >= 0)
		vms_json_qval(w, "remote_fraction", v->attrib.ents[e].remote_frac);
	jw_kstr(w, "vcpu_reason", vm->vcpu_reason);
	jw_key(w, "vcpus");
	jw_arr_begin(w);
	for (i = 0; i < vm->n_vcpus; i++) {
		const struct hv_vcpu *c = &vm->vcpus[i];
		int ve = vcpu_entity(v, vm, c);

		jw_obj_begin(w);
		jw_kint(w, "index", c->index);
		jw_key(w, "tid");
		if (c->tid > 0)
			jw_int(w, c->tid);
		else
			jw_null(w);
		jw_kstr(w, "comm", c->comm);
		jw_key(w, "cpu");
		if (c->cpu >= 0)
			jw_int(w, c->cpu);
		else
			jw_null(w);
		jw_key(w, "node");
		if (c->node >= 0)
			jw_int(w, c->node);
		else
			jw_null(w);
		json_list(w, "affinity", &c->affinity, c->affinity_all);
		json_list(w, "soft_affinity", &c->soft_affinity, c->soft_all);
		jw_kstr(w, "state", c->state[0] ? c->state : NULL);
		jw_kdouble(w, "cpu_time_s", c->cpu_time_s);
		jw_kstr(w, "cgroup", c->cgroup);
		if (ve >= 0)
			vms_json_qval(w, "remote_fraction", v->attrib.ents[ve].remote_frac);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_key(w, "other_tids");
	jw_arr_begin(w);
	for (i = 0; i < vm->n_other; i++)
		jw_int(w, vm->other_tids[i]);
	jw_arr_end(w);
	jw_obj_end(w);
}

void vms_render_json(const struct vms_view *v, const struct list_opts *o, struct sbuf *out)
{
	struct jw w;
	size_t i;

	jw_init(&w, out, true);
	jw_obj_begin(&w);
	jw_key(&w, "vms");
	jw_arr_begin(&w);
	for (i = 0; i < v->vms.n; i++)
		if (list_match(o, v->vms.vms[i].name))
			json_vm(v, &v->vms.vms[i], &w);
	jw_arr_end(&w);
	jw_kstr(&w, "notes", v->vms.notes[0] ? v->vms.notes : NULL);
	jw_obj_end(&w);
	sbuf_addch(out, '\n');
}

int list_vms(const struct list_opts *o, struct sbuf *out)
{
	struct vms_view v;
	struct vp_err err = { 0, "" };
	int rc = 0;

	if (vms_scan(&v, o->root, &err))
		rc = cli_error(&err);
	else if (o->json)
		vms_render_json(&v, o, out);
	else
		vms_render_text(&v, o, out);
	vms_release(&v);
	return rc;
}

/* vms_view.c - one scan of the host's VMs (platform, adapters, attribution) and its JSON, shared by `list vms` and the daemon */
#include "analysis/vms_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/sched_numa.h"
#include "util/alloc.h"
#include "util/table.h"
#include "util/timeutil.h"

/* Each vCPU thread's NUMA hinting faults as shares per node, or why there are none. */
static void read_faults(struct hv_vm_list *l, const char *root)
{
	size_t i, j;
	int k;

	for (i = 0; i < l->n; i++) {
		const struct hv_vm *vm = &l->vms[i];

		for (j = 0; j < vm->n_vcpus; j++) {
			struct hv_vcpu *c = &vm->vcpus[j];
			struct vp_err e = { 0, "" };
			struct sched_numa s;

			if (c->tid <= 0 || vm->pid <= 0) {
				c->fault_why = xstrdup(vm->adapter == HVA_XEN
					? "a Xen vCPU has no host thread with NUMA balancing stats"
					: "no host thread known for the vCPU");
				continue;
			}
			if (sched_numa_read(root, vm->pid, c->tid, &s, &e)) {
				c->fault_why = xstrdup(e.msg);
			} else {
				c->fault_share = xcalloc((size_t)s.n_nodes, sizeof(*c->fault_share));
				c->n_fault_nodes = s.n_nodes;
				for (k = 0; k < s.n_nodes; k++)
					c->fault_share[k] = s.faults[k] / s.total;
				c->fault_pref_node = s.preferred_nid;
			}
			sched_numa_release(&s);
		}
	}
}

double vms_fault_remote(const struct hv_vcpu *c, const char **why)
{
	double r = 0;
	int k;

	*why = NULL;
	if (!c->fault_share) {
		*why = c->fault_why ? c->fault_why : "hinting faults not read";
		return NAN;
	}
	if (c->node < 0 || c->node >= c->n_fault_nodes) {
		*why = c->node < 0 ? "the node the vCPU runs on is unknown"
				   : "no numa_faults line for the node the vCPU runs on";
		return NAN;
	}
	for (k = 0; k < c->n_fault_nodes; k++)
		if (k != c->node)
			r += c->fault_share[k];
	return r;
}

int vms_scan(struct vms_view *v, const char *root, struct vp_err *err)
{
	return vms_scan_xen(v, root, NULL, err);
}

int vms_scan_xen(struct vms_view *v, const char *root, struct hv_xen_numa *xen_numa,
		 struct vp_err *err)
{
	return vms_scan_traced(v, root, xen_numa, NULL, false, err);
}

int vms_scan_traced(struct vms_view *v, const char *root, struct hv_xen_numa *xen_numa,
		    const struct hv_xen_trace *xen_trace, bool xen_psr, struct vp_err *err)
{
	struct hv_ctx ctx = { NULL };
	int ret;

	memset(v, 0, sizeof(*v));
	ret = platform_probe(&v->plat, root, err);
	if (ret)
		return ret;
	v->have_plat = true;
	ctx.root = root;
	ctx.plat = &v->plat;
	ctx.exec = NULL;
	ctx.xen_numa = xen_numa;
	ctx.xen_trace = xen_trace;
	ctx.xen_psr = xen_psr;
	ctx.xen_tracer = NULL;
	ret = hv_scan_vms(&ctx, &v->vms, err);
	if (ret)
		return ret;
	read_faults(&v->vms, root);
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

int vms_vcpu_entity(const struct vms_view *v, const struct hv_vm *vm, const struct hv_vcpu *c)
{
	char *k = attrib_vcpu_key(vm, c);
	int e = attrib_find(&v->attrib, k);

	free(k);
	return e;
}

int vms_vm_entity(const struct vms_view *v, const struct hv_vm *vm)
{
	char *k = attrib_vm_key(vm);
	int e = attrib_find(&v->attrib, k);

	free(k);
	return e;
}

static void mib(struct sbuf *sb, uint64_t bytes)
{
	sbuf_addf(sb, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
}

void vms_mem_node_text(const uint64_t *mem_node, int n_nodes, const char *reason,
		       struct sbuf *out)
{
	int n;

	if (!n_nodes || !mem_node) {
		sbuf_addf(out, "n/a (%s)", reason && reason[0] ? reason : "unknown");
		return;
	}
	for (n = 0; n < n_nodes; n++) {
		sbuf_addf(out, "%snode %d ", n ? ", " : "", n);
		mib(out, mem_node[n]);
	}
	if (reason && reason[0])
		sbuf_addf(out, " (%s)", reason);
}

void vms_json_mem_node(struct jw *w, const uint64_t *mem_node, int n_nodes)
{
	int n;

	jw_key(w, "mem_node_bytes");
	if (!n_nodes || !mem_node) {
		jw_null(w);
		return;
	}
	jw_obj_begin(w);
	for (n = 0; n < n_nodes; n++) {
		char k[16];

		snprintf(k, sizeof(k), "%d", n);
		jw_kuint(w, k, mem_node[n]);
	}
	jw_obj_end(w);
}

/* {"0": x, "1": y, ...} with node ids 0..n-1 as keys: a heap array, NULL when absent or null */
static double *node_values_from_json(const struct jv *o, int *n_nodes)
{
	double *v;
	size_t i;

	*n_nodes = 0;
	if (!o || o->type != JV_OBJ || !o->n)
		return NULL;
	v = xcalloc(o->n, sizeof(*v));
	*n_nodes = (int)o->n;
	for (i = 0; i < o->n; i++) {
		long n = strtol(o->keys[i], NULL, 10);

		if (n >= 0 && (size_t)n < o->n && o->items[i].type == JV_NUM)
			v[n] = o->items[i].num;
	}
	return v;
}

uint64_t *vms_mem_node_from_json(const struct jv *mem, int *n_nodes)
{
	double *d = node_values_from_json(mem, n_nodes);
	uint64_t *v;
	int i;

	if (!d)
		return NULL;
	v = xcalloc((size_t)*n_nodes, sizeof(*v));
	for (i = 0; i < *n_nodes; i++)
		v[i] = (uint64_t)d[i];
	free(d);
	return v;
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

static void fault_cells(struct table *t, const struct hv_vcpu *c)
{
	struct sbuf s = SBUF_INIT;
	const char *why;
	double r = vms_fault_remote(c, &why);
	int k;

	if (isnan(r))
		table_cell(t, "n/a");
	else
		table_cell(t, "%.1f%%", 100.0 * r);
	for (k = 0; c->fault_share && k < c->n_fault_nodes; k++)
		sbuf_addf(&s, "%s%d:%.1f%%", k ? " " : "", k, 100.0 * c->fault_share[k]);
	table_cell(t, "%s", c->fault_share ? sbuf_str(&s) : "n/a");
	sbuf_release(&s);
}

/* Under the table: each reason for an n/a remote(faults) once, with its vCPUs. */
static void fault_reasons(const struct hv_vm *vm, struct sbuf *out)
{
	size_t i, j;

	for (i = 0; i < vm->n_vcpus; i++) {
		const char *why, *w2;
		struct cpulist idx;
		bool first = true;

		if (!isnan(vms_fault_remote(&vm->vcpus[i], &why)))
			continue;
		for (j = 0; j < i; j++) /* said already? */
			if (isnan(vms_fault_remote(&vm->vcpus[j], &w2)) && !strcmp(w2, why))
				first = false;
		if (!first)
			continue;
		cpulist_init(&idx);
		for (j = i; j < vm->n_vcpus; j++)
			if (isnan(vms_fault_remote(&vm->vcpus[j], &w2)) && !strcmp(w2, why) &&
			    vm->vcpus[j].index >= 0)
				cpulist_add(&idx, vm->vcpus[j].index);
		sbuf_addstr(out, "  faults n/a vcpu ");
		cpulist_format(&idx, out);
		sbuf_addf(out, ": %s\n", why);
		cpulist_release(&idx);
	}
}

/* "  I/O thread  IOThread 1, tid 1004 (IO iothread1): CPU 3, node 1, affinity 0-3" */
static void text_io(const struct hv_iothread *io, struct sbuf *out)
{
	sbuf_addf(out, "  I/O thread  %s", hv_io_kind_name(io->kind));
	if (io->id >= 0)
		sbuf_addf(out, " %d", io->id);
	sbuf_addf(out, ", tid %d", io->tid);
	if (io->name)
		sbuf_addtextf(out, " (%s)", io->name);
	if (io->cpu >= 0)
		sbuf_addf(out, ": CPU %d, ", io->cpu);
	else
		sbuf_addstr(out, ": CPU n/a, ");
	if (io->node >= 0)
		sbuf_addf(out, "node %d", io->node);
	else
		sbuf_addstr(out, "node n/a");
	sbuf_addstr(out, ", affinity ");
	if (io->affinity.n)
		cpulist_format(&io->affinity, out);
	else
		sbuf_addstr(out, "n/a");
	sbuf_addch(out, '\n');
}

/* "  vNUMA node 0  vCPUs 0-1; memdev m0 512.0 MiB, policy bind, host nodes 0; resident: ..." */
static void text_vnode(const struct hv_vnode *v, struct sbuf *out)
{
	sbuf_addf(out, "  vNUMA node %d  vCPUs ", v->id);
	if (v->vcpus.n)
		cpulist_format(&v->vcpus, out);
	else
		sbuf_addstr(out, "none");
	if (v->memdev) {
		sbuf_addtextf(out, "; memdev %s ", v->memdev);
		if (v->size)
			mib(out, v->size);
		else
			sbuf_addstr(out, "size n/a");
	} else {
		sbuf_addstr(out, "; no memdev");
	}
	sbuf_addtextf(out, ", policy %s, host nodes ", v->policy ? v->policy : "default");
	if (v->host_nodes.n)
		cpulist_format(&v->host_nodes, out);
	else
		sbuf_addstr(out, "any");
	sbuf_addstr(out, "; resident ");
	if (v->mem_node && v->n_mem_nodes > 0)
		vms_mem_node_text(v->mem_node, v->n_mem_nodes, v->mem_why, out);
	else
		sbuf_addtextf(out, "n/a (%s)", v->mem_why ? v->mem_why : "numa_maps not read");
	sbuf_addch(out, '\n');
}

static void text_vm(const struct hv_vm_list *l, size_t k, vms_remote_fn remote, const void *rctx,
		    struct sbuf *out)
{
	static const char *const titles[] = { ">vcpu", ">tid", ">cpu", ">node", "affinity", "state",
					      ">cpu_s", "remote(est)", "remote(faults)",
					      "faults per node", "cgroup" };
	const struct hv_vm *vm = &l->vms[k];
	struct table t;
	struct qval q;
	size_t i;

	sbuf_addtextf(out, "%s%s", vm->name, vm->dom0 ? " (dom0)" : "");
	sbuf_addch(out, '\n');
	sbuf_addf(out, "  hypervisor  %s%s%s", hv_adapter_name(vm->adapter),
		  vm->accel ? ", type " : "", vm->accel ? vm->accel : "");
	if (vm->pid > 0)
		sbuf_addf(out, ", pid %d", vm->pid);
	if (vm->domid >= 0)
		sbuf_addf(out, ", domid %d", vm->domid);
	sbuf_addf(out, " (name from %s)\n", vm->name_source ? vm->name_source : "?");
	if (vm->alias) {
		sbuf_addtextf(out, "  known as    %s (%s)", vm->alias,
			      vm->alias_source ? vm->alias_source : "?");
		sbuf_addch(out, '\n');
	}
	if (vm->uuid) {
		sbuf_addtextf(out, "  uuid        %s", vm->uuid);
		sbuf_addch(out, '\n');
	}
	if (vm->cgroup) {
		sbuf_addtextf(out, "  cgroup      %s (v%d)", vm->cgroup, vm->cgroup_version);
		sbuf_addch(out, '\n');
	}
	sbuf_addstr(out, "  memory      size ");
	if (vm->mem_size)
		mib(out, vm->mem_size);
	else
		sbuf_addstr(out, "n/a");
	sbuf_addstr(out, "; per node");
	sbuf_addstr(out, vm->n_mem_nodes ? ": " : " ");
	vms_mem_node_text(vm->mem_node, vm->n_mem_nodes, vm->mem_reason, out);
	sbuf_addch(out, '\n');
	{
		size_t d;

		for (d = 0; d < vm->n_pci; d++) {
			sbuf_addf(out, "  passthrough %s (%s), ", vm->pci[d].addr, vm->pci[d].kind);
			if (vm->pci[d].node >= 0)
				sbuf_addf(out, "node %d\n", vm->pci[d].node);
			else
				sbuf_addstr(out, "node n/a (its sysfs numa_node does not say)\n");
		}
	}
	for (i = 0; i < vm->n_io; i++)
		text_io(&vm->io[i], out);
	for (i = 0; i < vm->n_vnodes; i++)
		text_vnode(&vm->vnodes[i], out);
	if (vm->node_affinity.n) {
		sbuf_addstr(out, "  node affinity ");
		cpulist_format(&vm->node_affinity, out);
		sbuf_addch(out, '\n');
	}
	if (remote(rctx, k, -1, &q)) {
		sbuf_addstr(out, "  remote      ");
		qval_text(out, q);
		sbuf_addch(out, '\n');
	}
	sbuf_addf(out, "  vcpus       %zu (%s)\n", vm->n_vcpus, vm->vcpu_reason);
	if (!vm->n_vcpus)
		return;
	table_init(&t, VP_ARRAY_SIZE(titles), titles);
	for (i = 0; i < vm->n_vcpus; i++) {
		const struct hv_vcpu *c = &vm->vcpus[i];
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
		if (remote(rctx, k, (long)i, &q) && !isnan(q.v))
			sbuf_addf(&s, "%.1f%%", 100.0 * q.v);
		else
			sbuf_addstr(&s, "n/a");
		table_cell(&t, "%s", sbuf_str(&s));
		fault_cells(&t, c);
		table_cell(&t, "%s", c->cgroup ? c->cgroup : "-");
		sbuf_release(&s);
	}
	table_render(&t, out, 2, true);
	table_release(&t);
	fault_reasons(vm, out);
	if (vm->psr_reason) {
		sbuf_addstr(out, "  PSR         LLC ");
		if (isnan(vm->psr_llc_bytes))
			sbuf_addstr(out, "n/a");
		else
			sbuf_addf(out, "%.1f MiB", vm->psr_llc_bytes / 1048576.0);
		sbuf_addstr(out, ", bandwidth ");
		if (isnan(vm->psr_mbm_bps))
			sbuf_addstr(out, "n/a");
		else
			sbuf_addf(out, "%.1f MB/s", vm->psr_mbm_bps / 1e6);
		if (vm->psr_mbm_bps > 0 && !isnan(vm->psr_mbm_local_bps))
			sbuf_addf(out, ", remote %.0f%%",
				  100.0 * (1.0 - vm->psr_mbm_local_bps / vm->psr_mbm_bps));
		sbuf_addf(out, " (%s)\n", vm->psr_reason);
	}
	if (vm->trace_reason) {
		sbuf_addf(out, "  traced      %s\n", vm->trace_reason);
		for (i = 0; i < vm->n_vcpus; i++) {
			const struct hv_vcpu *c = &vm->vcpus[i];
			int p, shown = 0;

			if (!c->trace_pcpu_s)
				continue;
			sbuf_addf(out, "    vCPU %d:", c->index);
			for (p = 0; p < c->n_trace_pcpus; p++)
				if (c->trace_pcpu_s[p] > 0)
					sbuf_addf(out, "%s pCPU %d %.3f s", shown++ ? "," : "", p,
						  c->trace_pcpu_s[p]);
			sbuf_addstr(out, shown ? "\n" : " did not run\n");
		}
	}
}

void vms_text(const struct hv_vm_list *l, vms_remote_fn remote, const void *rctx,
	      bool (*keep)(const void *ctx, const struct hv_vm *vm), const void *kctx, const char *pattern,
	      struct sbuf *out)
{
	size_t i, shown = 0, from = out->len;

	for (i = 0; i < l->n; i++) {
		if (keep && !keep(kctx, &l->vms[i]))
			continue;
		if (shown++)
			sbuf_addch(out, '\n');
		text_vm(l, i, remote, rctx, out);
	}
	if (!shown) {
		sbuf_addtextf(out, "no VMs found%s%s%s", pattern ? " matching '" : "",
			      pattern ? pattern : "", pattern ? "'" : "");
		sbuf_addch(out, '\n');
	}
	if (l->notes[0]) {
		sbuf_addtextf(out, "note: %s", l->notes);
		sbuf_addch(out, '\n');
	}
	sbuf_addstr(out, "remote(est): expected remote-memory fraction from placement alone "
			 "(run time per node x memory on other nodes); an estimate, not a count\n");
	sbuf_addstr(out, "remote(faults): the vCPU's NUMA hinting faults (kernel NUMA balancing) on "
			 "memory of other nodes than the one it runs on; sampled, decayed shares\n");
	/* names, cgroup paths and reasons from the host: no escape sequence reaches a terminal */
	sbuf_sanitize(out, from, true);
}

bool vms_view_remote(const void *ctx, size_t vm, long vcpu, struct qval *out)
{
	const struct vms_view *v = ctx;
	const struct hv_vm *m = &v->vms.vms[vm];
	int e = vcpu < 0 ? vms_vm_entity(v, m) : vms_vcpu_entity(v, m, &m->vcpus[vcpu]);

	if (e < 0)
		return false;
	*out = v->attrib.ents[e].remote_frac;
	return true;
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

static void json_faults(struct jw *w, const struct hv_vcpu *c)
{
	const char *why;
	double r = vms_fault_remote(c, &why);
	int k;

	jw_key(w, "fault_node_share");
	if (c->fault_share) {
		jw_obj_begin(w);
		for (k = 0; k < c->n_fault_nodes; k++) {
			char key[16];

			snprintf(key, sizeof(key), "%d", k);
			jw_kdouble(w, key, c->fault_share[k]);
		}
		jw_obj_end(w);
	} else {
		jw_null(w);
	}
	jw_kdouble(w, "fault_remote_share", r);
	jw_key(w, "fault_preferred_node");
	if (c->fault_pref_node >= 0)
		jw_int(w, c->fault_pref_node);
	else
		jw_null(w);
	jw_kstr(w, "fault_why", why);
}

/* The VM object's "io_threads" and "vnuma" keys (list vms --json, recordings' rows.vm_topo). */
void vms_json_io_vnuma(struct jw *w, const struct hv_iothread *io_list, size_t n_io,
		       const struct hv_vnode *vn_list, size_t n_vn)
{
	size_t d;

	/* its main loop, IOThreads and vhost workers, where each ran */
	jw_key(w, "io_threads");
	jw_arr_begin(w);
	for (d = 0; d < n_io; d++) {
		const struct hv_iothread *io = &io_list[d];

		jw_obj_begin(w);
		jw_kstr(w, "kind", hv_io_kind_name(io->kind));
		jw_kint(w, "tid", io->tid);
		jw_kint_or_null(w, "iothread_id", io->id);
		jw_kstr(w, "name", io->name);
		jw_kint_or_null(w, "cpu", io->cpu);
		jw_kint_or_null(w, "node", io->node);
		json_list(w, "affinity", &io->affinity, false);
		jw_kdouble(w, "cpu_time_s", io->cpu_time_s);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	/* the guest's virtual NUMA nodes, their backends and where those are */
	jw_key(w, "vnuma");
	jw_arr_begin(w);
	for (d = 0; d < n_vn; d++) {
		const struct hv_vnode *vn = &vn_list[d];

		jw_obj_begin(w);
		jw_kint(w, "id", vn->id);
		json_list(w, "vcpus", &vn->vcpus, false);
		jw_kstr(w, "memdev", vn->memdev);
		jw_kint_or_null(w, "size_bytes", vn->size ? (int64_t)vn->size : -1);
		jw_kstr(w, "policy", vn->policy);
		json_list(w, "host_nodes", &vn->host_nodes, false);
		vms_json_mem_node(w, vn->mem_node, vn->n_mem_nodes);
		jw_kstr(w, "mem_why", vn->mem_why);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

static void json_vm(const struct vms_view *v, const struct hv_vm *vm, struct jw *w)
{
	int e = vms_vm_entity(v, vm);
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
	jw_kstr(w, "alias", vm->alias);
	jw_kstr(w, "alias_source", vm->alias_source);
	jw_kstr(w, "cgroup", vm->cgroup);
	jw_kint(w, "cgroup_version", vm->cgroup_version);
	jw_kstr(w, "cgroup_dir", vm->cgroup_dir);
	jw_key(w, "mem_size_bytes");
	if (vm->mem_size)
		jw_uint(w, vm->mem_size);
	else
		jw_null(w);
	vms_json_mem_node(w, vm->mem_node, vm->n_mem_nodes);
	jw_kstr(w, "mem_reason", vm->mem_reason);
	{
		size_t d;

		/* devices passed through (VFIO), each with its node (null: not said) */
		jw_key(w, "pci");
		jw_arr_begin(w);
		for (d = 0; d < vm->n_pci; d++) {
			jw_obj_begin(w);
			jw_kstr(w, "addr", vm->pci[d].addr);
			jw_kstr(w, "kind", vm->pci[d].kind);
			jw_kint_or_null(w, "node", vm->pci[d].node);
			jw_obj_end(w);
		}
		jw_arr_end(w);
	}
	vms_json_io_vnuma(w, vm->io, vm->n_io, vm->vnodes, vm->n_vnodes);
	json_list(w, "node_affinity", &vm->node_affinity, false);
	if (e >= 0)
		vms_json_qval(w, "remote_fraction", v->attrib.ents[e].remote_frac);
	jw_kstr(w, "vcpu_reason", vm->vcpu_reason);
	if (vm->psr_reason) {
		double share = vm->psr_mbm_bps > 0 ? 1.0 - vm->psr_mbm_local_bps / vm->psr_mbm_bps : NAN;

		jw_key(w, "psr");
		jw_obj_begin(w);
		jw_kdouble(w, "llc_occupancy_bytes", vm->psr_llc_bytes);
		jw_kdouble(w, "mem_bandwidth_bytes_per_s", vm->psr_mbm_bps);
		jw_kdouble(w, "local_bandwidth_bytes_per_s", vm->psr_mbm_local_bps);
		jw_kdouble(w, "remote_share", share);
		jw_kstr(w, "reason", vm->psr_reason);
		jw_obj_end(w);
	}
	if (vm->trace_reason) {
		jw_kstr(w, "trace_reason", vm->trace_reason);
		jw_kdouble(w, "trace_s", vm->trace_s > 0 ? vm->trace_s : NAN);
	}
	jw_key(w, "vcpus");
	jw_arr_begin(w);
	for (i = 0; i < vm->n_vcpus; i++) {
		const struct hv_vcpu *c = &vm->vcpus[i];
		int ve = vms_vcpu_entity(v, vm, c);

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
		json_faults(w, c);
		if (c->trace_pcpu_s) {
			int p;

			jw_key(w, "traced_run_s_per_pcpu");
			jw_obj_begin(w);
			for (p = 0; p < c->n_trace_pcpus; p++) {
				char key[16];

				snprintf(key, sizeof(key), "%d", p);
				jw_kdouble(w, key, c->trace_pcpu_s[p]);
			}
			jw_obj_end(w);
		}
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

void vms_json(const struct vms_view *v, bool (*keep)(const void *ctx, const struct hv_vm *vm),
	      const void *ctx, struct sbuf *out)
{
	struct jw w;
	size_t i;

	jw_init(&w, out, true);
	jw_obj_begin(&w);
	jw_key(&w, "vms");
	jw_arr_begin(&w);
	for (i = 0; i < v->vms.n; i++)
		if (!keep || keep(ctx, &v->vms.vms[i]))
			json_vm(v, &v->vms.vms[i], &w);
	jw_arr_end(&w);
	jw_kstr(&w, "notes", v->vms.notes[0] ? v->vms.notes : NULL);
	jw_obj_end(&w);
	sbuf_addch(out, '\n');
}

/* ---- reading the document back (the remote client's text) ---- */

static char *rd_dup(const struct jv *o, const char *key)
{
	const char *s = jv_str(o, key);

	return s ? xstrdup(s) : NULL;
}

static int rd_int(const struct jv *o, const char *key, int dflt)
{
	double d = jv_num(o, key);

	return isnan(d) ? dflt : (int)d;
}

/* "all", a CPU list, or null (empty) */
static void rd_list(const struct jv *o, const char *key, struct cpulist *cl, bool *all)
{
	const char *s = jv_str(o, key);
	struct vp_err e;

	*all = s && !strcmp(s, "all");
	if (s && !*all && cpulist_parse(cl, s, &e))
		cpulist_release(cl);
}

static void rd_vcpu(const struct jv *o, struct hv_vcpu *c)
{
	const char *state = jv_str(o, "state");

	c->index = rd_int(o, "index", -1);
	c->tid = rd_int(o, "tid", -1);
	c->comm = rd_dup(o, "comm");
	c->cpu = rd_int(o, "cpu", -1);
	c->node = rd_int(o, "node", -1);
	rd_list(o, "affinity", &c->affinity, &c->affinity_all);
	rd_list(o, "soft_affinity", &c->soft_affinity, &c->soft_all);
	snprintf(c->state, sizeof(c->state), "%s", state ? state : "");
	c->cpu_time_s = jv_num(o, "cpu_time_s");
	c->cgroup = rd_dup(o, "cgroup");
	c->fault_share = node_values_from_json(jv_get(o, "fault_node_share"), &c->n_fault_nodes);
	c->fault_pref_node = rd_int(o, "fault_preferred_node", -1);
	if (!c->fault_share)
		c->fault_why = rd_dup(o, "fault_why");
}

static const char *adapter_name_i(int i) { return hv_adapter_name((enum hv_adapter_id)i); }
static const char *io_kind_name_i(int i) { return hv_io_kind_name((enum hv_io_kind)i); }
static const char *quality_name_i(int i) { return vp_quality_name((enum vp_quality)i); }

/* The "io_threads" and "vnuma" keys of object o, appended to the arrays given. */
void vms_io_vnuma_from_json(const struct jv *o, struct hv_iothread **io_out, size_t *n_io,
			    struct hv_vnode **vn_out, size_t *n_vn)
{
	const struct jv *io = jv_arr(o, "io_threads"), *vn = jv_arr(o, "vnuma");
	bool all;
	size_t i;

	for (i = 0; io && i < io->n; i++) {
		const struct jv *d = &io->items[i];
		int k = jv_enum(jv_str(d, "kind"), HV_IO_VHOST + 1, io_kind_name_i);
		struct hv_iothread *t;

		if (k < 0)
			continue;
		*io_out = xrealloc(*io_out, (*n_io + 1) * sizeof(**io_out));
		t = &(*io_out)[(*n_io)++];
		memset(t, 0, sizeof(*t));
		t->kind = (enum hv_io_kind)k;
		t->tid = rd_int(d, "tid", -1);
		t->id = rd_int(d, "iothread_id", -1);
		t->name = rd_dup(d, "name");
		t->cpu = rd_int(d, "cpu", -1);
		t->node = rd_int(d, "node", -1);
		rd_list(d, "affinity", &t->affinity, &all);
		t->cpu_time_s = jv_num(d, "cpu_time_s");
	}
	for (i = 0; vn && i < vn->n; i++) {
		const struct jv *d = &vn->items[i];
		struct hv_vnode *t;
		double sz = jv_num(d, "size_bytes");

		*vn_out = xrealloc(*vn_out, (*n_vn + 1) * sizeof(**vn_out));
		t = &(*vn_out)[(*n_vn)++];
		memset(t, 0, sizeof(*t));
		t->id = rd_int(d, "id", -1);
		rd_list(d, "vcpus", &t->vcpus, &all);
		t->memdev = rd_dup(d, "memdev");
		t->size = isfinite(sz) && sz > 0 && sz < 1.8e19 ? (uint64_t)sz : 0;
		t->policy = rd_dup(d, "policy");
		rd_list(d, "host_nodes", &t->host_nodes, &all);
		t->mem_node = vms_mem_node_from_json(jv_get(d, "mem_node_bytes"),
						     &t->n_mem_nodes);
		t->mem_why = rd_dup(d, "mem_why");
	}
}

static void rd_vm(const struct jv *o, struct hv_vm_list *l)
{
	int a = jv_enum(jv_str(o, "hypervisor"), HVA_NATIVE + 1, adapter_name_i);
	const struct jv *mem = jv_get(o, "mem_node_bytes"), *vcpus = jv_arr(o, "vcpus");
	struct hv_vm *vm;
	double size;
	bool all;
	size_t i;

	vm = hv_vm_list_add(l, a < 0 ? HVA_KVM : (enum hv_adapter_id)a);
	vm->name = xstrdup(jv_str(o, "name") ? jv_str(o, "name") : "?");
	vm->name_source = rd_dup(o, "name_source");
	vm->accel = rd_dup(o, "accel");
	vm->pid = rd_int(o, "pid", -1);
	vm->domid = rd_int(o, "domid", -1);
	vm->dom0 = jv_get(o, "dom0") && jv_get(o, "dom0")->type == JV_BOOL && jv_get(o, "dom0")->b;
	vm->uuid = rd_dup(o, "uuid");
	vm->alias = rd_dup(o, "alias");
	vm->alias_source = rd_dup(o, "alias_source");
	vm->cgroup = rd_dup(o, "cgroup");
	vm->cgroup_version = rd_int(o, "cgroup_version", 0);
	vm->cgroup_dir = rd_dup(o, "cgroup_dir");
	size = jv_num(o, "mem_size_bytes");
	vm->mem_size = isnan(size) || size < 0 ? 0 : (uint64_t)size;
	vm->mem_node = vms_mem_node_from_json(mem, &vm->n_mem_nodes);
	snprintf(vm->mem_reason, sizeof(vm->mem_reason), "%s",
		 jv_str(o, "mem_reason") ? jv_str(o, "mem_reason") : "");
	{
		const struct jv *pci = jv_arr(o, "pci");

		for (i = 0; pci && i < pci->n; i++) {
			const struct jv *d = &pci->items[i];
			double node = jv_num(d, "node");

			if (!jv_str(d, "addr"))
				continue;
			vm->pci = xrealloc(vm->pci, (vm->n_pci + 1) * sizeof(*vm->pci));
			vm->pci[vm->n_pci].addr = xstrdup(jv_str(d, "addr"));
			vm->pci[vm->n_pci].kind = xstrdup(jv_str(d, "kind") ? jv_str(d, "kind") :
							  "PCI device");
			vm->pci[vm->n_pci++].node = isfinite(node) && node >= 0 && node < 4096 ?
						    (int)node : -1;
		}
	}
	vms_io_vnuma_from_json(o, &vm->io, &vm->n_io, &vm->vnodes, &vm->n_vnodes);
	rd_list(o, "node_affinity", &vm->node_affinity, &all);
	snprintf(vm->vcpu_reason, sizeof(vm->vcpu_reason), "%s",
		 jv_str(o, "vcpu_reason") ? jv_str(o, "vcpu_reason") : "");
	for (i = 0; vcpus && i < vcpus->n; i++)
		rd_vcpu(&vcpus->items[i], hv_vm_add_vcpu(vm));
}

int vms_from_json(const struct jv *doc, struct hv_vm_list *l, struct vp_err *err)
{
	const struct jv *vms = jv_arr(doc, "vms");
	const char *notes = jv_str(doc, "notes");
	size_t i;

	memset(l, 0, sizeof(*l));
	if (!vms)
		return vp_err_set(err, VP_EFORMAT, "not a 'list vms --json' document (no \"vms\" array)");
	for (i = 0; i < vms->n; i++)
		rd_vm(&vms->items[i], l);
	snprintf(l->notes, sizeof(l->notes), "%s", notes ? notes : "");
	return 0;
}

bool vms_json_remote(const void *ctx, size_t vm, long vcpu, struct qval *out)
{
	const struct jv *vms = jv_arr(ctx, "vms"), *o, *q;
	int k;

	if (!vms || vm >= vms->n)
		return false;
	o = &vms->items[vm];
	if (vcpu >= 0) {
		const struct jv *vcpus = jv_arr(o, "vcpus");

		if (!vcpus || (size_t)vcpu >= vcpus->n)
			return false;
		o = &vcpus->items[vcpu];
	}
	q = jv_get(o, "remote_fraction");
	if (!q || q->type != JV_OBJ)
		return false;
	out->v = jv_num(q, "value");
	out->why = jv_str(q, "why");
	k = jv_enum(jv_str(q, "quality"), VQ_UNAVAILABLE + 1, quality_name_i);
	out->q = k < 0 ? VQ_UNAVAILABLE : (enum vp_quality)k;
	return true;
}

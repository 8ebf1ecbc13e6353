/* vms_view.c - one scan of the host's VMs (platform, adapters, attribution) and its JSON, shared by `list vms` and the daemon */
#include "analysis/vms_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/timeutil.h"

int vms_scan(struct vms_view *v, const char *root, struct vp_err *err)
{
	return vms_scan_xen(v, root, NULL, err);
}

int vms_scan_xen(struct vms_view *v, const char *root, struct hv_xen_numa *xen_numa,
		 struct vp_err *err)
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
	ctx.xen_numa = xen_numa;
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
	int e = vms_vm_entity(v, vm), n;
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

void vms_json(const struct vms_view *v, bool (*keep)(const void *ctx, const char *name),
	      const void *ctx, struct sbuf *out)
{
	struct jw w;
	size_t i;

	jw_init(&w, out, true);
	jw_obj_begin(&w);
	jw_key(&w, "vms");
	jw_arr_begin(&w);
	for (i = 0; i < v->vms.n; i++)
		if (!keep || keep(ctx, v->vms.vms[i].name))
			json_vm(v, &v->vms.vms[i], &w);
	jw_arr_end(&w);
	jw_kstr(&w, "notes", v->vms.notes[0] ? v->vms.notes : NULL);
	jw_obj_end(&w);
	sbuf_addch(out, '\n');
}

/* hv.c - what the hypervisor adapters share: the VM list, the command runner, thread placement */
#include "hv/hv.h"
#include "source/task.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/run.h"
#include "util/sbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *hv_adapter_name(enum hv_adapter_id a)
{
	switch (a) {
	case HVA_KVM: return "kvm";
	case HVA_XEN: return "xen";
	case HVA_GUEST: return "guest";
	case HVA_NATIVE: return "native";
	}
	return "unknown";
}

static void vcpu_release(struct hv_vcpu *v)
{
	cpulist_release(&v->affinity);
	cpulist_release(&v->soft_affinity);
	free(v->cgroup);
	free(v->comm);
	free(v->fault_share);
	free(v->fault_why);
	free(v->trace_pcpu_s);
}

void hv_vm_list_release(struct hv_vm_list *l)
{
	size_t i, j;

	for (i = 0; i < l->n; i++) {
		struct hv_vm *vm = &l->vms[i];

		for (j = 0; j < vm->n_vcpus; j++)
			vcpu_release(&vm->vcpus[j]);
		free(vm->vcpus);
		free(vm->name);
		free(vm->name_source);
		free(vm->uuid);
		free(vm->alias);
		free(vm->alias_source);
		free(vm->accel);
		free(vm->hypervisor);
		free(vm->cgroup);
		free(vm->cgroup_dir);
		free(vm->other_tids);
		free(vm->mem_node);
		free(vm->trace_reason);
		free(vm->psr_reason);
		cpulist_release(&vm->node_affinity);
	}
	free(l->vms);
	memset(l, 0, sizeof(*l));
}

struct hv_vm *hv_vm_list_add(struct hv_vm_list *l, enum hv_adapter_id a)
{
	struct hv_vm *vm;

	VP_GROW(l->vms, l->cap, l->n + 1);
	vm = &l->vms[l->n++];
	memset(vm, 0, sizeof(*vm));
	vm->adapter = a;
	vm->pid = -1;
	vm->domid = -1;
	vm->vpmu = -1;
	vm->paused = -1;
	vm->psr_llc_bytes = vm->psr_mbm_bps = vm->psr_mbm_local_bps = NAN;
	cpulist_init(&vm->node_affinity);
	return vm;
}

struct hv_vcpu *hv_vm_add_vcpu(struct hv_vm *vm)
{
	struct hv_vcpu *v;

	vm->vcpus = xrealloc(vm->vcpus, (vm->n_vcpus + 1) * sizeof(*vm->vcpus));
	v = &vm->vcpus[vm->n_vcpus++];
	memset(v, 0, sizeof(*v));
	v->index = -1;
	v->tid = -1;
	v->cpu = -1;
	v->node = -1;
	v->cpu_time_s = NAN;
	v->fault_pref_node = -1;
	cpulist_init(&v->affinity);
	cpulist_init(&v->soft_affinity);
	return v;
}

uint64_t hv_vm_mem_total(const struct hv_vm *vm)
{
	uint64_t t = 0;
	int i;

	for (i = 0; i < vm->n_mem_nodes; i++)
		t += vm->mem_node[i];
	return t;
}

const struct hv_vm *hv_vm_list_find(const struct hv_vm_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->vms[i].name && !strcmp(l->vms[i].name, name))
			return &l->vms[i];
	return NULL;
}

int hv_cpu_node(const struct hv_ctx *ctx, int cpu)
{
	return ctx->plat ? topology_cpu_node(&ctx->plat->topo, cpu) : -1;
}

void hv_read_thread(const struct hv_ctx *ctx, int pid, int tid, struct hv_vcpu *v)
{
	struct task_stat st;
	struct task_status status;
	struct task_schedstat ss;

	v->tid = tid;
	if (!task_stat_read(ctx->root, pid, tid, &st, NULL)) {
		free(v->comm);
		v->comm = xstrdup(st.comm);
		v->state[0] = st.state;
		v->state[1] = '\0';
		v->cpu = st.processor;
		v->node = hv_cpu_node(ctx, v->cpu);
		v->cpu_time_s = (double)(st.utime + st.stime) / (double)task_ticks_per_sec();
	}
	if (!task_status_read(ctx->root, pid, tid, &status, NULL)) {
		if (status.have_cpus)
			cpulist_copy(&v->affinity, &status.cpus_allowed);
		task_status_release(&status);
	}
	if (!task_schedstat_read(ctx->root, pid, tid, &ss, NULL)) {
		v->run_ns = ss.run_ns;
		v->have_run_ns = true;
	}
}

int hv_run(const struct hv_ctx *ctx, const char *const *argv, char **out, struct vp_err *err)
{
	*out = NULL;
	if (ctx->exec && ctx->exec->run)
		return ctx->exec->run(ctx->exec->arg, ctx->root, argv, out, err);
	return vp_run(ctx->root, argv, out, err);
}

static bool is_xen_dom0(const struct hv_ctx *ctx)
{
	if (ctx->plat && ctx->plat->hv.xen_dom0)
		return true;
	/* without a platform probe: the captured outputs of a fixture say so */
	return ctx->root && strcmp(ctx->root, "/") &&
	       !vp_exists(ctx->root, "/.vmmprof-fixture/xl");
}

bool hv_vm_is_named(const struct hv_vm *vm, const char *name)
{
	return name && ((vm->name && !strcmp(vm->name, name)) ||
			(vm->alias && !strcmp(vm->alias, name)) ||
			(vm->uuid && !strcasecmp(vm->uuid, name)));
}

int hv_vms_check_names(const struct hv_ctx *ctx, const char *const *names, size_t n,
		       bool need_vcpus, struct vp_err *err)
{
	struct hv_vm_list l;
	struct sbuf there = SBUF_INIT;
	size_t i, j, seen = 0;
	int ret;

	memset(&l, 0, sizeof(l));
	if ((ret = hv_scan_vms(ctx, &l, err)))
		goto out;
	for (i = 0; i < n; i++) {
		for (j = 0; j < l.n; j++)
			if (!l.vms[j].dom0 && hv_vm_is_named(&l.vms[j], names[i]) &&
			    (!need_vcpus || l.vms[j].n_vcpus))
				break;
		if (j < l.n)
			continue;
		for (j = 0; j < l.n; j++)
			if (!l.vms[j].dom0)
				sbuf_addf(&there, "%s%s%s%s%s", seen++ ? ", " : "",
					  l.vms[j].name ? l.vms[j].name : "(unnamed)",
					  l.vms[j].alias ? " (" : "",
					  l.vms[j].alias ? l.vms[j].alias : "",
					  l.vms[j].alias ? ")" : "");
		ret = seen ? vp_err_set(err, -ENOENT, "no VM named '%s' here; VMs here: %s", names[i],
					sbuf_str(&there)) :
		      vp_err_set(err, -ENOENT, "no VM named '%s' here: no VM found", names[i]);
		break;
	}
out:
	sbuf_release(&there);
	hv_vm_list_release(&l);
	return ret;
}

int hv_scan_vms(const struct hv_ctx *ctx, struct hv_vm_list *out, struct vp_err *err)
{
	int ret;

	ret = hv_kvm_scan(ctx, out, err);
	if (ret)
		return ret;
	if (is_xen_dom0(ctx))
		ret = hv_xen_scan(ctx, out, err);
	return ret;
}

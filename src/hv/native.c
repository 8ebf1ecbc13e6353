/* native.c - native adapter: processes and their threads, as numatop shows them */
#include "hv/hv.h"
#include "source/numa_maps.h"
#include "source/task.h"
#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void scan_process(const struct hv_ctx *ctx, int pid, struct hv_vm_list *out)
{
	struct task_stat st;
	struct numa_maps nm;
	struct task_cgroup cg;
	struct hv_vm *vm;
	int *tids = NULL;
	size_t nt = 0, i;
	int node;

	if (task_stat_read(ctx->root, pid, 0, &st, NULL))
		return; /* gone */
	vm = hv_vm_list_add(out, HVA_NATIVE);
	vm->pid = pid;
	vm->start_ticks = st.starttime;
	vm->name = xstrdup(st.comm);
	vm->name_source = xstrdup("comm");
	if (!task_cgroup_read(ctx->root, pid, 0, &cg, NULL)) {
		if (cg.unified) {
			vm->cgroup = xstrdup(cg.unified);
			vm->cgroup_version = 2;
		}
		task_cgroup_release(&cg);
	}
	task_list(ctx->root, pid, &tids, &nt, NULL);
	for (i = 0; i < nt; i++) {
		struct hv_vcpu *v = hv_vm_add_vcpu(vm);

		v->index = (int)i;
		hv_read_thread(ctx, pid, tids[i], v);
	}
	free(tids);
	snprintf(vm->vcpu_reason, sizeof(vm->vcpu_reason), "threads of the process");
	if (!numa_maps_read(ctx->root, pid, &nm, NULL)) {
		vm->n_mem_nodes = nm.n_nodes;
		vm->mem_node = xcalloc(nm.n_nodes ? (size_t)nm.n_nodes : 1, sizeof(uint64_t));
		for (i = 0; i < nm.n; i++)
			for (node = 0; node < nm.maps[i].n_nodes; node++)
				vm->mem_node[node] += numa_map_node_bytes(&nm.maps[i], node);
		snprintf(vm->mem_reason, sizeof(vm->mem_reason), "resident pages (numa_maps)");
		numa_maps_release(&nm);
	} else {
		snprintf(vm->mem_reason, sizeof(vm->mem_reason), "numa_maps not readable");
	}
}

int hv_native_scan(const struct hv_ctx *ctx, const int *pids, size_t n_pids,
		   struct hv_vm_list *out, struct vp_err *err)
{
	int *all = NULL, ret;
	size_t n = 0, i;

	if (n_pids) {
		for (i = 0; i < n_pids; i++)
			scan_process(ctx, pids[i], out);
		return 0;
	}
	ret = proc_list(ctx->root, &all, &n, err);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		scan_process(ctx, all[i], out);
	free(all);
	return 0;
}

/* guest.c - guest adapter: this VM as it sees itself (virtual CPUs, virtual nodes, vPMU) */
#include "hv/hv.h"
#include "source/numastat.h"
#include "util/alloc.h"
#include "util/fs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Who runs us, or NULL when there is no hypervisor or it is not known. */
static const char *hv_label(const struct hypervisor *h)
{
	if (h->kind == HV_NONE || h->kind == HV_UNKNOWN)
		return NULL;
	if (h->kind == HV_OTHER && h->signature[0])
		return h->signature;
	return hv_kind_name(h->kind);
}

int hv_guest_scan(const struct hv_ctx *ctx, struct hv_vm_list *out, struct vp_err *err)
{
	const struct platform *p = ctx->plat;
	struct hv_vm *vm;
	char host[128];
	size_t i;

	if (!p || !p->topo.known)
		return vp_err_set(err, VP_EUNSUPP, "the guest view needs the platform's topology");
	vm = hv_vm_list_add(out, HVA_GUEST);
	if (!vp_read_line(ctx->root, "/proc/sys/kernel/hostname", host, sizeof(host), NULL) &&
	    host[0]) {
		vm->name = xstrdup(host);
		vm->name_source = xstrdup("hostname");
	} else {
		vm->name = xstrdup("self");
		vm->name_source = xstrdup("default");
	}
	if (hv_label(&p->hv))
		vm->hypervisor = xstrdup(hv_label(&p->hv));
	vm->vpmu = p->core_pmu ? 1 : 0;
	for (i = 0; i < p->topo.online.n; i++) {
		struct hv_vcpu *v = hv_vm_add_vcpu(vm);

		v->index = p->topo.online.ids[i];
		v->cpu = v->index;
		v->node = hv_cpu_node(ctx, v->cpu);
	}
	snprintf(vm->vcpu_reason, sizeof(vm->vcpu_reason), "this guest's online CPUs");
	if (p->topo.n_nodes > 0) {
		int max = p->topo.nodes[p->topo.n_nodes - 1].id + 1, k;

		vm->mem_node = xcalloc((size_t)max, sizeof(uint64_t));
		vm->n_mem_nodes = max;
		for (k = 0; k < p->topo.n_nodes; k++) {
			const struct numa_node *nd = &p->topo.nodes[k];

			if (nd->mem_known && nd->mem_total >= nd->mem_free)
				vm->mem_node[nd->id] = nd->mem_total - nd->mem_free;
			vm->mem_size += nd->mem_known ? nd->mem_total : 0;
		}
		snprintf(vm->mem_reason, sizeof(vm->mem_reason),
			 "memory in use per virtual node (node meminfo)");
	}
	return 0;
}

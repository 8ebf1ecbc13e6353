/* topviews.h - top's node and process views: rows composed from a sample's nodes, VMs and vCPUs */
#ifndef VP_TOPVIEWS_H
#define VP_TOPVIEWS_H

#include <stddef.h>

#include "top/topdata.h"
#include "util/sbuf.h"

/*
 * The views of top, for the screen (keys 1-4) and --batch --view.  The
 * node and process views are composed here from one sample's rows (no
 * source is read): a node's factor cells are the highest of the vCPUs that
 * ran on the node in the sample (the one a user would look at first), a
 * process's memory split is its VM's memory on its home node and on the
 * others.
 */
enum top_view { TOP_VIEW_NODE, TOP_VIEW_VM, TOP_VIEW_VCPU, TOP_VIEW_PROCESS, TOP_VIEW_N,
		TOP_VIEW_ALL = -1 };

const char *top_view_name(enum top_view v);     /* "node", "vm", "vcpu", "process" */
/* The view of a name top_view_name() gives (also "nodes", "vms", "vcpus", "processes"); -1 none. */
int top_view_lookup(const char *name);

/*
 * Node row i's factor cells: per factor the cell of the vCPU on that node
 * ranked highest (by its cost share when it has one, else its value); a
 * factor no vCPU there has a value for is n/a with the reason.
 */
void top_node_factors(const struct top_state *s, size_t i, struct top_cell out[TOP_NFACTORS]);

/* A process row: a VM's process (KVM: the QEMU pid; Xen: the domain id). */
struct top_proc {
	const struct top_vm *vm;
	double mem_local;               /* bytes on the home node; NaN unknown */
	double mem_remote;              /* bytes on the other nodes; NaN unknown */
	double remote_frac;             /* mem_remote / (local + remote); NaN unknown */
};
void top_proc_row(const struct top_vm *v, struct top_proc *p);

#endif

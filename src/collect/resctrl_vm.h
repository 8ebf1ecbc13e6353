/* resctrl_vm.h - one resctrl monitoring group per VM: created, given the VM's threads, read each sample, removed */
#ifndef VP_RESCTRL_VM_H
#define VP_RESCTRL_VM_H

#include <stdbool.h>
#include <stddef.h>

#include "hv/hv.h"
#include "platform/platform.h"
#include "source/resctrl.h"
#include "util/err.h"

/*
 * Opt-in (it changes the system): a MON group named
 * vmmprof-ADAPTER-VMPID-OWNERPID is made under the CTRL_MON group that holds
 * the VM's main thread (/proc/PID/cpu_resctrl_groups; the root group when
 * that file is absent), every thread of the VM is written to its tasks file
 * (a libvirt VM: every thread of its cgroup, which also holds the vhost
 * workers; otherwise the QEMU process's threads), threads that appear later
 * are moved at the next sample, and the group is removed when the VM ends,
 * when the last user lets go, and when the set is freed.  Groups of that
 * pattern whose owner process is gone (a run that crashed) are removed when
 * a set is made.  One set per process: the views of a hub share it, each
 * with its own baselines (struct resctrl_meter).
 */

enum resctrl_ev { RCE_LLC_OCCUPANCY, RCE_MBM_TOTAL, RCE_MBM_LOCAL, RCE_N };

struct resctrl_vms;

/*
 * Make the set.  Never fails: when resctrl cannot be used here,
 * resctrl_vms_unavailable() says why and nothing is created.  plat is kept
 * by pointer (its topology maps L3 domains to nodes).  owner is the pid in
 * the group names (getpid() live).  Free with resctrl_vms_free(), which
 * removes every group still held.
 */
struct resctrl_vms *resctrl_vms_new(const char *root, const struct platform *plat, int owner);
void resctrl_vms_free(struct resctrl_vms *s);
/* Why no group can be made here (not supported, not mounted, no L3_MON), NULL when usable. */
const char *resctrl_vms_unavailable(const struct resctrl_vms *s);
/* Why event ev cannot be read here (not in info/L3_MON/mon_features), NULL when it can. */
const char *resctrl_vms_event_missing(const struct resctrl_vms *s, enum resctrl_ev ev);
/*
 * Why vm's group is not measuring it (not made: no RMID, no permission; its
 * threads could not be moved in), or why resctrl cannot be used here; NULL
 * when it measures, or when vm has no group.
 */
const char *resctrl_vms_group_why(const struct resctrl_vms *s, const struct hv_vm *vm);
/* What was cleaned up when the set was made ("" when nothing). */
const char *resctrl_vms_notes(const struct resctrl_vms *s);
/* The node of L3 domain dom (mon_L3_XX = the L3 cache id), -1 unknown or spanning nodes. */
int resctrl_vms_domain_node(const struct resctrl_vms *s, int dom);

/* The group's name for vm (heap), NULL when its vCPUs are no host threads (Xen). */
char *resctrl_vm_group_name(const struct hv_vm *vm, int owner);

/*
 * Turn an errno of mkdir into the reason a user acts on (ENOSPC: every
 * RMID is in use, with num_rmids; EBUSY: freed RMIDs still in limbo; ...).
 * Appends to buf.
 */
void resctrl_mkdir_explain(int errnum, long num_rmids, const char *path, char *buf, size_t size);

/* The values of one VM over an interval. */
struct resctrl_values {
	double llc_occupancy;       /* bytes held now (a gauge), NaN unknown */
	double mbm_total;           /* bytes over the interval, NaN unknown */
	double mbm_local;
	double *node_llc;           /* per node index of the topology, n_nodes each; NaN unknown */
	double *node_total;
	double *node_local;
	int n_nodes;
	int n_unavailable;          /* domains that read "Unavailable" (left out of the sums) */
	char why[512];              /* when the group could not be made or read */
};
void resctrl_values_release(struct resctrl_values *v);
/*
 * Add v's per-node values to acc (3 per node index: LLC bytes, mbm_total,
 * mbm_local; NaN: none yet), for n_nodes nodes: a node's figure over
 * several VMs' groups.  NaN values are skipped.
 */
void resctrl_values_add_nodes(const struct resctrl_values *v, double *acc, int n_nodes);

/*
 * Interval values from three reads of one group: base (the previous
 * sample's values per domain, NaN where not valid yet), now.  MBM bytes are
 * now - base per domain, summed over domains valid in both; a domain whose
 * counter went backwards (reset: it reads Unavailable, then restarts)
 * counts as unavailable.  Occupancy is now's, summed.  node_of maps a
 * domain to a node index (-1: into the sums only).
 */
void resctrl_values_compute(const struct resctrl_group *base, const struct resctrl_group *now,
			    int (*node_of)(const void *ctx, int dom), const void *ctx, int n_nodes,
			    struct resctrl_values *out);

/*
 * One view's use of the set: the VMs it sees, with baselines at the start
 * and at its previous sample.
 */
struct resctrl_meter;

struct resctrl_meter *resctrl_meter_new(struct resctrl_vms *s);
/* Lets go of every VM (their groups are removed when no other meter holds them). */
void resctrl_meter_free(struct resctrl_meter *m);
/*
 * Call with every scan: VMs new to the meter get their group (made if no
 * other meter made it), new threads of known VMs are moved in, and VMs no
 * longer there are let go (their threads are gone: the group is removed).
 */
void resctrl_meter_update(struct resctrl_meter *m, const struct hv_vm *vms, size_t n);
/*
 * vm's values since the meter's previous sample (since it first saw the VM
 * when total); a sample that is not total becomes the next baseline.  The
 * caller releases *out.  Returns 0, or a negative code with out->why.
 */
int resctrl_meter_read(struct resctrl_meter *m, const struct hv_vm *vm, bool total,
		       struct resctrl_values *out);

#endif

/* attrib.h - attribution: the entity tree (host, nodes, CPUs, VMs, vCPUs) over a run, vCPU residency per node, placement estimates */
#ifndef VP_ATTRIB_H
#define VP_ATTRIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hv/hv.h"
#include "platform/platform.h"
#include "util/strmap.h"
#include "util/vocab.h"

/*
 * The tree is rebuilt from each adapter scan: entities are matched by a key
 * that stays the same while a VM or thread lives ("vm:kvm:1234",
 * "vcpu:kvm:1234:0", "vm:xen:3", ...).  An entity missing from a scan ends:
 * alive turns false and ended_ns is set, its last values stay, and it is
 * never matched again (a new process with the same pid gets a new entity).
 *
 * Every value carries a quality label.  Residency per node is exact when a
 * context-switch recorder watches the vCPU's thread (attrib_use_schedtrace():
 * its run time on each CPU, summed per node); otherwise it comes from the
 * sampling fallback: at each update a vCPU's CPU time since the previous
 * update is charged to the node of the CPU it is on now.  A Xen vCPU's is
 * exact when the adapter read Xen's scheduler trace (hv_vcpu.trace_pcpu_s,
 * from hv_ctx.xen_tracer): its run time on each pCPU, summed per node.
 */


/* A value with its label; why is a static string (NULL when measured). */
struct qval {
	double v;
	enum vp_quality q;
	const char *why;
};


enum ent_kind { ENT_HOST, ENT_NODE, ENT_CPU, ENT_VM, ENT_VCPU, ENT_PROCESS, ENT_THREAD };

const char *ent_kind_name(enum ent_kind k);     /* "host", "node", "cpu", "vm", "vcpu", ... */

struct entity {
	enum ent_kind kind;
	char *key;                 /* identity across updates */
	char *name;                /* "web1", "vCPU 0", "node 1", "cpu 3" */
	int id;                    /* node/CPU id, vCPU index, pid, tid */
	int parent;                /* index of the parent entity, -1 for the host */
	bool alive;
	uint64_t born_ns;          /* update that first saw it */
	uint64_t ended_ns;         /* update that found it gone; 0 while alive */

	/* VMs and vCPUs (and processes/threads) */
	enum hv_adapter_id adapter;
	int tid;                   /* vCPU thread, -1 none */
	int cpu, node;             /* placement at the last update, -1 unknown */
	double cpu_time_s;         /* cumulative CPU time at the last update, NaN unknown */
	double run_s;              /* run time charged since this entity was first seen */
	double interval_run_s;     /* run time in the last interval, NaN on the first update */
	double *node_run_s;        /* n_nodes: cumulative run time charged to each node */
	bool residency_exact;      /* node_run_s from context-switch records (or Xen's
				      scheduler trace), not sampling */
	double *xt_base;           /* Xen vCPU: the trace's run time per pCPU at the first update */
	int n_xt_base;
	double *interval_node_run_s; /* n_nodes: the same for the last interval */
	uint64_t *mem_node;        /* VM: resident memory per node (n_nodes), NULL unknown */
	struct qval remote_frac;   /* expected remote-access fraction (placement estimate) */
};

struct schedtrace;

/* A thread this tree watches, and the tracer's times it had then (another
 * holder's watch counts from earlier): residency counts from the difference. */
struct attrib_watch {
	int tid;
	uint64_t *base;            /* per CPU (the tracer's numbering), NULL: all zero */
	size_t n_base;
};

struct attrib {
	int n_nodes;               /* node ids 0..n_nodes-1 */
	struct schedtrace *exact;  /* context-switch recorder (the caller's), NULL: sampling only */
	struct attrib_watch *watched; /* threads this tree watches on it, one watch each */
	size_t n_watched, cap_watched;
	const struct topology *topo;    /* CPU -> node for the tracer's per-CPU times */
	const struct topology *node_topo; /* attrib_init()'s: pCPU -> node for Xen's trace */
	struct entity *ents;
	size_t n, cap;
	struct strmap by_key;      /* key -> index of the newest entity with it (attrib_find()) */
	struct strmap by_tid;      /* "tid" -> index into watched */
	uint64_t t_ns, prev_ns;    /* last update, the one before (0 before the second) */
	unsigned long updates;
};

/*
 * Start a tree with the host, its nodes and CPUs from topo (may be NULL or
 * unknown: one node 0, no CPUs).  Storage owned by the caller; release with
 * attrib_release().
 */
void attrib_init(struct attrib *a, const struct topology *topo);
void attrib_release(struct attrib *a);

/*
 * Take residency from a tracer (src/source/schedtrace.h): at each update
 * the vCPU threads of the scan are watched (from then on), those gone are
 * unwatched, and the tracer is read up to the update's time, before the run
 * time is charged.  Each entity's residency counts from its first read, so
 * several trees (views) can share one tracer.  topo maps CPUs to nodes;
 * both stay the caller's and must outlive a (attrib_release() unwatches).
 * st NULL: back to sampling.
 */
void attrib_use_schedtrace(struct attrib *a, struct schedtrace *st, const struct topology *topo);

/*
 * Watch the vCPU threads of a scan on the tracer from now_ns, without
 * charging anything (attrib_update() does it too): a tracer attached after
 * the first scan starts counting now, not at the next update.
 */
void attrib_watch(struct attrib *a, const struct hv_vm_list *vms, uint64_t now_ns);
/* Fold one adapter scan taken at now_ns (vp_now_ns()) into the tree. */
void attrib_update(struct attrib *a, const struct hv_vm_list *vms, uint64_t now_ns);

/* Index of the live entity with this key, or -1. */
int attrib_find(const struct attrib *a, const char *key);
/* Key of a VM or vCPU from an adapter's structs (heap string). */
char *attrib_vm_key(const struct hv_vm *vm);
char *attrib_vcpu_key(const struct hv_vm *vm, const struct hv_vcpu *v);
/* attrib_find() of that key, formatted without an allocation (each vCPU at each sample). */
int attrib_find_vcpu(const struct attrib *a, const struct hv_vm *vm, const struct hv_vcpu *v);

/*
 * Share of entity e's run time on node (cumulative when it has run, else its
 * current placement: 1 on its node).  NaN when neither is known.
 */
double attrib_residency(const struct attrib *a, int e, int node);

/*
 * Share of vm's memory NOT on node: 1 - mem[node] / sum(mem).  NaN when the
 * VM's memory per node is unknown or zero.
 */
double attrib_mem_remote_share(const struct attrib *a, int vm, int node);

/*
 * The expected remote-access fraction of a vCPU (or a VM: run-time
 * weighted over its vCPUs) from placement alone:
 *     sum over nodes n of residency(n) x (1 - VM memory share on n)
 * labelled VQ_ESTIMATE, or VQ_UNAVAILABLE with the reason.
 */
struct qval attrib_remote_estimate(const struct attrib *a, int e);

/*
 * Apportion a per-node value (uncore count, node bandwidth) to VM vm by its
 * share of the node's VM run time in the last interval (cumulative before
 * the second update).  Labelled VQ_APPORTIONED; VQ_UNAVAILABLE when no VM
 * ran on the node.
 */
struct qval attrib_apportion(const struct attrib *a, int vm, int node, double node_value);

/*
 * The live collector's apportioning of per-node counts (uncore events and
 * `node` events of a model) to n_v vCPUs over one interval, by residency
 * (docs/method.md, "Per-socket counts"):
 *     part[n]     = min(1, sum_v run[v][n] / busy[n])
 *     share[v][n] = part[n] * w[v][n] / sum_u w[u][n]
 *     w[v][n]     = run[v][n]                      without activity weights
 *                 = act[v] * run[v][n] / run[v]    with them (act[v] NaN or
 *                   sum_u w[u][n] == 0 on a node: run time is used there)
 * run[v * n_nodes + n] is vCPU v's run time on node n (any unit, NaN
 * unknown), busy[n] the node's busy CPU time over the same interval in the
 * same unit (every task; NULL or NaN: unknown, then part[n] = 1 and the
 * vCPUs share the node's count among themselves), act[v] (NULL: none) a
 * count of the vCPU's own that drives the per-node traffic (its DRAM
 * accesses).  share[v * n_nodes + n] is written; NaN where run is unknown,
 * 0 on a node none of them ran on.  Returns how many nodes some vCPU ran
 * on had no busy time (so the vCPUs there share the node's whole count).
 */
int attrib_node_shares(const double *run, const double *act, const double *busy, size_t n_v,
		       size_t n_nodes, double *share);

/*
 * The same for a count made at the memory's node (an IMC: `home` in a
 * model): vCPU v's traffic goes to the nodes its memory is on,
 * mem[v * n_nodes + n] (bytes or fractions; a row with NaN, or NULL for
 * all: its memory taken to be where it runs), not where it runs:
 *     dist[v][n]  = mem[v][n] / sum_k mem[v][k]
 *     here[n]     = sum_v run[v] * dist[v][n]           (run[v]: v's run time, all nodes)
 *     part[n]     = here[n] / (here[n] + max(0, busy[n] - sum_v run[v][n]))
 *     w[v][n]     = run[v] * dist[v][n], or act[v] * dist[v][n]
 *     share[v][n] = part[n] * w[v][n] / sum_u w[u][n]
 * (the other tasks on node n are taken to use node n's memory).  With
 * mem NULL, dist[v][n] = run[v][n] / run[v] and this is attrib_node_shares()
 * exactly.  share is NaN for a vCPU whose run time on some node is unknown.
 */
int attrib_node_shares_mem(const double *run, const double *act, const double *mem,
			   const double *busy, size_t n_v, size_t n_nodes, double *share);

#endif

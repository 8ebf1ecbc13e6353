/* diagnose.h - the bottleneck evaluation method and placement advice (docs/method.md) */
#ifndef VP_DIAGNOSE_H
#define VP_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "hv/hv.h"
#include "model/model.h"
#include "util/err.h"
#include "util/json.h"
#include "util/sbuf.h"

/*
 * Input: one interval (or a whole run summed) of what the earlier stages
 * computed per vCPU, VM and node: each factor's cost estimate and score from
 * the model, with its quality label and evidence, plus placement (where each
 * vCPU ran, where its VM's memory lives) and the node figures.  Output: the
 * ranked bottlenecks per vCPU, VM and node, and advice as commands for the
 * hypervisor in use.  Nothing here runs a command.
 */

struct diag_factor_in {
	double cost_cycles;          /* the cost stage's stall cycles (src/model/cost.h): what
					removing this factor alone would save; NaN unknown */
	double score;                /* the model's score; NaN when unavailable */
	enum severity sev;           /* from the model's thresholds (SEV_NA when no score) */
	enum vp_quality quality;
	char *evidence;              /* the metric values behind it, heap (the input's owner
					frees it: collect_diag_release()); NULL when none */
};

struct diag_vcpu {
	size_t vm;                   /* index into diag_input.vms */
	int index;                   /* vCPU number (native: thread position) */
	int tid;                     /* host thread id; -1 under Xen */
	int node;                    /* node it ran on most in the interval; -1 unknown */
	double cycles;               /* C: its cycles in the interval (or a proxy); NaN unknown */
	bool cycles_proxy;           /* cycles derived from task-clock, not counted */
	double mem_stall_cycles;     /* the cost stage's memory-bound stall budget (measured, or
					estimated when quality says so); NaN unknown */
	double remainder_cycles;     /* the factors' interaction, which no single one owns; NaN */
	double remote_frac;          /* share of its memory accesses that went to a remote
					node (measured, or the placement estimate); NaN */
	double mem_intensity;        /* how much memory traffic it makes (any unit, compared
					within one run to pick the heaviest); NaN unknown */
	double mem_gbs;              /* its DRAM traffic in GB/s (the model's mem_bw on its row,
					a share of its nodes' IMC counts), for the bandwidth
					headroom of a memory move; NaN or 0 unknown */
	/* CPU contention (schedstat over the interval): NaN unknown */
	double run_ns;               /* time on a CPU */
	double wait_ns;              /* time runnable but waiting for a CPU */
	double wait_window_s;        /* run_ns and wait_ns are a mean over this window spread over
					the interval (schedstat read every few s), when longer
					than the interval; 0 or less: the interval's own */
	int cpu;                     /* the CPU it was last seen on; -1 unknown */
	bool wait_steal;             /* a vCPU of the guest vmmprof runs in: wait_ns is the steal
					time of its CPU (/proc/stat), what the hypervisor ran
					instead while it wanted to run; run_ns what it ran */
	double steal_ns;             /* a thread inside a guest: what the hypervisor took from
					its CPU while it ran there (that CPU's steal time,
					/proc/stat, apportioned by its run time: quality
					apportioned); 0 or NaN none or unknown */
	struct diag_factor_in f[FACTOR_N];
};

/* What libvirt says of a domain (0: unknown, as in a recording or a bare struct). */
enum diag_persist { DP_UNKNOWN = 0, DP_PERSISTENT, DP_TRANSIENT };
enum diag_numa_mode { DN_UNKNOWN = 0, DN_STRICT, DN_RESTRICTIVE }; /* strict: or any mode
					but restrictive, which alone lets a running domain's nodeset change */

#define DIAG_MAX_IOTHREADS 16

struct diag_vm {
	const char *name;
	enum hv_adapter_id adapter;
	bool libvirt;                /* managed by libvirt: advice uses virsh */
	int pid;                     /* QEMU or process pid; -1 under Xen */
	int domid;                   /* Xen domain id; -1 elsewhere */
	const double *mem_frac;      /* share of its memory on each node (by node index); NULL unknown */
	bool scored;                 /* score/sev below hold the model evaluated for the VM */
	double score[FACTOR_N];      /* NaN when the model has none */
	enum severity sev[FACTOR_N];
	/* shown with the diagnosis; mem_frac is what the rules weigh */
	const uint64_t *mem_node;    /* the bytes behind it, per node id (the frame's; not owned) */
	int n_mem_nodes;             /* 0: unknown */
	const char *mem_reason;      /* where they come from, or why unknown; NULL not known */
	enum diag_persist persist;   /* libvirt: --config only for a persistent domain */
	enum diag_numa_mode numa_mode; /* libvirt: numatune --live only in restrictive mode */
	int iothread_ids[DIAG_MAX_IOTHREADS]; /* libvirt: its IOThreads, pinned with its vCPUs */
	int n_iothreads;             /* 0 none or unknown */
	const struct hv_pcidev *pci; /* devices passed through, with their nodes (not owned) */
	size_t n_pci;
	const struct hv_iothread *io; /* KVM: main loop, IOThreads, vhost workers, where each ran
					 (not owned; live only) */
	size_t n_io;
	const double *io_busy;       /* per io entry: CPUs it kept busy over the run (its CPU
					time from first seen to the end / those seconds), for the
					placement pass; NULL or NaN unknown (not owned) */
	const struct hv_vnode *vnodes; /* KVM: the guest's virtual NUMA nodes (not owned) */
	size_t n_vnodes;
};

struct diag_node {
	int id;                      /* node number as the OS names it */
	const char *cpus;            /* its CPU list ("0-19,40-59"), for commands */
	int n_cpus;
	double bw_gbs;               /* measured DRAM bandwidth; NaN unknown */
	double peak_gbs;             /* calibrated peak; NaN unknown */
	double queue_full_frac;      /* share of uncore cycles with full request queues; NaN */
	enum vp_quality bw_quality;
	double cost_pct[FACTOR_N];   /* each factor's cost over the threads that ran there, % of
					their cycles (frame_node_cost()); NaN unknown */
	int cost_left_out[FACTOR_N]; /* threads that ran there without that cost: not in cost_pct */
	double cost_left_out_share[FACTOR_N]; /* their share of the node's cycles, 0..1; NaN */
	/* --resctrl: the VMs' monitoring groups on the node's L3 domain (shown, not weighed) */
	bool rdt;                    /* resctrl was asked for */
	double rdt_llc_bytes;        /* LLC occupancy at the end; NaN unknown */
	double rdt_mbm_gbs;          /* memory traffic through the node's L3, GB/s; NaN unknown */
	double rdt_mbm_local_gbs;    /* of it, to the local node */
	const char *rdt_why;         /* why they are NaN; NULL or "" when known */
	double mem_free_bytes;       /* free memory on the node (its meminfo MemFree); NaN unknown */
};

/*
 * One logical CPU of the host, for placing vCPUs (the whole host, not only
 * the vCPUs in view).  Unknown fields are -1 / NaN; without any (a bare
 * struct, a recording) the CPU rules fall back on the node's CPU list.
 */
struct diag_cpu {
	int id;                      /* CPU number as the OS names it */
	int node;                    /* index into diag_input.nodes; -1 unknown */
	int core;                    /* SMT siblings share it (package and core id); -1 unknown */
	int llc;                     /* last-level cache domain (topology order); -1 unknown */
	bool isolated;               /* isolcpus=: the scheduler does not balance onto it */
	double busy;                 /* share of the interval it ran anything (/proc/stat),
					the vCPUs in view included; NaN unknown */
	double queued;               /* what its run queue waited over the interval, in CPUs
					(/proc/schedstat run_delay / interval); NaN unknown */
};

/* A node with nothing known yet: every figure NaN, quality unavailable. */
void diag_node_init(struct diag_node *n, int id, const char *cpus, int n_cpus);

/* The method's thresholds (docs/method.md says where each comes from). */
struct diag_params {
	double factor_pct;           /* a factor is a bottleneck from this % of cycles (10);
					CPU contention from this % of run + wait time */
	double membound_pct;         /* an entity is memory-bound from this % (20) */
	double lar_min;              /* local access ratio below which locality advice fires (0.80) */
	double bw_knee;              /* node utilisation past which it has no headroom (0.75) */
	double imbalance;            /* sigma/mu of node bandwidth that calls for interleaving (0.35) */
	double queue_full;           /* queue full fraction that means saturation (0.10) */
	bool xen_hard_pin;           /* Xen advice pins hard (xl vcpu-pin DOM V CPUS); soft by default */
};

struct diag_input {
	struct diag_vm *vms;
	size_t n_vms;
	struct diag_vcpu *vcpus;
	size_t n_vcpus;
	struct diag_node *nodes;
	size_t n_nodes;
	double lat_local_loaded_ns;  /* calibration; NaN unknown */
	double lat_remote_idle_ns;
	double migrate_gbs;          /* calibrated page migration rate (cal.migrate_gbs), GB/s; NaN
					or 0: not calibrated (the literature's figure is used,
					labelled an estimate) */
	struct diag_params params;
	/* The host beyond the vCPUs in view (0 / NULL: unknown) */
	struct diag_cpu *cpus;       /* every online CPU, ascending id */
	size_t n_cpus;
	double duration_s;           /* the interval the busy shares and schedstat cover; NaN */
	bool numa_balancing;         /* kernel.numa_balancing is on (false: off or unknown) */
	int numad_pid;               /* a running numad daemon, 0 none (or unknown) */
};

/* The defaults of docs/method.md. */
void diag_params_default(struct diag_params *p);

enum diag_scope { DIAG_VCPU, DIAG_VM, DIAG_NODE };

/*
 * A bottleneck's factor: one of the five NUMA factors, or CPU contention,
 * which is not a memory factor (its cost is run-queue wait in % of the
 * vCPU's run + wait time, comparable to a factor's % of cycles, not the same).
 */
#define DIAG_FACTOR_CPU ((enum factor_id)FACTOR_N)
/* "cpu" for DIAG_FACTOR_CPU, else factor_name(f). */
const char *diag_factor_name(enum factor_id f);
enum diag_confidence { CONF_LOW, CONF_MEDIUM, CONF_HIGH };

struct diag_bottleneck {
	enum diag_scope scope;
	size_t entity;               /* index into vcpus, vms or nodes */
	enum factor_id factor;
	double cost_pct;             /* share of the entity's cycles; NaN when ranked by score */
	double cost_cycles;
	enum severity sev;
	enum vp_quality quality;
	enum diag_confidence confidence;
	char *evidence;              /* heap, freed by diag_result_release() */
	/* cost_pct's 95 % interval over the run's samples (cost_ci_attach(),
	 * src/collect/cost_ci.h); NaN when not known (CPU contention, one sample) */
	double ci_lo, ci_hi;
	bool ci_holds_zero;          /* ci_lo <= 0: not distinguishable from no cost */
};

struct diag_advice {
	const char *rule;            /* "pin-vcpu-to-memory", "migrate-memory", "spread",
					"colocate", "interleave", "cap-per-socket",
					"unstack-vcpus", "cpu-overcommit", "separate-smt",
					"io-locality", "pin-io-threads", "vnuma-fidelity" */
	size_t vm;                   /* index into vms; (size_t)-1 for node-wide advice */
	int vcpu;                    /* vCPU index, -1 when the advice is for the whole VM */
	int to_node;                 /* the node it moves things to; -1 none */
	int to_cpu;                  /* the one CPU it pins a vCPU to (unstack-vcpus,
					separate-smt); -1 none */
	int vnode;                   /* vnuma-fidelity: the guest's virtual node id (its vCPUs
					are the ones it pins); -1 none */
	double gain_pct;             /* at most this share of the target's cycles is recovered */
	/* Texts on the heap, whole whatever their length (diag_result_release()): */
	char *action;                /* one sentence */
	char *evidence;              /* the values that fired the rule */
	char *effect;                /* the expected effect */
	char *command;               /* the exact commands, one per line */
	bool conflict;               /* clashes with a higher-ranked advice */
	char *conflict_note;         /* why, when conflict; NULL otherwise */
	char *restart;               /* whether the change survives a restart of the VM, and why */
	char *needs;                 /* tools beyond the hypervisor's and their Debian packages
					("migratepages (Debian package numactl)"); NULL none */
	char *warning;               /* what on the host would undo it (numa_balancing, numad)
					and how to stop that; NULL none */
};

struct diag_vm_summary {
	double cycles;               /* sum over its vCPUs; NaN when none is known */
	bool cycles_proxy;           /* some of them estimated from task-clock */
	double cost_pct[FACTOR_N];   /* cycle-weighted: sum of costs / sum of cycles of the
					vCPUs that have the cost */
	int cost_left_out[FACTOR_N]; /* vCPUs with cycles but without that cost: not in cost_pct */
	double cost_left_out_share[FACTOR_N]; /* their share of the VM's cycles, 0..1; NaN */
	enum vp_quality quality[FACTOR_N]; /* the weakest label among its vCPUs */
	bool memory_bound;
	bool memory_bound_known;     /* from the stall budget, or some factor's cost */
	double stall_pct;            /* memory-stall budget in % of cycles; NaN unknown */
	double remainder_pct;        /* the factors' interaction, % of cycles; NaN unknown */
};

struct diag_result {
	struct diag_bottleneck *b;   /* ranked: by cost_pct, then severity */
	size_t n_b, cap_b;
	struct diag_advice *a;       /* ranked by gain */
	size_t n_a, cap_a;
	struct diag_vm_summary *vm;  /* n_vms entries */
	double *vcpu_pct;            /* n_vcpus * FACTOR_N: the cost stage's costs in % */
	double *vcpu_wait_pct;       /* n_vcpus: run-queue wait (and steal_ns) in % of run + wait
					(+ steal); NaN unknown */
	bool *vcpu_membound;         /* n_vcpus */
	char **node_notes;           /* n_nodes: bandwidth vs peak, queues ("" when nothing) */
	size_t n_vms, n_vcpus, n_nodes;
	double imbalance;            /* sigma/mu of node bandwidth; NaN unknown */
};

/*
 * Evaluate in and fill *out (caller-owned; release with diag_result_release()).
 * Returns 0, or VP_EINVAL when the input is inconsistent (a vCPU naming a VM
 * that does not exist), with the reason in err.
 */
int diagnose(const struct diag_input *in, struct diag_result *out, struct vp_err *err);
void diag_result_release(struct diag_result *r);
/* Free one advice's texts (diag_result_release() does it for its own). */
void diag_advice_release(struct diag_advice *a);

const char *diag_scope_name(enum diag_scope s);          /* "vcpu", "vm", "node" */
const char *diag_confidence_name(enum diag_confidence c); /* "low", "medium", "high" */

/* The result as JSON (the schema of docs/method.md), for --json and the daemon. */
void diag_result_json(const struct diag_input *in, const struct diag_result *r,
		      struct sbuf *out, bool pretty);
/* The same object written as the next value of an existing writer. */
void diag_result_write(const struct diag_input *in, const struct diag_result *r, struct jw *w);

#endif

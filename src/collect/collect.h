/* collect.h - the live pipeline: a model's events and sources counted per vCPU, evaluated per vCPU and VM */
#ifndef VP_COLLECT_H
#define VP_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/attrib.h"
#include "analysis/diagnose.h"
#include "calib/calib.h"
#include "hv/hv.h"
#include "model/cost.h"
#include "model/model.h"
#include "platform/platform.h"
#include "pmu/counter.h"
#include "pmu/event.h"

/*
 * One collector composes the stages for a live run: the adapters find the
 * VMs (or the processes named), the model's perf events that exist here are
 * opened on every vCPU thread (per-socket ones system-wide, summed per node
 * and apportioned to the vCPUs), and each sample evaluates the model per
 * vCPU, per VM (a VM's events are the sum over its vCPUs) and per node with
 * the software sources and the placement estimate from attribution.  Front ends (stat -m,
 * top, diagnose, record, the daemon) read the same struct collect_frame.
 */

struct resctrl_vms;

struct collect_opts {
	const char *root;               /* "/" live */
	const struct platform *plat;
	const struct model *model;
	const struct calib *cal;        /* NULL: every cal.* value is NaN */
	const int *pids;                /* native mode: these processes instead of VMs */
	size_t n_pids;
	const char *const *vm_names;    /* only these VMs (none: every VM) */
	size_t n_vm_names;
	bool strict;                    /* fail when a process or VM named is not there
					   (otherwise the run has no rows for it) */
	struct hv_xen_numa *xen_numa;   /* opt-in Xen page dumps (hv.h); NULL off */
	struct hv_xen_tracer *xen_tracer; /* a running xentrace (hv.h), the caller's; NULL:
					   Xen residency sampled */
	bool resctrl;                   /* make one resctrl monitoring group per VM, move its
					   threads in, remove it at the end (src/collect/resctrl_vm.h) */
	struct schedtrace *trace;       /* a context-switch recorder to share (top's), NULL:
					   the collector opens one when it needs it */
	struct resctrl_vms *rdt;        /* with resctrl: groups to share (top's own set, so that
					   a VM has one group, not two that take its threads from
					   each other), kept by the caller; NULL: its own */
	struct hv_xen_psr *xen_psr;     /* Xen PSR for the run (hv.h), the caller's: each Xen
					   domain's CMT/MBM serve the model's resctrl.* inputs
					   (per domain; MBM as xl's 10 ms rate at each scan x the
					   interval); NULL off */
	bool xen_imc;                   /* the model's uncore_imc CAS/RPQ events from PCI config
					   space (src/source/imc_pci.h), per node, instead of perf */
	struct imc_pci *imc_set;        /* with xen_imc: the channels the hub programmed for every
					   view (hub.c), NULL none: imc_why says why */
	const char *imc_why;
	struct hv_cache *cache;         /* the VM scans' cache to share (hv.h: top's, so that one
					   scan serves top and its counters), the caller's, freed
					   after the collector; NULL: the hub makes its own */
};

/*
 * Where an entity is in its life in a frame.  A VM or vCPU that has
 * ended is in the frame it ended in once more, with what its counters
 * counted up to its end (its last, partial interval), and not after; a
 * paused one is shown but never rated: it gave its vCPUs no guest time.
 */
enum row_state {
	RS_RUNNING,                     /* (or not known to be paused) */
	RS_PAUSED,                      /* paused or suspended (libvirt, QMP) */
	RS_ENDED,                       /* gone since the previous frame: its last interval */
};
const char *row_state_name(enum row_state s); /* "running", "paused", "ended" */

/*
 * One evaluated entity (a vCPU or thread, or a VM or process).  A frame is
 * self-contained: everything the diagnosis needs is in it, so a recording
 * that stores frames can be diagnosed without the live machine.
 */
struct collect_row {
	int ent;                        /* attribution entity; -1 when read back from a recording */
	enum ent_kind kind;
	size_t vm_row;                  /* vCPU rows: index of its VM's row */
	char *name;                     /* VM or process name (VM rows), heap; NULL on vCPU rows */
	char *key;                      /* identity across frames ("vm:kvm:1234", "vcpu:kvm:1234:0"), heap */
	enum hv_adapter_id adapter;
	bool libvirt;                   /* managed by libvirt (advice uses virsh) */
	enum diag_persist persist;      /* libvirt VM rows: persistent or transient domain
					   (kvm_libvirt_domain()); recorded (rows.persist) */
	enum diag_numa_mode numa_mode;  /* libvirt VM rows: its memory mode; recorded (rows.numa_mode) */
	int iothread_ids[DIAG_MAX_IOTHREADS]; /* libvirt VM rows: its IOThreads (kvm_libvirt_iothreads()); */
	int n_iothreads;                /* how many; -1 unknown; recorded (rows.iothreads) */
	struct hv_pcidev *pci;          /* KVM VM rows: devices passed through, owned; live only
					   (not recorded) */
	size_t n_pci;
	struct hv_iothread *io;         /* KVM VM rows: main loop, IOThreads, vhost workers; owned;
					   recorded (rows.vm_topo) */
	size_t n_io;
	double *io_busy;                /* a run's summed VM rows (rec_total): per io entry, CPUs it
					   kept busy from when it was first seen to the end; NaN
					   unknown; owned; NULL none */
	struct hv_vnode *vnodes;        /* KVM VM rows: the guest's virtual nodes; owned; recorded
					   (rows.vm_topo) */
	size_t n_vnodes;
	int pid, domid;                 /* VM rows: QEMU/process pid, Xen domain id (-1 none) */
	double started;                 /* VM and vCPU rows: the process's start, s after boot
					   (/proc/PID/stat field 22): with pid, the incarnation;
					   <= 0 or NaN unknown */
	enum row_state state;
	int index, tid;                 /* vCPU rows: vCPU number, host thread (-1 none) */
	int cpu, node;                  /* vCPU rows: placement at the sample, -1 unknown */
	double sched_run_ns;            /* vCPU rows: its thread's schedstat run and run-queue */
	double sched_wait_ns;           /* wait over the frame, whatever the model reads (CPU
					   contention); NaN unknown, 0 both in a recording */
	double sched_window_s;          /* vCPU rows: the window in s those and the model's
					   sched.* inputs were measured over: the frame's duration
					   when schedstat was read at its start and end, longer when
					   they are mean rates over the last reads spread over the
					   frame (hv_vcpu.sched_window_ns: every 5 s on a live KVM
					   host); 0 not known or none */
	uint64_t *mem_node;             /* VM rows: resident bytes per node id, heap; NULL unknown */
	int n_mem_nodes;
	char *mem_reason;               /* VM rows: where mem_node comes from, or why it is
					   unknown (hv_vm.mem_reason), heap; NULL not known */
	double *inputs;                 /* model inputs (events summed, sources), n_inputs */
	double *metrics;                /* model metrics, n_metrics */
	struct factor_value fv[FACTOR_N];
	double cycles;                  /* the model's `cycles`, NaN unknown */
	bool cycles_proxy;              /* cycles estimated from task-clock x cpu MHz */
	double mem_stall;               /* the cost stage's memory-bound stall (its budget),
					   measured or estimated (cost.anchor), NaN unknown */
	double term[CT_N];              /* the model's cost terms on this row, NaN unbound */
	struct cost_out cost;           /* the cost stage's split (frame_cost()); fv[].cost_*
					   are its five costs */
	signed char llc_alone;          /* thread rows: 1 its LLC had no other busy tenant in the
					   interval, -1 it had, 0 not known */
	double solo_mpki;               /* its LLC miss rate alone when the producer knows it
					   (model eval's counts; set after frame_eval_row(), which
					   makes it NaN), else NaN */
	struct qval remote;             /* placement estimate of the remote-access share */
	bool apportioned;               /* VM and vCPU rows: its per-node inputs (uncore and `node`
					   events) are shares of node counts (docs/method.md); node
					   rows: a package's counts split evenly between its nodes */
};

/*
 * How much of the frame's interval one of the model's events really counted
 * (perf's "(62.50%)"), summed over the frame's threads: below 100 when the
 * kernel multiplexed it with other events.
 */
struct collect_scaling {
	char *event;                    /* the model input's spec, heap */
	size_t input;                   /* index into the model's inputs */
	double enabled_s, running_s;    /* over the frame's interval */
	double running_pct;             /* 100 * running / enabled; NaN when not counted */
};

struct collect_frame {
	uint64_t t_ns;
	double duration;                /* seconds this frame covers */
	double cpu_mhz;                 /* for cycles estimated from task-clock; NaN unknown */
	struct collect_row *rows;       /* VMs first, each followed by its vCPUs */
	size_t n_rows;
	/* One row per NUMA node (kind ENT_NODE, node = its id, topology order) when
	 * the model has per-node inputs that are counted here: those inputs summed
	 * over the node, the model evaluated on them; its other inputs are NaN.
	 * Empty otherwise. */
	struct collect_row *nodes;
	size_t n_nodes;
	/* Which of the model's values are shares of per-node counts on VM and
	 * vCPU rows (frame_mark_node_inputs()); NULL when none are: */
	bool *node_input;               /* per model input: counted per node, heap */
	bool *metric_node;              /* per model metric: reads such an input, heap */
	bool factor_node[FACTOR_N];     /* the factor's score or cost reads one */
	/* --resctrl: per node (topology order) the VMs' groups summed over the node's L3
	 * domain, 3 per node: LLC bytes (now), mbm_total and mbm_local bytes over the
	 * frame; NaN where none of the node's L3 was read.  NULL when resctrl is off. */
	double *rdt_node;
	int n_rdt_nodes;
	struct sbuf rdt_why;            /* why the node values are NaN ("" when they are not) */
	struct collect_scaling *scaling; /* one per event input that is counted, heap */
	size_t n_scaling;
	struct sbuf notes;              /* what was not counted and why: every VM and reason whole */
	const char *residency;          /* where vCPUs ran per node: "exact" (switches traced),
					   "sampled" (once per frame), "unused"; NULL unknown */
	/* The whole host, in a whole-run frame (cview_frame(total)); else unknown: */
	bool host_read;                 /* the fields below were read */
	double *cpu_busy;               /* per CPU id < n_cpu_stat: busy share over the frame
					   (/proc/stat); NaN unknown; heap */
	double *cpu_queued;             /* ditto: its run queue's wait in CPUs (/proc/schedstat) */
	double *cpu_steal;              /* ditto: the share of it stolen by the hypervisor (/proc/stat
					   steal, of cpu_busy): inside a guest, its vCPUs' wait */
	int n_cpu_stat;
	char *isolated;                 /* /sys/devices/system/cpu/isolated, a CPU list; NULL unknown */
	bool numa_balancing;            /* kernel.numa_balancing is on */
	int numad_pid;                  /* a running numad, 0 none */
};

struct collector;

/*
 * Find the targets, open the counters.  Returns 0 and *out (collect_free()),
 * or a negative code when nothing at all can be collected (no model input
 * exists here).  Events that cannot be opened become NaN with their reason
 * (collect_input_reason()).
 */
int collect_new(struct collector **out, const struct collect_opts *o, struct vp_err *err);
void collect_free(struct collector *c);

/* Take one sample: counters and sources since the previous one (or since
 * collect_new() for the first).  *f is caller-owned: collect_frame_release(). */
int collect_sample(struct collector *c, struct collect_frame *f, struct vp_err *err);
void collect_frame_release(struct collect_frame *f);
/*
 * Keep only the VMs (and processes) keep(vm_row, ctx) accepts, with their
 * vCPU (thread) rows; the others are freed and the rows closed up (vm_row
 * renumbered).  Node rows stay: they are the host's.
 */
void collect_frame_keep_vms(struct collect_frame *f,
			    bool (*keep)(const struct collect_row *vm, void *ctx), void *ctx);

/*
 * The frame that covers the whole run so far (counters since the start,
 * duration since the start): what `diagnose --duration D` evaluates.
 */
int collect_total(struct collector *c, struct collect_frame *f, struct vp_err *err);

const struct attrib *collect_attrib(const struct collector *c);
const struct model_avail *collect_avail(const struct collector *c);
/* Why input i is NaN ("not opened: ..."), NULL when it is counted. */
const char *collect_input_reason(const struct collector *c, size_t i);
/* Number of targets (vCPUs/threads) being counted. */
size_t collect_n_targets(const struct collector *c);

/*
 * Evaluate a row's model (metrics, factors, cycles) from its inputs: what
 * the collector does live, and a report does on a recording.
 */
void frame_eval_row(const struct model *m, const struct platform *plat, const struct calib *cal,
		    double cpu_mhz, struct collect_row *r, double duration);

/*
 * Each row's LLC misses per kilo-instruction in the intervals when its LLC
 * had no other busy tenant (row.llc_alone): the solo rate above which
 * misses are contention (docs/method.md).  Keyed by row key; a frame_cost()
 * caller that keeps one across its frames gives the LLC factor a cost.
 */
struct cost_solo;
struct cost_solo *cost_solo_new(void);
void cost_solo_free(struct cost_solo *s);
/* The solo rate of r (its own solo_mpki, the current rate when it is alone,
 * or the lowest seen alone in s, which may be NULL); NaN with *why if none. */
void cost_solo_lookup(const struct cost_solo *s, const struct collect_row *r, double *mpki,
		      const char **why);
/* Remember the rates of the rows that were alone in f. */
void cost_solo_update(struct cost_solo *s, const struct collect_frame *f);

/*
 * The cost stage over a frame whose rows frame_eval_row() evaluated: each
 * thread row's stall split by src/model/cost.h with its node's state (the
 * node rows' bandwidth and trackers), VM rows as the sums of their threads,
 * node rows as the sums of the threads that ran there.  Fills row.cost,
 * fv[].cost_cycles/cost_pct and mem_stall.  cal may be NULL, solo too.
 */
void frame_cost(const struct model *m, const struct calib *cal, struct collect_frame *f,
		struct cost_solo *solo);

/*
 * Mark which of m's inputs are counted per node (node_input: m->n_inputs
 * flags, NULL or none set: nothing) in f->node_input, and derive which
 * metrics and factors read them (f->metric_node, f->factor_node).  On a
 * row with `apportioned` set those values are shares of node counts
 * (labelled apportioned in every output); on a node row they are the
 * node's own counts.
 */
void frame_mark_node_inputs(const struct model *m, const bool *node_input, struct collect_frame *f);
/* Quality label of row r's metric i / factor fi value ("measured", "apportioned", or the
 * model's label for factors): what the frame JSON, /metrics and reports print. */
bool frame_metric_apportioned(const struct collect_frame *f, const struct collect_row *r, size_t i);
enum vp_quality frame_factor_quality(const struct model *m, const struct collect_frame *f,
					 const struct collect_row *r, int fi);
/*
 * The quality word row r's factor fi is shown with (frame JSON, report,
 * /metrics, top): unavailable when the model does not bind it, binds it
 * unavailable, or the row has neither a score nor a cost in this interval;
 * else frame_factor_quality().  (What the run cannot see at all, the
 * caller's model_avail, is the caller's to add.)
 */
enum vp_quality frame_value_quality(const struct model *m, const struct collect_frame *f,
				    const struct collect_row *r, int fi);
/* Quality of row r's factor fi cost: estimate without a stall count, else
 * apportioned when its node counts are shares, else measured. */
enum vp_quality frame_cost_quality(const struct model *m, const struct collect_frame *f,
				      const struct collect_row *r, int fi);

/*
 * Node node_id's cost of one factor in f, over the threads (vCPU and thread
 * rows) that ran there most.  pct is the summed cost of the threads whose
 * cost is known over the summed cycles of those same threads: a thread
 * without the cost is unknown, not free, and its cycles in the denominator
 * would bias the share low.  Such threads are counted in left_out (their
 * cycles in left_out_cycles) so that a reader sees what the share leaves
 * out; pct is NaN when no thread that ran there has the cost.  /metrics
 * (src/compose/prom.c), diagnose's node rows and the node intervals of
 * src/collect/cost_ci.c all read it, so they give one number.
 */
struct frame_node_cost {
	double cost_cycles;     /* summed cost of the threads that have it (cycles or not); NaN none */
	double cycles;          /* summed cycles of the threads in pct; NaN none */
	double pct;             /* 100 * their cost / their cycles; NaN none */
	int n_threads;          /* threads in pct */
	int left_out;           /* threads that ran there (cycles > 0) without the cost */
	double left_out_cycles; /* their cycles */
	enum vp_quality q;      /* weakest quality of the costs summed (m given); unavailable: none */
};
/* m may be NULL (then q is measured wherever a cost is summed). */
void frame_node_cost(const struct model *m, const struct collect_frame *f, int node_id,
		     struct frame_node_cost nc[FACTOR_N]);
/* The pct of each factor's frame_node_cost(). */
void frame_node_cost_pct(const struct collect_frame *f, int node_id, double pct[FACTOR_N]);
/*
 * Turn a frame into the diagnosis input (vms, vcpus, nodes arrays are heap,
 * released with collect_diag_release()).  factor_ok says which factors the
 * model can evaluate here (model_avail.factor_ok); cal may be NULL.
 */
void frame_diag_input(const struct model *m, const bool *factor_ok, const struct topology *topo,
		      const struct calib *cal, const struct collect_frame *f, struct diag_input *in);
/*
 * The host's CPUs between two reads of /proc/stat (prev, now) and
 * /proc/schedstat (dprev, dnow; NULL unknown) secs seconds apart, into a
 * frame that has none (a recording's whole-run frame: `diagnose --apply`
 * reads them around its recording before, so the placement rules weigh
 * what else ran on each CPU as a live diagnosis does): cpu_busy,
 * cpu_steal, cpu_queued (NaN where unknown) and n_cpu_stat.  A frame that
 * has them already is left alone.
 */
struct cpustat;
struct cpudelay;
void frame_host_cpus(struct collect_frame *f, const struct cpustat *prev, const struct cpustat *now,
		     const struct cpudelay *dprev, const struct cpudelay *dnow, double secs);
/* The same for a live collector's frame. */
void collect_diag_input(const struct collector *c, const struct collect_frame *f,
			struct diag_input *in);
void collect_diag_release(struct diag_input *in);

#endif

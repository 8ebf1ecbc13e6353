/* topdata.h - what `vmmprof top` shows, sampled once per interval: nodes, VMs, vCPUs, factor columns */
#ifndef VP_TOPDATA_H
#define VP_TOPDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/attrib.h"
#include "calib/calib.h"
#include "hv/hv.h"
#include "model/model.h"
#include "platform/platform.h"
#include "source/cpustat.h"
#include "source/numastat.h"

struct collect_frame;
struct collector;
struct resctrl_vms;
struct resctrl_meter;

/*
 * The same rows feed the ncurses screen, --batch text and --json lines, so
 * the three cannot disagree.  Rates need two samples: on the first they are
 * NaN ("n/a", never 0).
 */

#define TOP_NFACTORS FACTOR_N

/* Where a factor cell's value comes from. */
enum top_src {
	TOP_SRC_NONE,                   /* no value: q.why says why */
	TOP_SRC_MODEL,                  /* the model's factor score, from the collector's frame */
	TOP_SRC_PLACEMENT,              /* the placement estimate of the remote fraction (LOCAL) */
	TOP_SRC_RESCTRL,                /* resctrl llc_occupancy of the VM's monitoring group (LLC) */
	TOP_SRC_XEN_PSR,                /* a Xen domain's LLC occupancy from Xen's PSR (LLC) */
};

/* One factor cell of a VM or vCPU row. */
struct top_cell {
	struct qval q;                  /* the value shown (model score, or the software figure),
					   its label and reason (points into the top_state) */
	double cost_pct;                /* model: the factor's cost as % of cycles; NaN none */
	enum vp_quality cost_q;         /* that cost's quality (frame_cost_quality(): estimate
					   when no stall count anchors it) */
	enum severity sev;              /* model: the score against its thresholds; SEV_NA otherwise */
	enum top_src src;
};

/* What top does for a factor column as a whole. */
enum top_fstate {
	TOP_F_COUNTED,                  /* the model computes it from the collector's frames */
	TOP_F_ESTIMATED,                /* top's own software figure (the placement estimate) */
	TOP_F_UNAVAILABLE,              /* nothing here; rows may still hold resctrl's LLC figure */
};

const char *top_fstate_name(enum top_fstate st); /* "counted", "estimated", "unavailable" */

/*
 * resctrl figures (top --resctrl): of a VM's monitoring group, or on a node
 * row the sum over the VMs' groups of the node's L3 domain (mon_L3_XX where
 * that cache belongs to the node alone).  NaN unknown, and why says why.
 */
struct top_rdt {
	double llc_bytes;               /* LLC occupancy now (llc_occupancy) */
	double mbm_bps;                 /* memory traffic, bytes/s over the interval (mbm_total_bytes) */
	double mbm_local_bps;           /* of it, to the local node (mbm_local_bytes) */
	struct sbuf why;                /* why a value is n/a; "" when none is */
};

struct top_node {
	int node;
	double mem_total, mem_used;     /* bytes (node meminfo); NaN unknown */
	double local_rate, remote_rate; /* pages/s allocated local_node / other_node (numastat) */
	double miss_rate;               /* numa_miss pages/s */
	double cpu_load;                /* mean busy fraction of the node's CPUs (/proc/stat) */
	int n_vcpus;                    /* vCPUs on the node now */
	struct top_rdt rdt;             /* when top->rdt_on */
};

struct top_vcpu {
	size_t vm;                      /* index into rows of VMs */
	int ent;                        /* attribution entity */
	int index, tid, cpu, node;
	struct sbuf affinity;           /* the CPUs it may run on, a CPU list (any length) */
	double cpu_pct;                 /* % of one CPU in the interval; NaN on the first */
	double node_run_s[8];           /* run time per node (first 8) in the interval; NaN unknown */
	char residency[24];             /* "xentrace", "context switches" (exact), "sampled":
					   topdata.c's words, or one a daemon sends, cut to 23 bytes */
	struct top_cell factor[TOP_NFACTORS];
};

struct top_vm {
	int ent;
	struct sbuf name;               /* the VM's name, whole */
	const char *hypervisor;         /* adapter name */
	int id;                         /* pid or domid */
	size_t n_vcpus;
	double cpu_pct;                 /* sum over vCPUs */
	double mem;                     /* resident bytes (all nodes); NaN unknown */
	double mem_node[8];             /* first 8 nodes, NaN unknown */
	int home;                       /* node with most memory, -1 unknown */
	struct top_cell factor[TOP_NFACTORS];
	struct top_rdt rdt;             /* when top->rdt_on */
};

struct top_ended {                  /* an entity whose series ended in this interval */
	char kind[8];                   /* "vm", "vcpu", "process": topdata.c's words */
	struct sbuf name;
	int id;
	uint64_t ended_ns;
};

/*
 * The counters top reads: a collector (src/collect/collect.h) with one view
 * of the chosen model over every VM top shows.  Off when no model is given
 * (the daemon's top stream), with --no-counters, on fixture trees, or when
 * no event can be opened (perf_event_paranoid, no permission): top then
 * shows its software figures and says why.
 */
struct top_counting {
	bool on;                        /* a collector is open */
	struct sbuf model;              /* the model's name; "" none */
	struct sbuf model_why;          /* how it was chosen */
	struct sbuf off;                /* why counters are off ("" when on) */
	enum top_fstate state[TOP_NFACTORS];
	enum vp_quality quality[TOP_NFACTORS]; /* the model's label for counted factors */
	const struct model *m;          /* the caller's; NULL when none */
	const struct calib *cal;        /* the caller's; NULL: no calibration */
	struct collector *col;          /* NULL when off */
	int *tids;                      /* the vCPU threads the collector counts */
	size_t n_tids;
	unsigned long reopened;         /* samples at which new vCPU threads joined the counters
					   (the collector adds them; it is not reopened) */
	char **whys;                    /* per-row reasons of the last sample (interned), heap */
	size_t n_whys;
	struct sbuf status;             /* one line: model, counted / estimated / unavailable */
};

struct top_state {
	const char *root;
	struct platform plat;
	struct attrib attrib;
	struct node_stat *ns_prev;
	size_t n_ns_prev;
	struct cpustat cs_prev;
	uint64_t prev_ns;
	unsigned long samples;
	struct sbuf factor_why[TOP_NFACTORS]; /* how top gets each factor, or why it cannot (a Xen dom0 adds what would enable it) */

	/* the rows of the last sample */
	uint64_t t_ns;
	double interval_s;              /* NaN on the first sample */
	struct top_node *nodes;
	size_t n_nodes;
	struct top_vm *vms;
	size_t n_vms;
	struct top_vcpu *vcpus;
	size_t n_vcpus;
	struct top_ended *ended;
	size_t n_ended;
	struct sbuf notes;

	struct schedtrace *trace;       /* exact residency; NULL: sampled */
	struct hv_cache *cache;         /* what the scans keep between samples (hv.h), shared
					   with the collector: one scan serves both */
	uint64_t scan_seen;
	struct hv_xen_numa *xen_numa;   /* opt-in Xen page dumps (set after top_init); NULL off */
	struct hv_xen_tracer *xen_tracer; /* top_xentrace(): exact Xen residency; NULL sampled */
	struct hv_xen_psr *xen_psr;     /* top --xen-psr (set after top_init, the caller's, with
					   rdt_on): Xen domains' rdt figures and LLC column from
					   Xen's PSR; NULL off */
	bool xen_imc;                   /* top --xen-imc (set before the counters start): the
					   model's IMC inputs from PCI config space, per node */
	const char *const *vm_names;    /* only these VMs (set after top_init, caller's); none: all */
	size_t n_vm_names;
	struct sbuf residency;          /* how residency is known, and why not exactly */

	/* counting (topcount.c): a collector view over the VMs shown, when a model is given */
	struct top_counting cnt;

	/* top --resctrl (top_resctrl_start()): a monitoring group per VM, read each sample */
	bool rdt_on;
	bool rdt_own;                   /* rdt is top's own (top_resctrl_start()), not shared */
	struct resctrl_vms *rdt;
	struct resctrl_meter *rdt_meter;
};

/*
 * Probe the platform under root; storage owned by the caller: top_release().
 * Counting is off until top_count_start().
 */
int top_init(struct top_state *s, const char *root, struct vp_err *err);
/* Free the rows of the last sample (their names and reasons too) and empty them. */
void top_rows_release(struct top_state *s);

/*
 * Count with model m (and cal, may be NULL; both kept by pointer: the caller
 * keeps them alive until top_release()): open a collector view over every
 * VM, and from then on fill the factor columns the model computes here from
 * its frames.  why says how m was chosen.  Returns 0, or a negative code
 * when no counter could be opened (err says why): counting is then off with
 * that reason and top goes on with its software figures.
 */
int top_count_start(struct top_state *s, const struct model *m, const struct calib *cal,
		    const char *why, struct vp_err *err);
/*
 * --resctrl: make one resctrl monitoring group per VM shown (named with
 * owner, the caller's pid: src/collect/resctrl_vm.h), move its threads in,
 * and fill each VM's and node's struct top_rdt from then on; the groups are
 * removed by top_release() (and when their VM ends).  When resctrl cannot be
 * used here, every row says why.
 */
void top_resctrl_start(struct top_state *s, int owner);
/*
 * The same on a set made elsewhere (a daemon's hub: hub_resctrl()), which
 * stays the caller's: top_release() only lets go of the VMs (their groups
 * go when no other meter holds them).  One set per process, so a daemon's
 * sessions and top streams share each VM's group.  The caller serializes
 * top_sample() and top_release() with the set's other users.
 */
void top_resctrl_share(struct top_state *s, struct resctrl_vms *set);
/* Counting off, with the reason shown (e.g. "--no-counters was given"). */
void top_count_off(struct top_state *s, const char *why);
/*
 * Fill the counted factor cells of the rows from frame f of model m (rows
 * matched by their attribution keys).  reason(ctx, input) says why an input
 * is NaN (NULL: counted).  top_sample() calls it; exposed for tests.
 */
void top_apply_frame(struct top_state *s, const struct model *m, const struct model_avail *av,
		     const struct collect_frame *f,
		     const char *(*reason)(const void *ctx, size_t input), const void *ctx);
/*
 * Replay (top --replay FILE): the rows come from a recording's frames, not
 * from this host.  top_replay_start() sets counting to model m as recorded
 * (av: what was available then; what says where the frames come from, for
 * the status line); s needs only top_init_remote() and the recording's
 * topology in s->plat.  top_replay_frame() makes the rows of one frame
 * (bound to m): its VMs and vCPUs with their cells as a live sample fills
 * them, node rows with what a recording does not keep (memory, page rates,
 * load) n/a.  input_reason[i] says why model input i was not recorded
 * (NULL: it was; the array may be NULL).
 */
void top_replay_start(struct top_state *s, const struct model *m, const struct calib *cal,
		      const struct model_avail *av, const char *what);
void top_replay_frame(struct top_state *s, const struct model_avail *av,
		      const struct collect_frame *f, const char *const *input_reason);
void top_release(struct top_state *s);
/* Scan, update attribution and rebuild the rows. */
int top_sample(struct top_state *s, struct vp_err *err);

const char *top_factor_title(int f);  /* "LOCAL", "LLC", "SHARE", "IMC", "QUEUE" */

/* Sort keys: the factors by their cost when the cell has one, else by their value. */
enum top_sort { TOP_SORT_NAME, TOP_SORT_CPU, TOP_SORT_REMOTE, TOP_SORT_MEM, TOP_SORT_LLC,
		TOP_SORT_SHARING, TOP_SORT_IMC, TOP_SORT_QUEUE, TOP_SORT_N };
const char *top_sort_name(enum top_sort k);
/* The key of a name top_sort_name() gives; -1 unknown. */
int top_sort_lookup(const char *name);
/* Sort the VM and vCPU rows (vCPUs stay grouped under their VM order when by name). */
void top_sort(struct top_state *s, enum top_sort k);

/* Cell text shared by the screen and --batch: "n/a" for NaN, never 0. */
void top_fmt(char *buf, size_t size, const char *fmt, double v);
/*
 * A factor cell: a model score as "0.312p/4.5%!" (score, quality letter:
 * none measured, a apportioned, p proxy; cost share of cycles when the model
 * gives one; ! warning, !! critical when sev_mark), LOCAL's placement
 * estimate as "23.5%e", LLC occupancy as MiB, "n/a" otherwise.
 */
/* The same in at most 8 characters for a narrow screen: the cost share when known, else as above. */
void top_fmt_factor_short(char *buf, size_t size, int factor, const struct top_cell *c, bool sev_mark);
void top_fmt_factor(char *buf, size_t size, int factor, const struct top_cell *c, bool sev_mark);

#endif

/* topdata.h - what `vmmprof top` shows, sampled once per interval: nodes, VMs, vCPUs, factor columns */
#ifndef VP_TOPDATA_H
#define VP_TOPDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/attrib.h"
#include "hv/hv.h"
#include "plan/coverage.h"
#include "platform/platform.h"
#include "source/cpustat.h"
#include "source/numastat.h"

/*
 * The same rows feed the ncurses screen, --batch text and --json lines, so
 * the three cannot disagree.  Rates need two samples: on the first they are
 * NaN ("n/a", never 0).
 */

#define TOP_NFACTORS COV_NFACTORS

struct top_node {
	int node;
	double mem_total, mem_used;     /* bytes (node meminfo); NaN unknown */
	double local_rate, remote_rate; /* pages/s allocated local_node / other_node (numastat) */
	double miss_rate;               /* numa_miss pages/s */
	double cpu_load;                /* mean busy fraction of the node's CPUs (/proc/stat) */
	int n_vcpus;                    /* vCPUs on the node now */
};

struct top_vcpu {
	size_t vm;                      /* index into rows of VMs */
	int ent;                        /* attribution entity */
	int index, tid, cpu, node;
	char affinity[64];
	double cpu_pct;                 /* % of one CPU in the interval; NaN on the first */
	struct qval factor[TOP_NFACTORS];
};

struct top_vm {
	int ent;
	char name[96];
	const char *hypervisor;         /* adapter name */
	int id;                         /* pid or domid */
	size_t n_vcpus;
	double cpu_pct;                 /* sum over vCPUs */
	double mem;                     /* resident bytes (all nodes); NaN unknown */
	double mem_node[8];             /* first 8 nodes, NaN unknown */
	int home;                       /* node with most memory, -1 unknown */
	struct qval factor[TOP_NFACTORS];
};

struct top_ended {                  /* an entity whose series ended in this interval */
	char kind[8];
	char name[96];
	int id;
	uint64_t ended_ns;
};

struct top_state {
	const char *root;
	struct platform plat;
	struct coverage cov;
	struct attrib attrib;
	struct node_stat *ns_prev;
	size_t n_ns_prev;
	struct cpustat cs_prev;
	uint64_t prev_ns;
	unsigned long samples;
	char factor_why[TOP_NFACTORS][160]; /* why a factor is unavailable to top */

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
	char notes[512];

	struct schedtrace *trace;       /* exact residency; NULL: sampled */
	struct hv_xen_numa *xen_numa;   /* opt-in Xen page dumps (set after top_init); NULL off */
	char residency[192];            /* how residency is known, and why not exactly */
};

/* Probe the platform under root; storage owned by the caller: top_release(). */
int top_init(struct top_state *s, const char *root, struct vp_err *err);
void top_release(struct top_state *s);
/* Scan, update attribution and rebuild the rows. */
int top_sample(struct top_state *s, struct vp_err *err);

const char *top_factor_title(int f);  /* "LOCAL", "LLC", "SHARE", "IMC", "QUEUE" */

enum top_sort { TOP_SORT_NAME, TOP_SORT_CPU, TOP_SORT_REMOTE, TOP_SORT_MEM };
const char *top_sort_name(enum top_sort k);
/* Sort the VM and vCPU rows (vCPUs stay grouped under their VM order when by name). */
void top_sort(struct top_state *s, enum top_sort k);

/* Cell text shared by the screen and --batch: "n/a" for NaN, never 0. */
void top_fmt(char *buf, size_t size, const char *fmt, double v);
/* A factor cell: LOCAL as "23.5%e" (e: estimate), LLC bytes as MiB, "n/a" otherwise. */
void top_fmt_factor(char *buf, size_t size, int factor, struct qval q);

#endif

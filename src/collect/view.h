/* view.h - one model's view of the live machine: its targets, inputs, software sources and evaluation into frames; the hub does the counting */
#ifndef VP_VIEW_H
#define VP_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "collect/collect.h"
#include "pmu/event.h"

/*
 * The per-model half of a collector (the counting half is the hub's, shared
 * by every view): which inputs exist here and why the others do not, the
 * targets (VMs or processes, their vCPU threads), the model's events
 * resolved for the hub to open, scheduler and machine-wide software sources
 * with their own baselines, attribution, and the frames built from the
 * event counts the hub hands in.
 */
struct cview;

struct resctrl_vms;

/*
 * The hub's one context-switch recorder, opened when a view first needs it
 * (or given by the hub's caller) and shared by every view that does: one
 * ring buffer per CPU for the whole collector, not one set per view.
 */
struct trace_share {
	struct schedtrace *st;      /* a reference of the hub's; NULL: none (yet) */
	bool tried;                 /* opened or failed once: not tried again */
	char why[256];              /* why it could not be opened */
};

/*
 * Check the model's inputs against the machine (db is the caller's and
 * must outlive the view), find the targets and resolve the events.
 * o->root must not be NULL.  rdt: the hub's resctrl groups when o->resctrl
 * (the caller's, must outlive the view), else NULL.  ts: the hub's shared
 * recorder (must outlive the view).  Returns 0 and *out (cview_free()), or
 * a negative code when the targets cannot be scanned.
 */
int cview_new(struct cview **out, const struct collect_opts *o, struct pmu_db *db,
	      struct resctrl_vms *rdt, struct trace_share *ts, struct vp_err *err);
void cview_free(struct cview *v);

const struct model *cview_model(const struct cview *v);
/* The model's events to count per target thread: evdesc.spec_index is the input. */
const struct evdesc_list *cview_events(const struct cview *v);
/* Threads to count (vCPU threads or a process's threads): those of the VMs there when the
 * view was made, and those that came since (cview_scan()); never fewer. */
size_t cview_n_targets(const struct cview *v);
int cview_target_tid(const struct cview *v, size_t i);
/*
 * Whether event input i is counted per node rather than per thread: a
 * per-socket (uncore) PMU's event, or one the model marks `node`.  The hub
 * opens those system-wide (each uncore instance on its cpumask CPU) and
 * hands their counts in per node.
 */
bool cview_input_node(const struct cview *v, size_t input);
/* Record why an event input is not counted (the first reason is kept). */
void cview_input_fail(struct cview *v, size_t input, const char *why);
const char *cview_input_reason(const struct cview *v, size_t input);
const struct model_avail *cview_avail(const struct cview *v);
const struct attrib *cview_attrib(const struct cview *v);
/*
 * Look at the host again before a frame's counters are read: the VMs (or
 * processes) that came are added, with their vCPU threads as new targets
 * (cview_n_targets() grows; the hub opens their counters, which count from
 * the next frame); those that went are kept for the next sample frame,
 * which shows their last interval once, marked ended.  Every frame calls
 * it (the hub does); cview_frame() builds on this scan.
 */
int cview_scan(struct cview *v, struct vp_err *err);
/* Mark the start (call when the counters' baselines have been taken). */
void cview_start(struct cview *v);

/*
 * Build one frame (since the previous one, or since the start when total).
 * counts[input * cview_n_targets() + target] is each event input's count on
 * each target thread for the same interval, NaN when not counted.
 * ncounts[input * topo.n_nodes + i] is each per-node input's count on node
 * topo.nodes[i] (NULL: none), NaN when not counted; nsplit[i] (NULL: none)
 * says node i's counts are an even share of a package's.  The frame's
 * scaling is left to the caller.  *f is caller-owned:
 * collect_frame_release().
 */
int cview_frame(struct cview *v, bool total, const double *counts, const double *ncounts,
		const bool *nsplit, struct collect_frame *f, struct vp_err *err);
void cview_diag_input(const struct cview *v, const struct collect_frame *f, struct diag_input *in);
/*
 * With resctrl: why groups are not measuring ("VM 'web': cannot create ...",
 * "; "-separated, or why resctrl cannot be used here), appended to out;
 * nothing when every VM's group measures or resctrl is off.
 */
void cview_resctrl_why(const struct cview *v, struct sbuf *out);

#endif

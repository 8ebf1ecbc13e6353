/* hub.h - the shared collector: one merged, de-duplicated counter set serving many views (sessions), each with its own model, targets, baselines and scaling */
#ifndef VP_HUB_H
#define VP_HUB_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/diagnose.h"
#include "calib/calib.h"
#include "collect/collect.h"
#include "model/model.h"
#include "platform/platform.h"
#include "util/err.h"

/*
 * One hub per host.  Every view (a daemon session, or the one view behind
 * collect_new()) names a model and its targets; the hub opens each distinct
 * event (same resolved encoding: PMU type, config, config1, config2 and
 * modifiers) once on the threads the views that ask for it count, and each
 * view keeps its own baselines (the counters' totals when it was added and at
 * its previous sample), so views sample independently and a view added or
 * removed later never changes another view's numbers beyond the scaling its
 * frames report.  A per-socket (uncore) event, or one a model marks `node`,
 * is opened once system-wide (on its PMU's cpumask) and handed to the views
 * summed per NUMA node; they apportion it to their vCPUs.
 *
 * Not thread-safe: call it from one thread (or under one mutex).
 */

struct resctrl_vms;

struct hub_opts {
	const char *root;               /* "/" live, a fixture tree in tests */
	const struct platform *plat;    /* kept by pointer: the caller keeps it alive */
	const struct calib *cal;        /* NULL: every cal.* value is NaN */
	struct hv_xen_numa *xen_numa;   /* opt-in Xen page dumps for every view (hv.h); NULL off */
	struct schedtrace *trace;       /* a context-switch recorder to share (the hub takes a
					   reference), NULL: the hub opens one when a view needs it */
	struct resctrl_vms *rdt;        /* resctrl groups to share (top's: one set per process),
					   the caller's, freed after the hub; NULL: the hub makes
					   its own when a view asks for resctrl */
	struct hv_xen_tracer *xen_tracer; /* a running xentrace for every view (hv.h), the
					   caller's, stopped after the hub; NULL: sampled */
	struct hv_xen_psr *xen_psr;     /* Xen PSR for every view (hv.h), the caller's; NULL off */
	struct hv_cache *cache;         /* what the VM scans keep between scans (hv.h), the
					   caller's (top's), freed after the hub; NULL: the hub
					   makes its own.  One scan serves every view sampled at
					   the same moment (hv_scan_vms_shared()) */
};

/* What one view (session) asks for. */
struct hub_view_opts {
	const struct model *model;      /* the view keeps a pointer: caller keeps it alive */
	const char *const *vm_names;    /* only these VMs; none: every VM */
	size_t n_vm_names;
	const int *pids;                /* native processes instead of VMs */
	size_t n_pids;
	bool strict;                    /* fail when a process or VM named is not there */
	bool resctrl;                   /* one resctrl monitoring group per VM (changes the
					   system; the views that ask share the groups) */
	bool xen_imc;                   /* collect_opts.xen_imc */
};

struct hub;

/* Returns 0 and *out (hub_free()), or a negative code (no PMU database). */
int hub_new(struct hub **out, const struct hub_opts *o, struct vp_err *err);
void hub_free(struct hub *h);

/*
 * Add a view: its targets are found, its model's events join the merged set
 * (an event already open on a thread for another view is shared, not opened
 * again; only what is new is opened, so no other view's counters are
 * reopened).  Returns 0 and *id >= 0, or a negative code when the targets
 * cannot be scanned, a process or VM named is missing (o->strict), or the
 * model has events and none of them can be counted (the message says why).
 */
int hub_view_add(struct hub *h, const struct hub_view_opts *o, int *id, struct vp_err *err);
/* Remove a view; events no other view uses are closed.  Unknown ids are ignored. */
void hub_view_remove(struct hub *h, int id);

/*
 * The view's frame since its own previous sample (or since it was added, for
 * the first).  *f is caller-owned: collect_frame_release().
 */
int hub_sample(struct hub *h, int id, struct collect_frame *f, struct vp_err *err);
/* The view's frame since the view was added (what a diagnosis evaluates). */
int hub_total(struct hub *h, int id, struct collect_frame *f, struct vp_err *err);

/* The diagnosis input for a view's frame: collect_diag_release(). */
void hub_diag_input(const struct hub *h, int id, const struct collect_frame *f,
		    struct diag_input *in);
/*
 * The hub's resctrl groups (src/collect/resctrl_vm.h: one set per process),
 * made on the first call (or hub_opts.rdt); a view with resctrl uses them, and so may another
 * consumer of the same VMs with its own resctrl_meter (the daemon's top
 * streams), under the same lock as every hub call.  The hub owns a set it
 * made: hub_free() removes its groups, so every meter on it goes first.
 */
struct resctrl_vms *hub_resctrl(struct hub *h);
/* Why the view's resctrl groups do not measure (cview_resctrl_why()), appended to out. */
void hub_view_resctrl_why(const struct hub *h, int id, struct sbuf *out);
/* Which of the view's inputs and factors exist here; NULL for an unknown id. */
const struct model_avail *hub_view_avail(const struct hub *h, int id);
/* Why the view's input is NaN ("not counted: ..."), NULL when it is counted. */
const char *hub_view_input_reason(const struct hub *h, int id, size_t input);
/* Threads the view counts; 0 for an unknown id. */
size_t hub_view_n_targets(const struct hub *h, int id);
/* The view's attribution (placement per entity); NULL for an unknown id. */
const struct attrib *hub_view_attrib(const struct hub *h, int id);

/* The hub's VM scan cache (hub_opts.cache or its own), for another consumer of the same
   host under the same lock (the daemon's top streams). */
struct hv_cache *hub_scan_cache(struct hub *h);

/* Distinct threads the merged set counts on (the union of the views' targets). */
size_t hub_n_targets(const struct hub *h);

/* The merged counter set: one row per distinct event the views asked for. */
struct hub_event {
	char *name;                     /* canonical spec, e.g. "task-clock", "cpu/event=0x3c/" */
	char encoding[160];             /* "type=1,config=0x1" (+ config1/2 and modifiers when set;
					   ",cpu-wide" when counted per CPU for a per-node input,
					   and ",cpus=0,20" an uncore PMU's cpumask) */
	int *views;                     /* which views asked for it */
	size_t n_views;
	double enabled_s, running_s;    /* summed over its descriptors since opened */
	bool open;                      /* counting on at least one thread */
	char *why;                      /* why it is not open, NULL when open */
};

/* Heap copy of the merged set: release with hub_events_release(). */
int hub_events(const struct hub *h, struct hub_event **out, size_t *n);
void hub_events_release(struct hub_event *ev, size_t n);

#endif

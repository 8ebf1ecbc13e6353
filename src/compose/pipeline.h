/* pipeline.h - what the front ends compose: platform, model, calibration, collector */
#ifndef VP_COMPOSE_PIPELINE_H
#define VP_COMPOSE_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "calib/calib.h"
#include "collect/collect.h"
#include "model/dirs.h"
#include "model/registry.h"
#include "platform/platform.h"
#include "util/dirs.h"
#include "util/err.h"
#include "util/sbuf.h"

/*
 * What a pipeline is opened with: the collecting commands' options
 * (src/cli/pipeline.h parses them) and the daemon's configuration.
 */
struct pipe_opts {
	const char *root;
	const char *model;          /* -m NAME|FILE, NULL: chosen for the platform */
	const char *cal_path;       /* --calibration, NULL: the default file if present */
	char **model_paths;
	size_t n_model_paths;
	const char **vms;
	size_t n_vms;
	int *pids;
	size_t n_pids;
	bool xen_numa;              /* --xen-numa-dump: Xen's pages per node (opt-in) */
	double xen_numa_every_s;    /* its minimum time between dumps */
	bool resctrl;               /* --resctrl: one resctrl monitoring group per VM */
	bool xentrace;              /* --xentrace: Xen residency from a running xentrace */
	bool xen_psr;               /* --xen-psr: Xen's per-domain CMT/MBM for the run */
	bool xen_imc;               /* --xen-imc: IMC counters from PCI config space */
	double wait_s;              /* --wait: seconds to wait for a --vm that is not there; 0 fail */
	/* the user's directories (the model path's and the default calibration's),
	 * as the front end read them from its environment; NULL: none */
	const struct vp_dirs *dirs;
};

struct pipeline {
	struct platform plat;
	bool have_plat;
	struct model_dirs dirs;
	struct model_registry reg;
	bool have_reg;
	struct model *model;
	char why[1024];             /* how the model was chosen, or why none */
	struct calib cal;
	bool have_cal;
	struct sbuf cal_note;       /* which calibration, or why none */
	struct collector *col;
	struct hv_xen_numa xen_numa; /* the collector's opt-in state (--xen-numa-dump) */
	struct hv_xen_tracer *xen_tracer; /* --xentrace: the running trace; NULL none */
	struct hv_xen_psr *xen_psr; /* --xen-psr: the domains attached for the run; NULL none */
};

/*
 * Probe the platform under o->root, choose the model (-m, else the one
 * for the platform) and load the calibration.  0, or a negative code with
 * err filled; either way p is ready for pipeline_close().
 */
int pipeline_open(struct pipeline *p, const struct pipe_opts *o, struct vp_err *err);
/*
 * Start the collector of an open pipeline on o's targets (a -p process
 * that is not there is an error; the caller has checked the --vm names).
 * 0, or a negative code with err filled.
 */
int pipeline_collect(struct pipeline *p, const struct pipe_opts *o, struct vp_err *err);
/*
 * Only choose the model (-m, else for plat, which stays the caller's) and
 * load the calibration: for a command that probes the platform itself
 * (top).  When no model was named and none matches, returns 0 with
 * p->model NULL and the reason in p->why; other failures a negative code
 * with err filled.
 */
int pipeline_choose(struct pipeline *p, const struct pipe_opts *o, const struct platform *plat,
		    struct vp_err *err);
/* Load the model named (a recording's) through the same registry; 0 or a negative code. */
int pipeline_model(struct pipeline *p, const struct pipe_opts *o, const char *name,
		   struct vp_err *err);
void pipeline_close(struct pipeline *p);

#endif

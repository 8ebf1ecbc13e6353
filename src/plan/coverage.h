/* coverage.h - what the model chosen for a platform measures of the five factors there */
#ifndef VP_COVERAGE_H
#define VP_COVERAGE_H

#include <stdbool.h>

#include "model/registry.h"
#include "platform/platform.h"
#include "util/vocab.h"

/*
 * The factor-coverage table that `vmmprof info` prints.  It has one
 * source of truth: the model model_registry_choose() picks for the
 * platform, its inputs checked on the platform's root with the resolver
 * `vmmprof model check --root` uses (model_check_inputs() with
 * model_machine_check()).  For each factor: the model's quality label, the
 * events and sources its score reads, whether each exists here (the reason
 * when not), and what is left when the factor cannot be computed.
 */

enum cov_kind {
	COV_SRC_CORE,     /* perf events counted per thread or CPU (core PMU, software events) */
	COV_SRC_UNCORE,   /* per-node counts: an uncore PMU, or an input the model marks node/home */
	COV_SRC_RESCTRL,  /* resctrl monitoring */
	COV_SRC_SOFTWARE, /* procfs/sysfs/scheduler sources, placement estimates */
	COV_SRC_NONE,     /* the factor cannot be computed here */
};

#define COV_MAX_INPUTS 16

struct cov_input {             /* one event or source a factor's score reads */
	char name[48];             /* the model's name for it: "sq_full" */
	char spec[160];            /* "OFFCORE_REQUESTS_BUFFER:SQ_FULL", "resctrl.mbm_total_bytes" */
	char desc[160];            /* the model's description of it; "" when none */
	bool source;               /* a software source, not a perf event */
	bool per_node;             /* counted per node: an uncore PMU's event, or marked node/home */
	bool optional;
	bool present;              /* exists on this machine (or fixture root) */
	char pmu[PLAT_NAME];       /* present events: the PMU family that counts it ("cpu", "uncore_imc"), whole */
	char reason[240];          /* !present: why not */
};

struct cov_row {
	enum factor_id factor;
	enum vp_quality quality;   /* the model's label when its score can be computed here, else unavailable */
	enum vp_quality label;     /* the model's label whatever this machine has */
	enum cov_kind kind;
	char source[160];          /* "model skx", or "none" */
	char score[256];           /* the score's formula; "" when the model binds none */
	char desc[256];            /* the binding's description; "" when none */
	struct cov_input inputs[COV_MAX_INPUTS];
	int n_inputs;              /* inputs the score reads, through its metrics */
	char note[768];            /* why unavailable (and, in a Xen dom0, what would enable it); "" when nothing to add */
	char remains[512];         /* when unavailable: what is left to go on instead */
};

struct cov_term {              /* one `cost TERM = FORMULA` of the model */
	char term[24];             /* "stall_mem" */
	char formula[160];
	bool present;              /* every input it reads exists here */
	char reason[240];          /* !present: the first input missing, and why */
};

/* What the cost stage can make of the model's cost terms here (docs/method.md "Costs"). */
enum cov_anchor {
	COV_COST_NONE,             /* no cost term can be computed: scores only */
	COV_COST_MEASURED,         /* a stall count (stall_mem, stall_l2_miss, stall_l3_miss) exists */
	COV_COST_ESTIMATED,        /* access counts without a stall count: count x latency / MLP */
};

struct coverage {
	char model[64];            /* the chosen model, "" when none matched */
	char model_path[256];
	char model_why[256];       /* which match rule chose it, or why none was */
	char table_from[256];      /* which libpfm4 table checked its core events */
	char summary[256];         /* one line: counts per quality */
	char verdict[256];         /* plain words: which factors are lost, which remain and how */
	struct cov_row rows[FACTOR_N];
	enum cov_anchor anchor;
	char cost_note[256];       /* why the costs are what anchor says */
	struct cov_term terms[CT_N];  /* the terms the model binds, in enum cost_term order */
	int n_terms;
};

/*
 * Fill *c (caller-owned, nothing to release) from the model r chooses for
 * p, checked on p->root.  On a fixture root the caller sets
 * LIBPFM_ENCODE_INACTIVE first, as for `model check --root` (a library
 * does not touch the environment).
 */
void coverage_compute(const struct platform *p, const struct model_registry *r,
		      struct coverage *c);

const char *cov_kind_name(enum cov_kind k);       /* "core", "uncore", "resctrl", "software", "none" */
const char *cov_anchor_name(enum cov_anchor a);   /* "none", "measured", "estimated" */

#endif

/* coverage.h - what the model chosen for a platform measures of the five factors there */
#ifndef VP_COVERAGE_H
#define VP_COVERAGE_H

#include <stdbool.h>

#include "model/registry.h"
#include "platform/platform.h"
#include "util/sbuf.h"
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

/*
 * Every text field below is an sbuf (heap, NUL-terminated, "" when never
 * set): model names, formulas, descriptions and reasons come from model
 * files and error messages of any length, and are kept whole.  A struct
 * coverage is released with coverage_release().
 */
struct cov_input {             /* one event or source a factor's score reads */
	struct sbuf name;          /* the model's name for it: "sq_full" */
	struct sbuf spec;          /* "OFFCORE_REQUESTS_BUFFER:SQ_FULL", "resctrl.mbm_total_bytes" */
	struct sbuf desc;          /* the model's description of it; "" when none */
	bool source;               /* a software source, not a perf event */
	bool per_node;             /* counted per node: an uncore PMU's event, or marked node/home */
	bool optional;
	bool present;              /* exists on this machine (or fixture root) */
	char pmu[PLAT_NAME];       /* present events: the PMU family that counts it ("cpu", "uncore_imc"),
	                            * a sysfs directory name: at most NAME_MAX bytes, whole */
	struct sbuf reason;        /* !present: why not */
};

struct cov_row {
	enum factor_id factor;
	enum vp_quality quality;   /* the model's label when its score can be computed here, else unavailable */
	enum vp_quality label;     /* the model's label whatever this machine has */
	enum cov_kind kind;
	struct sbuf source;        /* "model skx", or "none" */
	struct sbuf score;         /* the score's formula; "" when the model binds none */
	struct sbuf desc;          /* the binding's description; "" when none */
	struct cov_input *inputs;  /* n_inputs, heap (cov_row_add_input()) */
	int n_inputs;              /* inputs the score reads, through its metrics, all of them */
	struct sbuf note;          /* why unavailable (and, in a Xen dom0, what would enable it); "" when nothing to add */
	struct sbuf remains;       /* when unavailable: what is left to go on instead */
};

struct cov_term {              /* one `cost TERM = FORMULA` of the model */
	struct sbuf term;          /* "stall_mem" */
	struct sbuf formula;
	bool present;              /* every input it reads exists here */
	struct sbuf reason;        /* !present: the first input missing, and why */
};

/* What the cost stage can make of the model's cost terms here (docs/method.md "Costs"). */
enum cov_anchor {
	COV_COST_NONE,             /* no cost term can be computed: scores only */
	COV_COST_MEASURED,         /* a stall count (stall_mem, stall_l2_miss, stall_l3_miss) exists */
	COV_COST_ESTIMATED,        /* access counts without a stall count: count x latency / MLP */
};

struct coverage {
	struct sbuf model;         /* the chosen model, "" when none matched */
	struct sbuf model_path;
	struct sbuf model_why;     /* which match rule chose it, or why none was */
	struct sbuf table_from;    /* which libpfm4 table checked its core events */
	struct sbuf summary;       /* one line: counts per quality */
	struct sbuf verdict;       /* plain words: which factors are lost, which remain and how */
	struct cov_row rows[FACTOR_N];
	enum cov_anchor anchor;
	struct sbuf cost_note;     /* why the costs are what anchor says */
	struct cov_term terms[CT_N];  /* the terms the model binds, in enum cost_term order */
	int n_terms;
};

/*
 * Fill *c (caller-owned storage; release with coverage_release()) from the
 * model r chooses for p, checked on p->root.  On a fixture root the caller sets
 * LIBPFM_ENCODE_INACTIVE first, as for `model check --root` (a library
 * does not touch the environment).
 */
void coverage_compute(const struct platform *p, const struct model_registry *r,
		      struct coverage *c);

/* Free what *c holds and zero it; a zeroed struct coverage is released as a no-op. */
void coverage_release(struct coverage *c);
/* A new input at the end of r->inputs (zeroed), for coverage_compute() and info_from_json(). */
struct cov_input *cov_row_add_input(struct cov_row *r);

const char *cov_kind_name(enum cov_kind k);       /* "core", "uncore", "resctrl", "software", "none" */
const char *cov_anchor_name(enum cov_anchor a);   /* "none", "measured", "estimated" */

#endif

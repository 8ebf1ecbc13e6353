/* model.h - profile models: events, metrics and the five factor bindings, from model files */
#ifndef VP_MODEL_H
#define VP_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "model/diag.h"
#include "model/expr.h"
#include "util/err.h"
#include "util/vocab.h"

/*
 * A model file (docs/models.md) names the events a platform offers, turns
 * them into metrics with formulas, and binds metrics to the five NUMA
 * factors.  model_load() parses a file and the files it includes into one
 * struct model; everything is checked that can be without a machine
 * (names, references, cycles, bindings).  Whether the events exist on a
 * machine is model_check_inputs()'s business.
 */

enum severity { SEV_NA, SEV_OK, SEV_WARNING, SEV_CRITICAL };

const char *severity_name(enum severity s);       /* "n/a", "ok", "warning", "critical" */

/* What a model binds with `cost TERM = FORMULA` (docs/models.md "Cost terms"). */
enum cost_term {
	CT_STALL_MEM,        /* cycles stalled on memory at any level: the budget M */
	CT_STALL_L2_MISS,    /* cycles stalled with an L2 miss outstanding */
	CT_STALL_L3_MISS,    /* cycles stalled with an L3 miss outstanding (DRAM-bound: D) */
	CT_RD_OCCUPANCY,     /* outstanding data reads summed over cycles (Little's law) */
	CT_RD_CYCLES,        /* cycles with at least one outstanding data read */
	CT_DRAM_LOCAL,       /* loads served by DRAM of the node the thread runs on */
	CT_DRAM_REMOTE,      /* loads served by another node's DRAM */
	CT_CACHE_REMOTE,     /* loads served by another socket's cache (HITM and forwards) */
	CT_HITM_LOCAL,       /* loads served by a modified line in another core of the socket */
	CT_L3_HIT,           /* loads that hit the L3 without a snoop (weights the L3-bound stall) */
	CT_LLC_MISS,         /* LLC misses: the miss rate whose excess is contention */
	CT_INSTR,            /* instructions: misses per kilo-instruction */
	CT_NODE_BW_GBS,      /* node rows: the node's DRAM bandwidth, GB/s */
	CT_TRACKER_NS,       /* node rows: mean residency of a miss in the shared trackers, ns */
	CT_TRACKER_FULL,     /* node rows: share of time the shared trackers were full */
	CT_N
};

/* "stall_mem" for CT_STALL_MEM; NULL out of range. */
const char *cost_term_name(enum cost_term t);
/* The term named name, or -1. */
int cost_term_lookup(const char *name);
/* One line for docs and `model show`: what the term means. */
const char *cost_term_desc(enum cost_term t);

enum match_kind {
	MATCH_CPU,       /* vendor [family [model list]] */
	MATCH_PMU,       /* libpfm4 name of the core PMU */
	MATCH_VPMU,      /* any CPU with a core PMU (a guest's vPMU), optionally of one vendor */
	MATCH_SOFTWARE,  /* any machine: software sources only */
};

struct model_match {
	enum match_kind kind;
	char vendor[32];      /* "GenuineIntel", "AuthenticAMD", "ARM"; "" any */
	int family;           /* -1 any */
	int (*models)[2];     /* inclusive ranges; none means any */
	size_t n_models;
	char **pmus;          /* MATCH_PMU: libpfm4 PMU names */
	size_t n_pmus;
	struct src_loc loc;
};

enum input_kind { INPUT_EVENT, INPUT_SOURCE };

struct model_input {      /* an event or a software source, by its local name */
	char *name;
	enum input_kind kind;
	char *spec;           /* event spec as the counting engine takes it, or source name */
	bool optional;        /* missing on a machine: its metrics become n/a, the model still applies */
	bool per_node;        /* `node`: counted system-wide per CPU and summed per NUMA node (as
				 every per-socket uncore event is), then apportioned to vCPUs */
	bool home;            /* `home` (implies node): counted at the memory's node (an IMC),
				 apportioned by where each vCPU's memory is, not where it runs */
	char *desc;           /* NULL when none */
	struct src_loc loc;   /* of the name */
	struct src_loc spec_loc;
};

struct model_metric {
	char *name;
	char *unit;           /* "GB/s", NULL when none */
	char *desc;
	struct expr *e;
	struct src_loc loc;
};

struct model_factor {
	bool bound;
	enum vp_quality quality;
	char *reason;         /* VQ_UNAVAILABLE: why */
	struct expr *score;   /* higher is worse; compared with the thresholds */
	double warning;       /* score thresholds */
	double critical;
	char *desc;
	struct src_loc loc;
};

struct model {
	char *name;
	char *desc;
	char *path;            /* the file it was loaded from */
	struct src_loc loc;    /* of the 'model' statement */
	struct model_match *matches;
	size_t n_matches;
	struct model_input *inputs;
	size_t n_inputs;
	struct model_metric *metrics;
	size_t n_metrics;
	size_t *order;         /* metric indices, each after the metrics it uses */
	struct model_factor factors[FACTOR_N];
	struct expr *cycles;   /* cycles a factor's cost is a share of; NULL when none */
	struct expr *cost_term[CT_N];  /* `cost TERM = FORMULA`: the cost stage's inputs
					  (src/model/cost.h); NULL when unbound */
	struct src_loc cost_term_loc[CT_N];
	char **includes;       /* names/paths of the files it includes (directly) */
	size_t n_includes;
	char **files;          /* every file read (src_loc.file points here) */
	char **texts;          /* their contents, for diagnostics */
	size_t n_files;
};

/*
 * Load the model in path.  `include NAME` looks for NAME.model next to the
 * including file, then in dirs (n_dirs entries, in order).  Returns 0 and
 * *out (model_free() it), or VP_EPARSE with every diagnostic in d and the
 * first one rendered in err; other negative codes when the file cannot be
 * read.
 */
int model_load(struct model **out, const char *path, const char *const *dirs, size_t n_dirs,
	       struct diags *d, struct vp_err *err);
/* The same from text in memory (file names it). */
int model_load_text(struct model **out, const char *text, const char *file,
		    const char *const *dirs, size_t n_dirs, struct diags *d, struct vp_err *err);
void model_free(struct model *m);
/* A model's name as its 'model' statement may give it: letters, digits, '_', '-', '.'. */
bool model_name_ok(const char *s);

/* Index of a metric or input by name, or -1. */
int model_find_metric(const struct model *m, const char *name);
int model_find_input(const struct model *m, const char *name);

/* Lowercase vendor name as written in match rules: "intel" -> "GenuineIntel". */
const char *model_vendor_id(const char *word);

/* ---- availability on a machine ---- */

/*
 * Decide whether one input exists on the machine.  Returns 0 when it does,
 * VP_EUNSUPP when it is absent here (e.g. no uncore PMU in a guest, a
 * source without a provider yet) with the reason in *reason (heap), or
 * another negative code for an error in the model itself (an unknown event
 * name, a bad spec) with the message in *reason.
 */
typedef int (*model_input_check_fn)(void *ctx, const struct model_input *in, char **reason);

struct model_avail {
	bool *input_ok;
	char **input_reason;   /* NULL when ok */
	bool *metric_ok;
	char **metric_reason;
	bool factor_ok[FACTOR_N];
	char *factor_reason[FACTOR_N];
};

/*
 * Check every input with fn and derive which metrics and factors can be
 * computed.  A required input that fails, and any input that fails with an
 * error other than VP_EUNSUPP, is an error in d at its spec; an optional
 * input that is absent is a warning.  Returns the number of errors added.
 * fn NULL: every input is taken as present (a parse-only check).
 * Release av with model_avail_release().
 */
int model_check_inputs(const struct model *m, model_input_check_fn fn, void *ctx,
		       struct model_avail *av, struct diags *d);
void model_avail_release(const struct model *m, struct model_avail *av);

/* ---- evaluation ---- */

struct factor_value {
	double score;
	double cost_cycles;
	double cost_pct;       /* 100 * cost / cycles */
	enum severity sev;
};

/*
 * Evaluate every metric (into metrics, n_metrics entries) and factor (into
 * fv, FACTOR_N entries) for one interval.  env holds the inputs, constants,
 * duration and calibration; its metrics fields are set by this function.
 */
void model_eval(const struct model *m, struct expr_env *env, double *metrics,
		struct factor_value *fv);

/*
 * Why a NaN came out of e: the first missing input it reads (per av), a
 * calibration value it needs, or division by zero.  Appends to out.
 */
void model_nan_reason(const struct model *m, const struct model_avail *av,
		      const struct expr *e, const struct expr_env *env, struct sbuf *out);

#endif

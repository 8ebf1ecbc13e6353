/* counts.h - `model eval`: counts from elsewhere bound to a model's inputs by encoding and run through the cost stage */
#ifndef VP_COUNTS_H
#define VP_COUNTS_H

#include <stdbool.h>
#include <stddef.h>

#include "calib/calib.h"
#include "model/model.h"
#include "platform/platform.h"
#include "pmu/event.h"
#include "util/err.h"
#include "util/jsonread.h"
#include "util/sbuf.h"

/*
 * A set of counts (docs/model-eval.md): event specs as `stat -e` takes
 * them, with their values.  Each spec is resolved on a PMU database and
 * bound to the model input that opens the same encoding (type, config,
 * config1, config2): a libpfm4 name, a raw rNNNN code and the model's own
 * spelling bind the same input.  A value may be NaN (JSON null, perf's
 * "<not counted>"): the input is n/a with that reason, never 0.
 */
struct count_item {
	char *spec;           /* heap */
	double value;         /* NaN: not counted (why says so) */
	char *why;            /* heap, NULL when value is a number */
	char *unit;           /* perf -x's unit column, heap; NULL none */
	char where[192];      /* "FILE:LINE:COL" (JSON) or "FILE:LINE" (CSV) */
};

struct count_set {
	struct count_item *v;
	size_t n;
};

struct counts_in {
	double duration_s;        /* NaN unknown */
	double cpu_ghz;           /* core clock while it ran, NaN unknown */
	double solo_mpki;         /* the row's LLC misses per kilo-instruction alone, NaN unknown */
	signed char llc_alone;    /* 1: its LLC had no other busy tenant, -1 it had, 0 unknown */
	struct count_set row;     /* the row's counts */
	struct count_set node;    /* the serving node's counts (a node row) */
	bool have_node;
};

void counts_in_init(struct counts_in *c);
void counts_in_release(struct counts_in *c);

/*
 * Parse the JSON counts file {"duration_s", "cpu_ghz", "counts", "node_counts",
 * "solo_mpki", "llc_alone"} (name labels messages: "NAME:LINE:COL: ...")
 * into c (counts_in_init()ed).  Returns 0, VP_EPARSE or VP_EFORMAT.
 */
int counts_parse_json(struct counts_in *c, const char *text, size_t len, const char *name,
		      struct vp_err *err);

/*
 * Append the counts of `perf stat -x,` output (value,unit,event,...; also
 * with -I's leading timestamp or -A's leading CPU, summed) to s.  perf's
 * task-clock in msec is turned back into ns; a duration_time line sets
 * *duration_s when it is NaN.  "<not counted>" and "<not supported>" are
 * NaN with that reason.  Returns 0 or VP_EPARSE ("NAME:LINE: ...").
 */
int counts_parse_perf_csv(struct count_set *s, double *duration_s, const char *text, size_t len,
			  const char *name, struct vp_err *err);

/* What the counts are evaluated on. */
struct counts_eval_opts {
	const struct model *m;
	struct pmu_db *db;            /* resolves specs; NULL: binding by spelling only */
	const char *pfm_table;        /* libpfm4 table for bare core names; NULL none */
	const char *root;             /* where db was read ("/" or a fixture), for messages */
	const struct platform *plat;  /* the #constants (topology); NULL: NaN */
	const struct calib *cal;      /* NULL: every cal.* value is NaN */
	bool node_row;                /* the counts are a node's (`--row node`) */
};

/*
 * Bind c to o->m's inputs, evaluate the row (and the serving node's row)
 * with frame_eval_row() and frame_cost(), and write the `model eval
 * --json` document (docs/model-eval.md) to out.  Returns 0, or a negative
 * code with err set (a model without a `cycles` is not an error: its costs
 * are n/a with the reason).
 */
int counts_eval(const struct counts_eval_opts *o, const struct counts_in *c, struct sbuf *out,
		struct vp_err *err);

/* The text page of a `model eval --json` document (parsed).  Returns 0 or VP_EFORMAT. */
int counts_eval_text(const struct jv *doc, struct sbuf *out, struct vp_err *err);

#endif

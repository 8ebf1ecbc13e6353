/* run.h - a model applied to a machine: the counters to open, and its inputs per interval */
#ifndef VP_MODEL_RUN_H
#define VP_MODEL_RUN_H

#include <stdbool.h>

#include "calib/calib.h"
#include "model/model.h"
#include "model/resolve.h"
#include "platform/platform.h"
#include "pmu/counter.h"
#include "pmu/event.h"

/*
 * A run resolves a model's events on one machine (events that are absent
 * are left out, with the reason in av), hands the counting engine the
 * list to open, and turns each snapshot into the model's inputs:
 * events are summed over their instances with cnt_sum() (spec_index is
 * the input's index), software sources are read machine-wide and, when
 * they are counters, differenced against the previous read.
 */
struct model_run {
	const struct model *m;
	struct model_machine mm;
	struct evdesc_list events;  /* what to open; spec_index = input index */
	struct model_avail av;      /* inputs, metrics, factors available here */
	int *spec_of;               /* per input: the spec_index its series carry, -1 none */
	double *src_prev;           /* last cumulative reading of each source input */
	double *src_start;          /* reading at model_run_start() */
};

/*
 * Resolve m on the machine of mm (db, root, libpfm4 table).  Fails with
 * VP_EUNSUPP when a required input is absent (the message names it and
 * why); diagnostics, if d is not NULL, get every problem.  Release with
 * model_run_release() in any case.
 */
int model_run_init(struct model_run *r, const struct model *m, const struct model_machine *mm,
		   struct diags *d, struct vp_err *err);
void model_run_release(struct model_run *r);

/*
 * The perf event spec input i is counted with: an event input's own spec,
 * the event that counts a source for the run's scope (sched.run_ns of a
 * command is "task-clock", swsource_event_for()), or NULL for a source
 * that is read.  Such sources are opened, numbered and bound like events.
 */
const char *model_run_event_spec(const struct model_run *r, size_t i);

/*
 * Number the available events first, first+1, ... (in input order) as the
 * spec indices their series will carry, for a caller that opens them
 * among specs of its own; updates events' spec_index.  Returns how many.
 */
int model_run_renumber(struct model_run *r, int first);

/*
 * Bind the k-th available event (in input order) to spec index map[k]:
 * for a caller that opens them among specs of its own, sharing a spec
 * that the caller already counts.  Updates events' spec_index.
 */
void model_run_bind(struct model_run *r, const int *map);

/*
 * The counters of spec_index could not be opened (why: the engine's
 * explanation): every input bound to it becomes absent with that reason,
 * so its metrics say why instead of showing a division by zero.
 */
void model_run_dropped(struct model_run *r, int spec_index, const char *why);

/* Take the sources' starting readings (call when counting starts). */
void model_run_start(struct model_run *r);

/*
 * Fill inputs (m->n_inputs values) for one interval of snap, or with total
 * for the whole run since model_run_start(): events of entity (-1: summed
 * over every entity), sources machine-wide.  An absent input, and an event
 * that was never scheduled, is NaN.
 */
void model_run_inputs(struct model_run *r, const struct cnt_session *s,
		      const struct cnt_snapshot *snap, bool total, int entity, double *inputs);

/*
 * The constants of p (#num_cpus ...), the calibration's values (cal may
 * be NULL: all NaN) and the interval's length into env; inputs are set by
 * the caller.
 */
void model_env_fill(struct expr_env *env, const struct platform *p, const struct calib *cal,
		    double duration_s);

#endif

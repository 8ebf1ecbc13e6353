/* stat_model.h - `vmmprof stat -m MODEL`: a model's metrics and factors from the counts */
#ifndef VP_STAT_MODEL_H
#define VP_STAT_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "calib/calib.h"
#include "model/dirs.h"
#include "model/cost.h"
#include "model/registry.h"
#include "model/run.h"
#include "platform/platform.h"
#include "pmu/counter.h"
#include "util/sbuf.h"
#include "util/table.h"

/*
 * cmd_stat.c keeps the counting; this file chooses and loads the model,
 * says which specs to count for it, and prints metrics and factor scores
 * for an interval or for the whole run.
 */
struct stat_model {
	struct model_dirs dirs;
	struct model_registry reg;
	struct model *m;
	bool automatic;             /* chosen for the platform, not named */
	char why[320];              /* how it was chosen */
	struct platform plat;
	bool plat_ok;
	struct calib cal;
	bool cal_ok;
	char cal_note[VP_ERR_MSG_MAX]; /* why there is no calibration, "" when there is */
	struct model_run run;
	bool run_ok;
	struct swsource_scope scope; /* whose software sources run reads */
	double *in;                 /* m->n_inputs */
	double *met;                /* m->n_metrics */
	struct factor_value fv[FACTOR_N];
	const char *cost_why[FACTOR_N]; /* why a cost is n/a (the cost stage's words) */
	struct cost_out cost;       /* the cost stage's split of the counted whole */
	struct expr_env env;
	/*
	 * sched.node_migrations of -p/-t tasks or a command: every context
	 * switch recorded (src/source/schedtrace.h), the watched threads'
	 * moves between nodes counted; NULL when the model does not use it or
	 * it could not be opened (trace_why says why)
	 */
	struct schedtrace *trace;
	char trace_why[VP_ERR_MSG_MAX];
	/* -I: each note (why a value is n/a) printed once, numbered; the later
	 * intervals give its number only */
	struct table_notes notes;
	/* -M: the metrics and factors named (NULL: every one) */
	bool *pick_metric;          /* m->n_metrics */
	bool pick_factor[FACTOR_N];
};

/*
 * Load the model named name (a registry name or a file), or with name NULL
 * the one chosen for this machine; resolve it on db; load the calibration
 * from calib_path (NULL: ~/.config/vmmprof/calibration.json, absent is
 * fine).  scope says whose software sources are read (NULL: the machine's);
 * it must stay valid until stat_model_close().  Returns 0, or a negative code with err filled (nothing printed:
 * the automatic model only warns when it cannot run).  stat_model_close()
 * in any case.
 */
int stat_model_open(struct stat_model *sm, const char *name, char *const *paths, size_t n_paths,
		    const char *calib_path, struct pmu_db *db, const struct swsource_scope *scope,
		    struct vp_err *err);
void stat_model_close(struct stat_model *sm);

/* The model's events that exist here, in the order they must be opened. */
size_t stat_model_specs(const struct stat_model *sm, const char ***specs);
/* The k-th of those specs is the caller's spec map[k]: bind the model to them. */
void stat_model_bind(struct stat_model *sm, const int *map);
/* The session is open: events it had to drop are absent for the model, with the reason. */
void stat_model_opened(struct stat_model *sm, const struct cnt_session *s);
/*
 * The command stat starts (pid, before it execs): its threads are watched
 * for sched.node_migrations.  No-op without a tracer.
 */
void stat_model_watch_command(struct stat_model *sm, pid_t pid);
/* Counting starts now (software sources take their first reading). */
void stat_model_start(struct stat_model *sm);
/*
 * How often the stat loop must call stat_model_poll() (ns; 0: never): the
 * tracer's rings hold a few seconds of switches of a busy machine.
 */
uint64_t stat_model_poll_ns(const struct stat_model *sm);
void stat_model_poll(struct stat_model *sm);

/*
 * -M LIST: print only these of the model's metrics and factors (names
 * separated by commas; a factor's name picks its score).  A name the model
 * does not define: VP_EINVAL, err says so and lists the names it has.
 */
int stat_model_pick(struct stat_model *sm, const char *list, struct vp_err *err);

/* Output of one interval (total false) or of the whole run (total true). */
struct stat_model_out {
	char sep;                   /* -x separator, 0 for the table */
	bool json;
	bool metric_only;           /* --metric-only: one line of values, perf's layout */
	bool header_done;           /* --metric-only -I: the column header is printed */
	const char *target;         /* "'sleep 1'", "system wide" */
	double elapsed;             /* --metric-only total: seconds, for perf's footer */
};
void stat_model_print(struct stat_model *sm, const struct cnt_session *s,
		      const struct cnt_snapshot *snap, bool total,
		      struct stat_model_out *o, struct sbuf *out);

#endif

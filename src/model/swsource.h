/* swsource.h - the names of software (non-perf) sources a model can read, and their providers */
#ifndef VP_SWSOURCE_H
#define VP_SWSOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/err.h"

/*
 * A model reads values that are not perf events through
 *   source NAME = provider.counter
 * (docs/models.md lists them).  The names are fixed here so that models
 * and the modules that produce the values (src/source/, src/hv/) agree on
 * them.  A name with no provider for what is being counted resolves to
 * VP_EUNSUPP with the reason its entry gives (where the value is
 * available instead), or "no provider for source 'x' in this build yet";
 * a name not in the table is an error: "unknown source 'x'".
 */

/*
 * Whose values the sources read.  NULL (and SWS_MACHINE) is the whole
 * machine: what `model show`, `model check` and `stat -m -a` see.
 * SWS_TASKS are running processes (every thread) and single threads, as
 * `stat -p/-t` counts them: per-task sources (schedstat) sum over them;
 * with none listed yet, a read only checks that the kernel has the file.
 * SWS_COMMAND is a command that stat starts: per-task sources are absent
 * (its threads and children come and go; their times leave with them).
 * SWS_PART is a part of the machine (stat -C CPUS, -G CGROUPS): per-task
 * sources are absent, machine-wide sums would not be that part's.
 * Machine-wide sources (numastat, vmstat) read the machine in every case.
 */
enum swsource_kind { SWS_MACHINE, SWS_TASKS, SWS_COMMAND, SWS_PART };

struct swsource_scope {
	enum swsource_kind kind;
	const pid_t *pids;        /* SWS_TASKS: processes, all their threads */
	size_t n_pids;
	const pid_t *tids;        /* SWS_TASKS: single threads */
	size_t n_tids;
};

struct swsource_def {
	const char *name;     /* "numastat.other_node" */
	const char *unit;     /* "pages", "ns", "bytes", "ratio", "events" */
	const char *desc;
	bool cumulative;      /* a counter: a model sees its delta over the interval */
	/*
	 * Machine-wide value through root (cumulative counters as read), or
	 * NULL while no provider exists.  Per-entity values (a VM's
	 * placement, a vCPU's schedstat) come from the attribution stage.
	 */
	int (*read)(const char *root, const char *name, double *val, struct vp_err *err);
	/*
	 * When read is NULL (and, for an SWS_TASKS scope, read_tasks too):
	 * where the value is instead, completing "'NAME' is ..." (the
	 * collector per entity, stat -m per task), NULL otherwise.
	 */
	const char *entity;
	/*
	 * The value summed over the tasks of an SWS_TASKS scope, or NULL when
	 * the source has no per-task provider (then read applies).
	 */
	int (*read_tasks)(const char *root, const char *name, const struct swsource_scope *sc,
			  double *val, struct vp_err *err);
};

/* The entry for name, or NULL. */
const struct swsource_def *swsource_find(const char *name);
/* Every entry, ending with an entry whose name is NULL. */
const struct swsource_def *swsource_table(void);
/*
 * 0 when name can be read in this build; VP_EUNSUPP (no provider yet) or
 * VP_ENOTFOUND (unknown source) with the message in err.
 */
int swsource_check(const char *name, struct vp_err *err);
/* Read the machine-wide value of a source (see read above). */
int swsource_read(const char *root, const char *name, double *val, struct vp_err *err);
/* Read a source for a scope (NULL: the machine, as swsource_read()). */
int swsource_read_scoped(const char *root, const char *name, const struct swsource_scope *sc,
			 double *val, struct vp_err *err);

#endif

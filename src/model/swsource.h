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
 * SWS_COMMAND is a command that stat starts: its threads and children
 * come and go and their schedstat leaves with them, so per-task sources
 * are counted instead by the perf software event that counts the same
 * thing (cmd_event below, opened with inherit on the command: an ended
 * thread's or child's count is added to its parent's), or are absent.
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
	/*
	 * For an SWS_COMMAND scope: the perf event spec that counts the same
	 * ("task-clock" for run time), which the caller opens on the command
	 * instead of reading the source; NULL when no event does.
	 */
	const char *cmd_event;
	/* For an SWS_COMMAND scope without cmd_event: why the value is absent, NULL default. */
	const char *cmd_why;
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
/*
 * The perf event spec to open instead of reading name for scope sc (an
 * SWS_COMMAND scope and a source with a cmd_event), or NULL: read it.
 */
const char *swsource_event_for(const char *name, const struct swsource_scope *sc);
/* Read the machine-wide value of a source (see read above). */
int swsource_read(const char *root, const char *name, double *val, struct vp_err *err);
/* Read a source for a scope (NULL: the machine, as swsource_read()). */
int swsource_read_scoped(const char *root, const char *name, const struct swsource_scope *sc,
			 double *val, struct vp_err *err);

#endif

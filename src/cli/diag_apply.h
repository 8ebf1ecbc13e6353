/* diag_apply.h - `diagnose --apply`: the advice applied command by command, before and after compared, the undo */
#ifndef VP_DIAG_APPLY_H
#define VP_DIAG_APPLY_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/pipeline.h"

struct diag_apply_opts {
	const struct pipe_opts *po; /* what to collect (targets, model, root) */
	char **pass;                /* the same as `record` options, n_pass of them */
	size_t n_pass;
	double duration;            /* seconds recorded before and after */
	bool dry_run;               /* print the plan and the undo, run nothing */
	bool yes;                   /* apply without asking (needed without a terminal) */
	bool allow_low;             /* apply advice of low confidence too */
	bool baseline;              /* record a baseline under the kernel's NUMA balancing first */
};

/*
 * Record before, diagnose that recording, apply each advice whose every
 * command has an exact undo (analysis/apply.h), printing each command and
 * its result; record after, print `vmmprof compare` of the two and the
 * undo commands.  With baseline, between the plan and the commands, the
 * same time is recorded with the kernel's automatic NUMA balancing on
 * (/proc/sys/kernel/numa_balancing, put back as it was), and the compare
 * sets AFTER against it too.  Prints as it goes; returns the exit code.
 */
int diagnose_apply(const struct diag_apply_opts *o);

#endif

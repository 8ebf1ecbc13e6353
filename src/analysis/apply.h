/* apply.h - `diagnose --apply`: which advice may be applied, its commands one by one, and their undo */
#ifndef VP_APPLY_H
#define VP_APPLY_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/diagnose.h"

/*
 * The plan is made from a diagnosis alone (no command is run here): each
 * advice is applied whole or not at all, and only when every one of its
 * command lines has an exact undo.  Undo commands are derived from the
 * line and the state before it, which the caller supplies:
 *
 *   migratepages PID FROM TO             -> migratepages PID TO FROM
 *   taskset -pc CPUS TID                 -> taskset -pc BEFORE TID
 *   virsh vcpupin DOM V CPUS [FLAGS]     -> virsh vcpupin DOM V BEFORE [FLAGS]
 *   virsh vcpupin DOM V CPUS --live --config -> the same, or, when the
 *                                           persistent configuration pinned
 *                                           it elsewhere than the thread ran:
 *                                           virsh vcpupin DOM V BEFORE --live
 *                                           virsh vcpupin DOM V CONFIG --config
 *   virsh emulatorpin DOM CPUS [FLAGS]   -> virsh emulatorpin DOM BEFORE [FLAGS]
 *   virsh iothreadpin DOM ID CPUS [FLAGS] -> virsh iothreadpin DOM ID BEFORE [FLAGS]
 *
 * BEFORE is the thread's CPU affinity before: for virsh, the vCPU's thread,
 * QEMU's main thread (libvirt pins it with the emulator threads: its
 * affinity is the emulator pin), the IOThread's thread.  CONFIG is the pin
 * of that vCPU in the domain's persistent configuration before (--config
 * writes there, and the thread's affinity need not be what it holds: a pin
 * made --live only); a configuration that pinned it nowhere is undone with
 * every host CPU, the same placement written as a pin.  Anything else
 * (migratepages from every node, virsh numatune, xl, a restart, a comment)
 * has no undo vmmprof can derive and is not applied.
 */

/* The thread's CPU affinity now as a CPU list ("0-3"), heap; NULL when unknown. */
typedef char *(*apply_affinity_fn)(void *ctx, int tid);
/* The host thread of IOThread id of QEMU process pid, -1 unknown. */
typedef int (*apply_iothread_fn)(void *ctx, int pid, int id);
/* The CPU list vCPU vcpu of libvirt domain dom is pinned to in its persistent configuration (heap), NULL unknown. */
typedef char *(*apply_config_pin_fn)(void *ctx, const char *dom, int vcpu);

/* What the undo asks of the host (the CLI's /proc under its root; the tests' fakes). */
struct apply_probe {
	apply_affinity_fn affinity;
	apply_iothread_fn iothread;  /* NULL: no IOThread is known */
	void *ctx;
	apply_config_pin_fn config_pin; /* NULL: no persistent configuration is known */
};

/* The VM an advice acts on: the threads its command lines move. */
struct apply_vm {
	int pid;                     /* its process (QEMU's main thread); -1 unknown */
	const int *vcpu_tids;        /* host thread of vCPU index i (-1 unknown); n_vcpus of them */
	int n_vcpus;
};

struct apply_step {
	char *cmd;                   /* heap: the command line as the advice gives it */
	char *undo;                  /* heap: the line that undoes it (two, '\n'-separated, for a vcpupin --live --config whose configuration held another pin) */
};

struct apply_item {
	size_t advice;               /* index into the diag_result's advice */
	enum diag_confidence confidence;
	bool apply;
	char *why_not;               /* heap, when !apply */
	struct apply_step *steps;    /* n_steps, in the advice's order */
	size_t n_steps;
};

struct apply_plan {
	struct apply_item *items;    /* one per advice, in rank order */
	size_t n;
	size_t n_apply;              /* items with apply set */
};

/*
 * The factor advice of rule `rule` acts on: DIAG_FACTOR_CPU for the
 * CPU-contention rules (unstack-vcpus, cpu-overcommit, separate-smt), whose
 * gain is time waiting for a CPU (% of run + wait time), not cycles;
 * FACTOR_N + 1 for io-locality, pin-io-threads and vnuma-fidelity, which act on
 * nothing counted (they match no finding: their confidence stays low, so
 * --apply leaves them to the user).
 */
enum factor_id apply_rule_factor(const char *rule);

/*
 * The confidence of advice i: the highest confidence among the bottlenecks
 * of its VM (its vCPU's, or the VM's own) in the factor its rule acts on;
 * low when none is found.
 */
enum diag_confidence apply_advice_confidence(const struct diag_input *in,
					     const struct diag_result *r, size_t i);

/*
 * One command line's undo: 0 with *undo (heap), or VP_EUNSUPP with *why
 * (heap) saying why there is none.  Blank and comment-only lines give 0
 * with both NULL (nothing to run).  vm: the threads of the VM a virsh line
 * names (NULL: none known).
 */
int apply_undo_line(const char *line, const struct apply_vm *vm, const struct apply_probe *pr,
		    char **undo, char **why);

/*
 * Plan every advice of r (a diagnosis of in).  allow_low: apply advice of
 * low confidence too.  Release with apply_plan_release().
 */
void apply_plan_make(const struct diag_input *in, const struct diag_result *r, bool allow_low,
		     const struct apply_probe *pr, struct apply_plan *out);
void apply_plan_release(struct apply_plan *p);

/*
 * Split a command line into words (blanks separate, '...' quotes) for
 * execvp; a NULL-terminated heap array of heap strings (apply_split_free()),
 * empty at a '#' comment, or NULL with *why on an unterminated quote.
 */
char **apply_split(const char *line, const char **why);
void apply_split_free(char **words);

#endif

/* schedtrace.h - exact run time of chosen threads per CPU, from the kernel's context-switch records */
#ifndef VP_SCHEDTRACE_H
#define VP_SCHEDTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/*
 * The sampling fallback (attribution) charges a thread's CPU time of an
 * interval to the CPU it is on when sampled; a vCPU that moved in between
 * is charged to the wrong place.  This source records every context switch
 * of the online CPUs (one perf ring buffer per CPU: a dummy software event
 * with context_switch set, so the kernel writes PERF_RECORD_SWITCH_CPU_WIDE
 * records with CLOCK_MONOTONIC timestamps) and adds up, for each watched
 * thread, the nanoseconds it ran on each CPU: exact residency.
 *
 *   schedtrace_open()     one switch recorder per CPU
 *   schedtrace_ref()      another holder (views of one collector share it)
 *   schedtrace_watch()    threads of interest (others are skipped)
 *   schedtrace_unwatch()  undo one watch; the last one forgets the thread
 *   schedtrace_poll()     drain the buffers; charge running threads up to now
 *   schedtrace_run_ns()   cumulative ns per CPU since the thread was watched
 *
 * Each switch gives two records on the CPU where it happened: one about the
 * thread leaving, one about the thread arriving; a watched thread runs on
 * that CPU from its arrival to its departure.  A thread already running when
 * it is watched is charged from the watch time on its first departure.
 * Lost records (a full ring buffer) make the figures inexact:
 * schedtrace_lost() counts them and callers label the result accordingly.
 *
 * Why not the sched:sched_switch tracepoint: on the 6.18 kernel these
 * machines run, its perf samples on the second CPU never include a switch
 * away from the idle task, so a thread that migrates onto an idle CPU has
 * no start there (docs/vms.md); the context-switch records have no such gap
 * and need no tracefs.
 */

struct schedtrace;

/*
 * Record context switches on each of cpus (n_cpus of them; CPU ids).  Live
 * only: VP_EUNSUPP when root is a fixture tree (not "/"), or a negative
 * errno from perf_event_open (EACCES: perf_event_paranoid; recording every
 * task of a CPU needs it at 0 or CAP_PERFMON), with the reason in err.
 */
int schedtrace_open(struct schedtrace **out, const char *root, const int *cpus, size_t n_cpus,
		    struct vp_err *err);
/* Another holder of st (returned); schedtrace_free() drops one, the last frees. */
struct schedtrace *schedtrace_ref(struct schedtrace *st);
void schedtrace_free(struct schedtrace *st);

/*
 * Watch a thread from now_ns (vp_now_ns()).  running_cpu: the CPU it runs
 * on right now when the caller knows it is running (state R in /proc), else
 * -1.  Watching a thread already watched (by another holder) adds a watcher
 * and changes nothing else: its times still count from the first watch, so
 * a later watcher takes its own baseline (attrib does).
 */
void schedtrace_watch(struct schedtrace *st, int tid, uint64_t now_ns, int running_cpu);
/* Undo one watch of tid; when none is left the thread and its times are forgotten. */
void schedtrace_unwatch(struct schedtrace *st, int tid);

/* Read every buffer, then charge watched threads that are running up to now_ns. */
int schedtrace_poll(struct schedtrace *st, uint64_t now_ns, struct vp_err *err);

/*
 * Cumulative ns tid ran on each CPU since watched: *per_cpu indexed by CPU id,
 * *n entries.  false when tid is not watched.
 */
bool schedtrace_run_ns(const struct schedtrace *st, int tid, const uint64_t **per_cpu, size_t *n);

/*
 * Count moves between NUMA nodes too: node_of_cpu[c] is CPU c's node (-1
 * unknown), n entries (copied).  A watched thread moved when it comes onto
 * a CPU of another node than the one it last ran on; switch-ins are taken
 * in time order at each schedtrace_poll() up to its now_ns (the rings are
 * read one CPU after another).  Its first CPU is the one it runs on when
 * watched, or schedtrace_last_cpu(), or else its first switch-in (not a
 * move).
 */
void schedtrace_set_nodes(struct schedtrace *st, const int *node_of_cpu, size_t n);
/*
 * Watch every thread of process pid from its first record on (threads it
 * starts later included; its child processes are other processes).
 */
void schedtrace_watch_process(struct schedtrace *st, int pid);
/* Moves between nodes summed over every watched thread. */
uint64_t schedtrace_node_moves_total(const struct schedtrace *st);
/* Where a watched thread last ran before it was watched (/proc/TID/stat "processor"). */
void schedtrace_last_cpu(struct schedtrace *st, int tid, int cpu);
/*
 * The CPU tid ran on last as far as the records read so far say (its latest
 * switch-in by time; before any, the CPU it ran on when watched or
 * schedtrace_last_cpu()), -1 when not watched, not known, or records were
 * lost (a switch-in may be missing).  Up to the last schedtrace_poll().
 */
int schedtrace_cpu(const struct schedtrace *st, int tid);
/* Moves between nodes of tid since watched; false when not watched or no node map. */
bool schedtrace_node_moves(const struct schedtrace *st, int tid, uint64_t *moves);

/* Records the kernel dropped (ring buffer full) since open: non-zero = inexact. */
uint64_t schedtrace_lost(const struct schedtrace *st);

/*
 * Feed one perf record as read from a ring buffer (PERF_RECORD_SWITCH_CPU_WIDE
 * with sample_id TID|TIME|CPU, or PERF_RECORD_LOST; others are skipped):
 * the decoding the live reader uses, open to tests.
 */
void schedtrace_feed_record(struct schedtrace *st, const void *rec, size_t len);

/* One switch on cpu at t_ns, as its two records would give it (tests of callers). */
void schedtrace_switch(struct schedtrace *st, int cpu, uint64_t t_ns, int prev_tid, int next_tid);

/* A tracer that opens nothing, for schedtrace_feed_record() in tests; CPUs 0..max_cpu. */
struct schedtrace *schedtrace_new_offline(int max_cpu);

#endif

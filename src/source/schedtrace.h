/* schedtrace.h - exact run time of chosen threads per CPU, from the sched:sched_switch tracepoint */
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
 * of the online CPUs (one perf ring buffer per CPU, sched:sched_switch with
 * every event sampled, CLOCK_MONOTONIC timestamps) and adds up, for each
 * watched thread, the nanoseconds it ran on each CPU: exact residency.
 *
 *   schedtrace_open()     one tracepoint sampler per CPU
 *   schedtrace_watch()    threads of interest (others are skipped)
 *   schedtrace_poll()     drain the buffers; charge running threads up to now
 *   schedtrace_run_ns()   cumulative ns per CPU since the thread was watched
 *
 * A sched_switch record names the thread switched out (prev_pid) and in
 * (next_pid) on the CPU that recorded it: a watched thread runs on that CPU
 * from its switch-in to its switch-out.  A thread already running when it
 * is watched is charged from the watch time on its first switch-out.  Lost
 * records (a full ring buffer) make the figures inexact: schedtrace_lost()
 * counts them and callers label the result accordingly.
 */

struct schedtrace;

/*
 * The offsets of prev_pid and next_pid in the tracepoint's raw record, from
 * the text of events/sched/sched_switch/format.  VP_EPARSE when absent.
 */
int schedtrace_parse_format(const char *text, int *prev_pid_off, int *next_pid_off,
			    struct vp_err *err);

/*
 * Open the tracepoint on each of cpus (n_cpus of them; CPU ids), tracefs
 * found under root ("/" live).  VP_EUNSUPP (no tracefs, no tracepoint) or
 * a negative errno from perf_event_open (EACCES: perf_event_paranoid) with
 * the reason in err.
 */
int schedtrace_open(struct schedtrace **out, const char *root, const int *cpus, size_t n_cpus,
		    struct vp_err *err);
void schedtrace_free(struct schedtrace *st);

/*
 * Watch a thread from now_ns (vp_now_ns()); watching one twice is a no-op.
 * running_cpu: the CPU it runs on right now when the caller knows it is
 * running (state R in /proc), else -1.
 */
void schedtrace_watch(struct schedtrace *st, int tid, uint64_t now_ns, int running_cpu);

/* Read every buffer, then charge watched threads that are running up to now_ns. */
int schedtrace_poll(struct schedtrace *st, uint64_t now_ns, struct vp_err *err);

/*
 * Cumulative ns tid ran on each CPU since watched: *per_cpu indexed by CPU id,
 * *n entries.  false when tid is not watched.
 */
bool schedtrace_run_ns(const struct schedtrace *st, int tid, const uint64_t **per_cpu, size_t *n);

/* Records the kernel dropped (ring buffer full) since open: non-zero = inexact. */
uint64_t schedtrace_lost(const struct schedtrace *st);

/*
 * Feed one raw sched_switch record (what PERF_SAMPLE_RAW carries) seen on
 * cpu at t_ns: the decoding the live reader uses, open to tests.
 */
void schedtrace_feed(struct schedtrace *st, int cpu, uint64_t t_ns, const void *raw, size_t len);

/* A tracer that opens nothing, for schedtrace_feed() in tests. */
struct schedtrace *schedtrace_new_offline(int prev_pid_off, int next_pid_off, int max_cpu);

#endif

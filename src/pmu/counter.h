/* counter.h - counting engine: resolved events opened as perf counter groups over CPUs, threads and cgroups, read into scaled interval snapshots */
#ifndef VP_COUNTER_H
#define VP_COUNTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmu/event.h"
#include "util/cpulist.h"
#include "util/err.h"

/*
 * Life of a counting session:
 *
 *   cnt_session_new(&s, &req, &err)    plan every counter, raise RLIMIT_NOFILE,
 *                                      perf_event_open() them (disabled)
 *   cnt_session_enable(s)              start counting (not in enable_on_exec mode)
 *   cnt_session_read(s, &snap, &err)   one snapshot: per-counter deltas since the
 *                                      previous read and totals since the start
 *   ...
 *   cnt_session_free(s)
 *
 * What was opened is described by three tables the session owns and never
 * reorders: events (what the user asked for), entities (what is counted: a
 * CPU, a thread, a cgroup) and counters (one series = one event on one
 * entity; it may sum several file descriptors, e.g. a cgroup's one fd per
 * CPU).  A snapshot holds one value per counter, indexed like s->counters,
 * so later stages (models, attribution, recording) need nothing else.
 *
 * Scaling (as perf does it): a series' raw count, enabled and running times
 * are sums over its descriptors; its value is
 *     raw * (enabled / running) * scale
 * and the percentage perf prints as "(62.50%)" is 100 * running / enabled.
 * A counter that was enabled but never ran (multiplexed out the whole
 * time) has value NaN ("<not counted>"); one that was not even enabled
 * (a thread that did not run in the interval) counted exactly 0.
 * In interval mode the same formula is applied to the interval's deltas of
 * raw, enabled and running.
 */

/* What the user asked to count on. */
struct cnt_target {
	bool system_wide;          /* -a: every online CPU */
	struct cpulist cpus;       /* -C: only these CPUs; empty = every online CPU */
	const pid_t *pids;         /* -p: every existing thread of each process */
	size_t n_pids;
	const pid_t *tids;         /* -t: these threads */
	size_t n_tids;
	bool inherit;              /* per-thread counters also count children and new
				      threads (perf's default for -p, -t and a command) */
	bool enable_on_exec;       /* command mode: counting starts at the child's exec */
	bool skip_gone;            /* tids a scan found: one that has exited since is left
				      out (its counts are n/a), not an error; counting the
				      others goes on */
};

/* One request: events, where, and the root directory for /proc and /sys. */
struct cnt_request {
	const struct evdesc *events; /* resolved events (copied into the session) */
	size_t n_events;
	const char *const *cgroups;  /* n_events entries or NULL: an event with a cgroup
				        name counts only in that cgroup, on every CPU */
	const int *groups;           /* n_events entries or NULL: events sharing an id >= 0
				        open as one perf group; -1 = perf's default (each
				        on its own; software events share one group per
				        target, which changes nothing but the read cost) */
	struct cnt_target target;
	const char *root;            /* "/" or NULL live; a fixture tree in tests */
};

enum cnt_ev_state {
	CNT_EV_OPEN,       /* at least one descriptor counts */
	CNT_EV_DROPPED,    /* every descriptor failed: see errnum and why */
};

/* One requested event as the session holds it. */
struct cnt_event {
	struct evdesc ev;          /* deep copy of the request's evdesc */
	char *cgroup;              /* cgroup name as given, NULL when none */
	int group;                 /* user group id, -1 none */
	enum cnt_ev_state state;
	int errnum;                /* first open failure (positive errno), 0 none */
	char *why;                 /* explanation of errnum (cnt_explain), NULL when none */
	int n_fds;                 /* descriptors open */
	int n_failed;              /* descriptors that failed for this event */
};

enum cnt_ent_kind {
	CNT_ENT_CPU,       /* a CPU (system-wide and CPU-list counting, uncore instances) */
	CNT_ENT_THREAD,    /* a thread (with its children/new threads when inherit) */
	CNT_ENT_CGROUP,    /* a cgroup, summed over every CPU */
};

enum cnt_ent_state {
	CNT_ENT_LIVE,
	CNT_ENT_ENDED,     /* thread exited / cgroup removed: its series ended at ended_ns */
	CNT_ENT_OFFLINE,   /* CPU requested but offline: never counted */
};

/* What is counted. */
struct cnt_entity {
	enum cnt_ent_kind kind;
	enum cnt_ent_state state;
	int cpu;                   /* CNT_ENT_CPU: the CPU; -1 otherwise */
	int package;               /* CNT_ENT_CPU: physical package id, -1 unknown */
	int die, core;             /* CNT_ENT_CPU: die_id and core_id in sysfs, -1 unknown */
	int node;                  /* CNT_ENT_CPU: its NUMA node (cpuN/nodeM), -1 unknown */
	pid_t tid;                 /* CNT_ENT_THREAD: the thread */
	pid_t pid;                 /* CNT_ENT_THREAD: its process (thread group) */
	char *cgroup;              /* CNT_ENT_CGROUP: name as given */
	char *cgroup_path;         /* CNT_ENT_CGROUP: absolute directory (live) */
	uint64_t ended_ns;         /* vp_now_ns() of the read that found it gone */
};

/* One series: an event counted on an entity. */
struct cnt_counter {
	int event;                 /* index into s->events */
	int entity;                /* index into s->entities */
};

/* A (scaled) reading of one series, or of a sum of series. */
struct cnt_value {
	uint64_t raw;              /* count as read (delta or total) */
	uint64_t enabled;          /* ns the counter was enabled */
	uint64_t running;          /* ns it was counting (< enabled when multiplexed) */
	double value;              /* raw * enabled/running * scale; NaN when enabled but never running */
	double pct;                /* 100 * running/enabled; NaN when enabled == 0 */
};

enum cnt_series_state {
	CNT_SERIES_LIVE,
	CNT_SERIES_ENDED_NOW,      /* its entity vanished during this interval: last delta */
	CNT_SERIES_ENDED,          /* ended earlier: delta is NaN, total frozen */
};

/*
 * One read.  delta[i], total[i] and state[i] describe s->counters[i].
 * Storage owned by the caller: cnt_snapshot_init() / cnt_snapshot_release();
 * cnt_session_read() sizes it.
 */
struct cnt_snapshot {
	uint64_t t_ns;             /* vp_now_ns() of this read */
	uint64_t prev_ns;          /* previous read (the start for the first) */
	uint64_t start_ns;         /* when counting was enabled */
	size_t n;                  /* == s->n_counters */
	struct cnt_value *delta;   /* since prev_ns */
	struct cnt_value *total;   /* since start_ns */
	unsigned char *state;      /* enum cnt_series_state */
	int n_ended_now;           /* entities that ended in this interval */
};

struct cnt_fd;
struct cnt_group;

struct cnt_session {
	struct cnt_event *events;
	size_t n_events;
	struct cnt_entity *entities;
	size_t n_entities;
	struct cnt_counter *counters;
	size_t n_counters;
	struct cnt_fd *fds;        /* private: one per perf_event_open() descriptor */
	size_t n_fds;
	struct cnt_group *grps;    /* private: one per group leader */
	size_t n_grps;
	int *pidfds;               /* private: per entity, a live thread's pidfd (exit by poll),
				      -1 none (tgkill); NULL before the first read */
	size_t fds_needed;         /* descriptors the plan needs */
	uint64_t start_ns;
	uint64_t last_ns;
	char *root;
	bool enable_on_exec;
	bool started;
};

void cnt_snapshot_init(struct cnt_snapshot *snap);
void cnt_snapshot_release(struct cnt_snapshot *snap);

/*
 * Plan and open every counter of req.  On success *out is a session (free
 * with cnt_session_free()) whose events may include dropped ones (state
 * CNT_EV_DROPPED with why).  Fails when no event could be opened at all,
 * when a target is invalid (a CPU that does not exist, a process that does
 * not exist, an unknown cgroup), or when the descriptors needed exceed what
 * RLIMIT_NOFILE can be raised to: the message then says how many are needed.
 */
int cnt_session_new(struct cnt_session **out, const struct cnt_request *req,
		    struct vp_err *err);
void cnt_session_free(struct cnt_session *s);

/* Enable every group leader and take the start timestamp. */
int cnt_session_enable(struct cnt_session *s, struct vp_err *err);
/* In enable_on_exec mode: take the start timestamp (call right after the exec). */
void cnt_session_mark_start(struct cnt_session *s);
/* Disable every group leader (for the final read after a command ended). */
void cnt_session_disable(struct cnt_session *s);

/*
 * Read every group, compute deltas since the previous read and totals,
 * check which threads and cgroups vanished (their series end, the session
 * goes on).  Fills *snap (resized to s->n_counters).
 */
int cnt_session_read(struct cnt_session *s, struct cnt_snapshot *snap, struct vp_err *err);

/* value and pct of v from raw, enabled, running and the event's scale. */
void cnt_value_scale(struct cnt_value *v, double scale);
/* Delta of two cumulative readings (cur - prev; a counter never goes back,
 * so a smaller cur gives 0), not yet scaled. */
void cnt_value_delta(struct cnt_value *d, const struct cnt_value *cur, const struct cnt_value *prev);

/* Which series a sum takes; -1 in a field means any. */
struct cnt_filter {
	int event;                 /* index into s->events */
	int spec_index;            /* the events' evdesc.spec_index (uncore instances share it) */
	int entity;                /* index into s->entities */
	int package;               /* the entity's package */
	int die, core;             /* with package: one core (stat --per-core) */
	int node;                  /* the entity's NUMA node (stat --per-node) */
};

#define CNT_FILTER_ANY { -1, -1, -1, -1, -1, -1, -1 }

/*
 * Sum the series of one snapshot (deltas, or totals when use_total) that
 * match f.  Deltas skip series that ended before this interval; totals keep
 * them (a thread that exited still counted).  The sum is scaled as one
 * counter (perf's aggregation: summed raw * summed enabled / summed running
 * * scale).  Returns the number of series summed; 0 leaves value NaN.
 */
int cnt_sum(const struct cnt_session *s, const struct cnt_snapshot *snap, bool use_total,
	    const struct cnt_filter *f, struct cnt_value *out);

/* How many descriptors a request needs (for budgeting and messages). */
size_t cnt_session_fds(const struct cnt_session *s);

/*
 * The cgroup hierarchy perf events use, seen through root: a cgroup v1
 * hierarchy with the perf_event controller if one is mounted, else the
 * cgroup v2 mount (/sys/fs/cgroup, or /sys/fs/cgroup/unified on hybrid
 * systems).  Writes the mount point into buf.
 */
int cnt_cgroup_mount(const char *root, char *buf, size_t size, bool *v2, struct vp_err *err);

/* ---- explaining open failures (kept apart from detecting them) ---- */

/* What the explanations need to know about the machine. */
struct cnt_explain_ctx {
	int paranoid;              /* /proc/sys/kernel/perf_event_paranoid, INT_MIN unknown */
	bool privileged;           /* root or CAP_PERFMON / CAP_SYS_ADMIN */
	bool core_pmu;             /* a core PMU under /sys/bus/event_source/devices */
	bool in_vm;                /* the CPU says it runs under a hypervisor */
	long fd_limit;             /* soft RLIMIT_NOFILE, -1 unknown */
	size_t fds_needed;         /* descriptors the request needs */
};

/*
 * Whether ev can be opened on this machine: once, on the calling thread
 * (user space only, disabled), closed again at once.  0 when it opens,
 * else the negative errno perf_event_open() gave (cnt_explain() words it).
 */
int cnt_try_open(const struct evdesc *ev);

/* Fill ctx from the machine seen through root (live: "/"). */
void cnt_explain_probe(struct cnt_explain_ctx *ctx, const char *root);

/*
 * Explain why perf_event_open() failed with errnum (positive) for ev
 * (per_cpu: opened CPU-wide or per cgroup rather than per thread), in
 * words a user can act on (which paranoid value or capability is needed,
 * "this CPU or VM does not expose 'cycles'", how many descriptors are
 * needed, the process being gone).  Returns a heap string; free() it.
 */
char *cnt_explain(int errnum, const struct evdesc *ev, bool per_cpu,
		  const struct cnt_explain_ctx *ctx);

#endif

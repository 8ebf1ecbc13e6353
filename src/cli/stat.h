/* stat.h - the parts of `vmmprof stat` shared by its files: options and command (cmd_stat.c),
 * the counting run (stat_run.c), the output formats (stat_print.c); front-end only */
#ifndef VP_CLI_STAT_H
#define VP_CLI_STAT_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "cli/stat_model.h"
#include "pmu/counter.h"
#include "pmu/event.h"
#include "util/cpulist.h"
#include "util/runstat.h"
#include "util/sbuf.h"

/* One -e spec as the user wrote it (after splitting lists and groups). */
struct spec {
	char *text;
	int group;                 /* {a,b} group id, -1 none */
	char *cgroup;              /* -G name, NULL none */
	bool is_default;           /* one of perf's defaults (a failure is not fatal) */
	int resolve_err;           /* event_resolve() failed: the code */
	char *resolve_msg;
};

struct stat_opts {
	struct spec *specs;
	size_t n_specs, cap_specs;
	int n_groups;
	size_t nr_cgroups;         /* perf's running count of -G names */
	char *cgroup_all;          /* -G given before any -e: applies to every event */
	bool all_cpus;
	struct cpulist cpus;
	pid_t *pids, *tids;
	size_t n_pids, n_tids, cap_pids, cap_tids;
	long interval_ms;
	long interval_count;     /* --interval-count: stop after this many intervals; 0 none */
	char sep;                  /* -x: CSV separator, 0 for the table */
	bool json;
	bool big_num;
	const char *output;
	char **cmd;                /* the command after the options, NULL when none */
	const char *model;         /* -m: a model name or file (docs/models.md) */
	bool raw;                  /* --raw: counts of the model's events, not its metrics */
	char **model_paths;        /* --model-path DIRs */
	size_t n_model_paths;
	const char *calibration;   /* --calibration FILE */
	long repeat;               /* -r N: run the command N times (1: once) */
	bool per_thread;           /* --per-thread: one row per thread and event */
	int aggr;                  /* AGGR_*: -A, --per-core, --per-socket, --per-node, --per-die, --per-cache */
	int cache_level;           /* --per-cache=LEVEL: 1, 2, 3...; 0 the last level */
	long timeout_ms;           /* --timeout: stop after this many ms; 0 none */
	long delay_ms;             /* -D: count from this many ms after the start; 0 none */
	bool transaction;          /* -T: perf's transactional-memory events */
	int verbose;               /* -v: each counter's raw, enabled and running ns */
	bool null_run;             /* -n: open no counter, time the run */
	bool append;               /* --append: add to -o FILE instead of replacing it */
	const char *metrics;       /* -M: the model's metrics and factors to print */
	bool metric_only;          /* --metric-only: the model's values in one line */
	int *cpu_cache;            /* --per-cache: per CPU id, its cache's id (first CPU), -1 none */
	int n_cpu_cache;
	int cache_found;           /* the level those caches are */
};

/* How -a/-C counts are summed: over every CPU (perf's default), or per group of CPUs. */
enum { AGGR_GLOBAL, AGGR_NONE, AGGR_CORE, AGGR_SOCKET, AGGR_NODE, AGGR_DIE, AGGR_CACHE };
/* The flag of each AGGR_*, for messages: "", "-A", "--per-core" ... */
extern const char *const stat_aggr_flag[];

/* One group of CPUs that a line sums, as perf labels it ("N0", "S0-D0-C1", "CPU3"). */
struct aggr_group {
	char id[40];
	int width;                 /* the id's column in the table */
	int cpus;                  /* CPUs summed; -1 with -A (perf prints no count) */
	struct cnt_filter f;
	int cache;                 /* --per-cache: the cache's id (its first CPU), else -1 */
};

/* One output row: a non-uncore event, or every instance of an uncore spec. */
struct row {
	char *name;                /* owned: rows outlive -r's sessions */
	int event;                 /* session event index, -1 for a merged uncore spec */
	int spec_index;
	int spec;                  /* index into opts.specs */
	const char *cgroup;
	bool dropped;              /* not supported: no descriptor opened */
	char *why;                 /* owned, NULL none */
	bool clock;                /* task-clock / cpu-clock: shown in msec */
	bool task_clock;
	double scale;
	char *unit;                /* owned */
};

/* ---- the run ---- */

/* The command stat forks (stat_run.c), held back until the counters are open. */
struct child {
	pid_t pid;
	int go_fd;                 /* write a byte to let it exec */
	int err_fd;                /* its exec errno arrives here; EOF = exec happened */
	int status;
	struct rusage ru;
	bool done;
};

/* What every run shares: the options, the events to open, the output. */
struct stat_ctx {
	struct stat_opts *o;
	struct evdesc_list *list;
	const char **cgroups;
	int *groups;
	sigset_t set, oldmask;
	bool thread_target, child_target;
	struct row *rows;          /* made from the first run's session */
	size_t n_rows;
	struct stat_model *sm;
	bool have_model, model_only;
	struct stat_model_out mo;
	FILE *f;                   /* opened once the first session is open */
	struct sbuf out;
	bool header_done;
};

/* One run: its session, last snapshot and command. */
struct stat_run {
	struct cnt_session *s;
	struct cnt_snapshot snap;
	struct child ch;
	bool *was_live;
	char **comms;              /* --per-thread: per entity, its comm when the run started */
	bool interrupted;          /* ended by SIGINT, SIGTERM or SIGHUP */
	bool counted_out;          /* --interval-count ended it (its command's SIGTERM is ours) */
	bool timed_out;            /* --timeout ended it (ditto) */
};

/* -r N: each row's count over every run, and the runs' times and exit codes. */
struct repeat {
	int asked;                 /* N */
	int done;                  /* runs counted */
	size_t n_rows;
	struct runstat *rs;        /* per row: its scaled counts (runs that counted it) */
	double *runs;              /* [row * asked + run]: scaled count, NaN not counted */
	struct cnt_value *sum;     /* per row: raw, enabled, running summed over the runs */
	struct runstat elapsed;    /* seconds */
	double *elapsed_runs;
	int *status;               /* per run: the command's exit code */
};

/* ---- stat_print.c: rows and the output formats (table, -x CSV, --json) ---- */

struct row *stat_make_rows(const struct stat_opts *o, const struct cnt_session *s, size_t *n_out);
void stat_free_rows(struct row *rows, size_t n);
void stat_target_desc(struct sbuf *out, const struct stat_opts *o);
void stat_print_notes(struct sbuf *out, const struct stat_opts *o, const struct cnt_session *s,
			const struct row *rows, size_t n, bool child_target, uint64_t end_ns);
int stat_flush_out(FILE *f, struct sbuf *sb);
void stat_print_interval(struct sbuf *out, const struct stat_opts *o, const struct cnt_session *s,
			   const struct cnt_snapshot *snap, const struct row *rows, size_t n,
			   const bool *was_live, bool *header_done, char *const *comms);
void stat_print_summary(struct sbuf *out, const struct stat_opts *o, const struct cnt_session *s,
			  const struct cnt_snapshot *snap, const struct row *rows, size_t n,
			  const struct child *ch, bool child_target, char *const *comms);
void stat_repeat_init(struct repeat *rp, int asked, size_t n_rows);
void stat_repeat_release(struct repeat *rp);
void stat_repeat_add(struct repeat *rp, const struct row *rows, const struct stat_run *r);
void stat_repeat_print(struct sbuf *out, const struct stat_opts *o, const struct repeat *rp,
			 const struct row *rows, const struct stat_run *last, bool child_target);

/* ---- stat_run.c: one counting run (the session, the command, the intervals) ---- */

void stat_run_init(struct stat_run *r);
void stat_run_release(struct stat_run *r);
int stat_exit_code(int status);
int stat_run_once(struct stat_ctx *c, struct stat_run *r);

#endif
